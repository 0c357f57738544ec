/**
 * The live console's events (GET /api/events, server-sent events; docs/decisions/0042). Each
 * carries ids only: the client refetches what it shows. The SSE `event:` field is the type.
 */
export type TLiveEvent =
  /** A notification of the user's was created, or one or all were read, or its brief was written
   * or failed ('updated', docs/decisions/0044). */
  | { type: 'notification'; action: 'created' | 'read' | 'updated'; notificationId: string | null; agentId: string | null }
  /** An agent's status, last run or health changed. */
  | { type: 'agent'; agentId: string }
  /** A run was queued or finished. */
  | { type: 'run'; action: 'queued' | 'finished'; agentId: string; runId: number }
  /** An assistant proposed an agent or a change, or the owner decided one (issue 31). */
  | { type: 'proposal'; action: 'created' | 'decided'; proposalId: string };

export type TLiveEventType = TLiveEvent['type'];

/** Sent instead of events the server no longer has (an old Last-Event-ID, a lost bus): refetch everything. */
export const RESET_EVENT = 'reset';
export const LIVE_EVENT_TYPES: readonly TLiveEventType[] = ['notification', 'agent', 'run', 'proposal'];
export const EVENTS_PATH = '/api/events';
