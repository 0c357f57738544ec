import '../../../lib/zod-csp.ts';
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { z } from 'zod';
import { ZCondition, ZConditionState, type TCondition, type TConditionState } from '../../../../contracts/conditions.ts';
import type { TConditionDraft, TConditionDraftRequest } from '../../../../contracts/condition-draft.ts';
import type { TProposal } from '../../../../contracts/assistant-tools.ts';
import { ZAgent, ZRunHistory, ZRunQueued, type TAgent, type TAgentConfig, type TAgentStatus, type TAgentTemplate, type TRunHistoryEntry } from '../../../../contracts/agents.ts';
import { BACKTEST_CONTENT_TYPE, ZBacktestEvent, type TAgentBacktestRequest, type TBacktestRequest, type TBacktestResult } from '../../../../contracts/backtest.ts';
import { AGENT_LIST_STALE_MS, STATUS_CHANGE_TIMEOUT_MS } from '../../../../contracts/constants.ts';
import { ApiError, apiFetch, apiRequest } from '../../../lib/api-client.ts';
import { useLive } from '../../../lib/live-status.ts';
import { parsedQueryFn } from '../../../lib/query-client.ts';

// Identity comes from the session: unlike SPEC's client we send no googleId.
export const TEMPLATES_QUERY_KEY = ['/api/agent-templates'] as const;
export const AGENTS_QUERY_KEY = ['/api/agents'] as const;
export const agentQueryKey = (id: string) => [`/api/agents/${id}`] as const;
export const RUNS_LIMIT = 50;
/** The owner's proposals waiting for a decision (issue 31): a ProposalCard each, in the console. */
export const PENDING_PROPOSALS_QUERY_KEY = ['/api/agents/proposals?status=pending'] as const;
export const runsQueryKey = (id: string) => [`/api/agents/${id}/runs?limit=${RUNS_LIMIT}`] as const;

/** SPEC section 9: lists refresh this long after a status change succeeds or fails. */
export const REFRESH_AFTER_SUCCESS_MS = 500;
export const REFRESH_AFTER_FAILURE_MS = 1000;

const ZAgentList = ZAgent.array();

export const useTemplates = () => useQuery<TAgentTemplate[]>({ queryKey: TEMPLATES_QUERY_KEY });

/** SPEC: the agent list is fresh for 30 s, and runs only once the user is known. */
export const useAgents = (enabled: boolean) => useQuery({ queryKey: AGENTS_QUERY_KEY, queryFn: parsedQueryFn(ZAgentList), staleTime: AGENT_LIST_STALE_MS, enabled });

export const usePendingProposals = (enabled: boolean) => useQuery<TProposal[]>({ queryKey: PENDING_PROPOSALS_QUERY_KEY, enabled });

export const useAgent = (id: string) => useQuery({ queryKey: agentQueryKey(id), queryFn: parsedQueryFn(ZAgent) });

/** How often a run history is polled while one of its runs is queued or running and the live stream is not open. */
export const RUN_POLL_MS = 2000;
export const hasActiveRun = (runs: readonly TRunHistoryEntry[] | undefined) => runs?.some((r) => r.status === 'queued' || r.status === 'running') ?? false;

/**
 * An agent's runs, newest first. The live stream's run events refresh it; without the stream it
 * is polled while a run is queued or running. Either way a 'Run now' result appears without a
 * reload; when the last active run finishes, the agent itself (Last
 * Run, Performance), the list and the notifications are refreshed, since the run changed them.
 */
export function useAgentRuns(id: string) {
  const queryClient = useQueryClient();
  const live = useLive();
  const query = useQuery<TRunHistoryEntry[]>({
    queryKey: runsQueryKey(id),
    queryFn: parsedQueryFn(ZRunHistory),
    refetchInterval: (q) => (!live && hasActiveRun(q.state.data) ? RUN_POLL_MS : false),
  });
  const active = hasActiveRun(query.data);
  const wasActive = useRef(active);
  useEffect(() => {
    if (wasActive.current && !active) {
      void queryClient.invalidateQueries({ queryKey: agentQueryKey(id) });
      void queryClient.invalidateQueries({ queryKey: AGENTS_QUERY_KEY });
      // The run may have raised alerts: the header's bell need not wait for its own poll.
      void queryClient.invalidateQueries({ predicate: (q) => String(q.queryKey[0]).startsWith('/api/notifications') });
    }
    wasActive.current = active;
  }, [active, id, queryClient]);
  return query;
}

/** Every agent query: the list, each agent and each run history (their URLs all start so). */
export const invalidateAgents = (queryClient: QueryClient) =>
  queryClient.invalidateQueries({ predicate: (query) => String(query.queryKey[0]).startsWith('/api/agents') });

export type TCreateAgentBody = { templateId: string; name: string; config: TAgentConfig };

export const createAgent = async (body: TCreateAgentBody): Promise<TAgent> => ZAgent.parse(await apiRequest('POST', '/api/agents', body));
export const changeStatus = async (id: string, status: TAgentStatus): Promise<TAgent> =>
  ZAgent.parse(await apiRequest('PATCH', `/api/agents/${id}`, { status }, { timeoutMs: STATUS_CHANGE_TIMEOUT_MS }));
/** An edit from the details dialog: a new name, the whole new configuration, or both. */
export type TAgentEdit = { name?: string; config?: TAgentConfig };
export const editAgent = async (id: string, edit: TAgentEdit): Promise<TAgent> => ZAgent.parse(await apiRequest('PATCH', `/api/agents/${id}`, edit));
export const deleteAgent = (id: string) => apiRequest<void>('DELETE', `/api/agents/${id}`);
export const runAgent = async (id: string) => ZRunQueued.parse(await apiRequest('POST', `/api/agents/${id}/run`));

/** SPEC's status-failure text: the server's details (their messages joined), else the error's
 * message, else 'Unknown error'. */
export function statusErrorDetails(err: unknown): string {
  if (err instanceof ApiError && err.body && typeof err.body === 'object' && 'details' in err.body) {
    const { details } = err.body;
    if (Array.isArray(details) && details.length > 0) {
      return details.map((d) => (d && typeof d === 'object' && 'message' in d ? String(d.message) : String(d))).join(', ');
    }
    if (typeof details === 'string' && details) return details;
  }
  return err instanceof Error && err.message ? err.message : 'Unknown error';
}

/** What a running test reports while history loads: one market's `loaded` of `total` candles. */
export type TBacktestProgress = { market: string; loaded: number; total: number };
export type TBacktestOptions = { signal: AbortSignal; onProgress?(progress: TBacktestProgress): void };

/** A test that ended in an `error` event: the answer had begun, so its status said nothing. */
export class BacktestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BacktestError';
  }
}

/** The wizard's test: a configuration not saved yet. */
export const backtestDraft = (body: TBacktestRequest, options: TBacktestOptions) => runBacktest('/api/agents/backtest', body, options);
/** The details' test: the saved configuration, or `config` (the saved one with unsaved edits) in its place. */
export const backtestAgent = (id: string, body: TAgentBacktestRequest, options: TBacktestOptions) => runBacktest(`/api/agents/${id}/backtest`, body, options);

/**
 * POSTs a test and reads its answer, one JSON event per line (decision record 0039): progress
 * goes to `onProgress`, the result resolves, an `error` event rejects with a BacktestError. A
 * refusal before the stream (400 with field details, 403, 404, 429) rejects with the ApiError
 * apiFetch makes of it. Aborting `signal` cancels the request, and the body if it has begun.
 */
async function runBacktest(url: string, body: unknown, { signal, onProgress }: TBacktestOptions): Promise<TBacktestResult> {
  // No timeout on the answer's start beyond the usual one: the server begins streaming at once.
  const res = await apiFetch('POST', url, body, { signal, headers: { accept: `${BACKTEST_CONTENT_TYPE}, application/json` } });
  if (!res.body) throw new BacktestError('The test answered without a result. Please try again.');
  for await (const line of readLines(res.body, signal)) {
    const event = ZBacktestEvent.parse(JSON.parse(line));
    if (event.type === 'progress') onProgress?.({ market: event.market, loaded: event.loaded, total: event.total });
    else if (event.type === 'result') return event.result;
    else throw new BacktestError(event.error);
  }
  throw new BacktestError('The test stopped before its result arrived. Please try again.');
}

/**
 * The non-blank lines of a body as they arrive, in chunks split anywhere (inside a line or a
 * multi-byte character); a last line without its newline counts. Aborting `signal`, or leaving
 * the loop early, cancels the body, which closes the connection.
 */
export async function* readLines(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let finished = false;
  const aborted = () => signal?.reason ?? new DOMException('Aborted', 'AbortError');
  const onAbort = () => void reader.cancel().catch(() => {});
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      if (signal?.aborted) throw aborted();
      const { done, value } = await reader.read();
      if (signal?.aborted) throw aborted();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      const lines = buffer.split('\n');
      buffer = done ? '' : lines.pop()!;
      for (const line of lines) if (line.trim()) yield line;
      if (done) {
        finished = true;
        return;
      }
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (!finished) void reader.cancel().catch(() => {});
  }
}

// --- Conditions' trigger state (issue 30, docs/decisions/0071, 0074) --------------------------
// Disarmed after 'Only once', snoozed from a notification: it lives beside the configuration.

export const conditionStatesQueryKey = (agentId: string) => [`/api/agents/${agentId}/conditions/state`] as const;

/** The list, bare or under `states`: either reads the same. */
const ZConditionStates = z.union([ZConditionState.array(), z.object({ states: ZConditionState.array() }).transform((body) => body.states)]);

/** Each condition's state; a condition the server has no state for is armed and not snoozed. */
export const useConditionStates = (agentId: string, enabled: boolean) =>
  useQuery<TConditionState[]>({ queryKey: conditionStatesQueryKey(agentId), queryFn: parsedQueryFn(ZConditionStates), enabled });

/** Arms again a condition that fired 'Only once'. */
export const rearmCondition = (agentId: string, conditionId: string) => apiRequest<unknown>('POST', `/api/agents/${agentId}/conditions/${conditionId}/rearm`);
/** Ends a condition's snooze now. */
export const unsnoozeCondition = (agentId: string, conditionId: string) => apiRequest<unknown>('DELETE', `/api/agents/${agentId}/conditions/${conditionId}/snooze`);

/** The server waits CHAT_TIMEOUT_MS (30 s unless set) for the assistant; the browser waits longer, so the server's own message arrives. */
const DRAFT_TIMEOUT_MS = 90_000;

/**
 * POST /api/agents/conditions/draft (docs/decisions/0075): a condition drafted from the owner's
 * words, read with the contract's schema. A 422 (words not understood), 4xx or 5xx is an ApiError.
 */
export async function draftCondition(request: TConditionDraftRequest): Promise<TCondition> {
  const answer = await apiRequest<TConditionDraft | undefined>('POST', '/api/agents/conditions/draft', request, { timeoutMs: DRAFT_TIMEOUT_MS });
  const parsed = ZCondition.safeParse(answer?.condition);
  if (!parsed.success) throw new Error('The assistant’s draft could not be read. Please try again.');
  return parsed.data;
}
