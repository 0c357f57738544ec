import { CHANNEL_CHOICE_RULE } from '../../../contracts/channels.ts';
import {
  currentFrequency,
  ZAlertBriefChoice,
  ZCreateAgent,
  ZNotifications,
  ZUpdateAgent,
  type TAgent,
  type TAgentConfig,
  type TAlertBriefChoice,
  type TAgentStatus,
  type TRunHistoryAnswer,
} from '../../../contracts/agents.ts';
import { followDefaultMessage } from '../../../contracts/alert-thresholds.ts';
import type { Db } from '../../db/client.ts';
import { AppError, type ErrorDetail } from '../../lib/errors.ts';
import type { SessionUser } from '../../lib/http/types.ts';
import {
  deleteAgent,
  dropQueuedSlots,
  findAgent,
  insertAgent,
  listAgents,
  listRuns,
  findRun,
  queueRunNow,
  updateAgent,
  type AgentRow,
  type AgentRunRow,
  type HealthRow,
} from './agents.repo.ts';
import { failureReason, NO_HEALTH, type TAgentHealth } from '../../../contracts/agent-health.ts';
import { computeNextRunAt } from './schedule.ts';
import { checkAgentRequest, fieldOf, validateAgentConfig } from './validate-config.ts';
import { deleteStatesExcept } from './condition-states.repo.ts';
import { NO_EVENTS, type EventPublisher } from '../../lib/live-events.ts';
import { NO_CACHE, type Invalidations } from '../../lib/invalidations.ts';
import { createOwnerCache } from '../../lib/owner-cache.ts';

/** Queues run jobs inside the caller's transaction (the runtime's job queue). */
export type RunEnqueuer = { enqueueRuns(tx: Db, runs: ReadonlyArray<{ id: number }>): Promise<void> };
export type AgentsServiceDeps = {
  db: Db;
  jobs: RunEnqueuer;
  /** Which of these channel ids are not the user's (docs/decisions/0043); absent: none are checked. */
  foreignChannels?: (userId: string, ids: readonly string[]) => Promise<string[]>;
  /** Why this user cannot choose this "Explain alerts" assistant and model (docs/decisions/0044),
   * on its fields; absent: not checked. */
  briefProblems?: (user: Pick<SessionUser, 'role'>, choice: TAlertBriefChoice | undefined) => ErrorDetail[];
  now?: () => Date;
  events?: EventPublisher;
  /** Where the database announces owners' changes (PGlite), each owner's list is kept in memory
   * until their next change (docs/decisions/0059); absent: read every time. */
  invalidations?: Invalidations;
};
/** Who is asking: the session's user, and SPEC's optional `googleId`s from the query and body. */
export type Caller = { user: Pick<SessionUser, 'id' | 'provider' | 'subject' | 'role'>; googleIds: ReadonlyArray<string | undefined> };

const NOT_FOUND = 'Agent not found';
/** The agents lists kept in memory, in characters of JSON (a list of 10 is ~8,000). */
const LIST_CACHE_CHARS = 4_000_000;
const RUN_IN_PROGRESS = 'A run is already in progress';

/** Failing when the latest finished run failed; its time of success stays known either way. */
function toHealth(row: HealthRow): TAgentHealth {
  if (!row.latestStatus) return NO_HEALTH;
  const lastSuccessAt = row.lastSuccessAt?.toISOString() ?? null;
  return row.latestStatus === 'failure' ? { state: 'failing', reason: failureReason(row.latestError), lastSuccessAt } : { state: 'healthy', reason: null, lastSuccessAt };
}

export function toApiAgent(row: AgentRow): TAgent {
  return {
    id: row.id,
    name: row.name,
    templateId: row.templateId,
    status: row.status,
    lastRun: row.lastRunAt?.toISOString() ?? null,
    performance: row.performance,
    createdAt: row.createdAt.toISOString(),
    nextRunAt: row.nextRunAt?.toISOString() ?? null,
    config: answeredConfig(row.config),
    health: toHealth(row.health),
  };
}

/** A config as answered: a frequency stored under a former value ('1min') reads as its entry. */
function answeredConfig(config: TAgentConfig): TAgentConfig {
  const frequency = currentFrequency(config.schedule.frequency);
  return frequency === undefined || frequency === config.schedule.frequency ? config : { ...config, schedule: { ...config.schedule, frequency } };
}

/** A run as stored: the client parses its result with ZRunResult (ZRunHistory). */
export function toApiRun(row: AgentRunRow): TRunHistoryAnswer[number] {
  return {
    id: row.id,
    status: row.status,
    scheduledFor: row.scheduledFor?.toISOString() ?? null,
    startTime: row.startTime?.toISOString() ?? null,
    endTime: row.endTime?.toISOString() ?? null,
    result: row.result ?? null,
    error: row.error,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * SPEC's client sends the user's `googleId` with every agent call. Identity comes from the
 * session only (DESIGN section 4): a googleId is merely checked, and one naming anybody else is
 * refused rather than ignored, so a client bug cannot look like it acted for another user.
 * Local accounts have no googleId, so any non-empty one differs. SPEC sends '' for missing.
 */
export function assertOwnGoogleId({ user, googleIds }: Caller): void {
  for (const googleId of googleIds) {
    if (googleId === undefined || googleId === '') continue;
    if (user.provider === 'google' && googleId === user.subject) continue;
    throw new AppError('FORBIDDEN', 'googleId does not match the signed-in user');
  }
}

/** Untouched default messages follow their threshold's type and value (decision 0026), whatever
 * the client sent: a saved message never contradicts the saved numbers. */
const withFollowedMessages = (config: TAgentConfig): TAgentConfig => ({
  ...config,
  notifications: { ...config.notifications, thresholds: config.notifications.thresholds.map(followDefaultMessage) },
});

export function createAgentsService({ db, jobs, foreignChannels, briefProblems, now = () => new Date(), events = NO_EVENTS, invalidations = NO_CACHE }: AgentsServiceDeps) {
  // Every change to an agent or its runs, by any module (the runtime's too), drops its owner's
  // list (migration 0015).
  const lists = createOwnerCache({ invalidations, topic: 'agents', maxChars: LIST_CACHE_CHARS });

  /** The owner's other tabs show the change live (docs/decisions/0042). */
  const changed = (ownerId: string, agentId: string) => events.publish(ownerId, { type: 'agent', agentId });

  /**
   * What a configuration may notify through, beyond its shape: only its owner's channels, and an
   * "Explain alerts" assistant and model the owner may use. Each refusal is on its field. Read
   * from the configuration as sent, each part parsed on its own, so these are found beside any
   * other refused field.
   */
  async function notifyProblems(user: Caller['user'], config: unknown): Promise<ErrorDetail[]> {
    const notifications = fieldOf(config, 'notifications');
    const brief = ZAlertBriefChoice.optional().safeParse(fieldOf(notifications, 'brief'));
    const problems = brief.success ? (briefProblems?.(user, brief.data) ?? []) : [];
    const channels = ZNotifications.shape.channels.safeParse(fieldOf(notifications, 'channels'));
    const ids = channels.success ? (channels.data ?? []) : [];
    if (ids.length > 0 && foreignChannels) {
      const foreign = new Set(await foreignChannels(user.id, ids));
      problems.push(...ids.flatMap((id, i) => (foreign.has(id) ? [{ path: `config.notifications.channels.${i}`, message: CHANNEL_CHOICE_RULE }] : [])));
    }
    return problems;
  }

  /** Every rule a configuration as sent must meet beyond its shape: its template's, its schedule's, its notifications'. */
  const configProblems = async (user: Caller['user'], templateId: unknown, config: unknown): Promise<ErrorDetail[]> =>
    typeof templateId === 'string' ? [...validateAgentConfig(templateId, config), ...(await notifyProblems(user, config))] : [];

  /** The caller's agent, or 404 whether it is missing or someone else's (no existence leak). */
  async function owned(caller: Caller, id: string): Promise<AgentRow> {
    assertOwnGoogleId(caller);
    const row = await findAgent(db, id, caller.user.id);
    if (!row) throw new AppError('NOT_FOUND', NOT_FOUND);
    return row;
  }

  /** The caller's agents, newest first, with their health, as the API's JSON: the console reads
   * it again at every change. */
  async function listJson(caller: Caller): Promise<string> {
    assertOwnGoogleId(caller);
    const ownerId = caller.user.id;
    return lists.get(ownerId, 'all', async () => {
      const agents: TAgent[] = (await listAgents(db, ownerId)).map(toApiAgent);
      return JSON.stringify(agents);
    });
  }

  async function get(caller: Caller, id: string): Promise<TAgent> {
    return toApiAgent(await owned(caller, id));
  }

  /** The agent's latest runs; only those that succeeded or failed when `status` says (the assistants' list_runs). */
  async function runs(caller: Caller, id: string, limit: number, status?: 'success' | 'failure'): Promise<TRunHistoryAnswer> {
    const agent = await owned(caller, id);
    return (await listRuns(db, agent.id, limit, status)).map(toApiRun);
  }

  /** One run of the caller's agent; 404 'Run not found' when the agent has no such run, and
   * 'Agent not found' when the agent is not the caller's (the assistants' get_run). */
  async function run(caller: Caller, id: string, runId: number): Promise<TRunHistoryAnswer[number]> {
    const agent = await owned(caller, id);
    const row = await findRun(db, agent.id, runId);
    if (!row) throw new AppError('NOT_FOUND', 'Run not found');
    return toApiRun(row);
  }

  /** SPEC: a new agent starts paused. The body is checked whole: every refused field at once. */
  async function create(caller: Caller, body: unknown): Promise<TAgent> {
    const input = await checkAgentRequest(ZCreateAgent, body, () => configProblems(caller.user, fieldOf(body, 'templateId'), fieldOf(body, 'config')));
    assertOwnGoogleId({ ...caller, googleIds: [...caller.googleIds, input.googleId] });
    const status: TAgentStatus = 'paused';
    const row = await insertAgent(db, { ownerId: caller.user.id, templateId: input.templateId, name: input.name, status, config: withFollowedMessages(input.config), nextRunAt: null });
    changed(caller.user.id, row.id);
    return toApiAgent(row);
  }

  /**
   * Pause, resume, rename, or replace the whole config (SPEC sends it whole). Everything is
   * checked before the single write, every refused field at once, so a refused request changes
   * nothing. The next run is cleared on pause and computed afresh on resume or on a config change
   * while running.
   */
  async function update(caller: Caller, id: string, body: unknown): Promise<TAgent> {
    // Read first for its template (only the caller's own agents are read); a refused body is
    // refused (400) whether or not it exists, as before.
    const current = await findAgent(db, id, caller.user.id);
    const config = fieldOf(body, 'config');
    const patch = await checkAgentRequest(ZUpdateAgent, body, () => (current && config !== undefined ? configProblems(caller.user, current.templateId, config) : []));
    assertOwnGoogleId({ ...caller, googleIds: [...caller.googleIds, patch.googleId] });
    if (!current) throw new AppError('NOT_FOUND', NOT_FOUND);

    const status = patch.status ?? current.status;
    const nextConfig = patch.config ? withFollowedMessages(patch.config) : current.config;
    const reschedule = current.status !== 'running' || patch.config !== undefined || current.nextRunAt === null;
    const nextRunAt = status === 'paused' ? null : reschedule ? computeNextRunAt(nextConfig.schedule, now()) : current.nextRunAt;

    const row = await updateAgent(db, current.id, caller.user.id, {
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.config !== undefined ? { config: nextConfig } : {}),
      status,
      nextRunAt,
    });
    if (!row) throw new AppError('NOT_FOUND', NOT_FOUND); // deleted meanwhile
    // A condition taken out of the config takes its trigger state with it (docs/decisions/0073).
    if (patch.config !== undefined) await deleteStatesExcept(db, current.id, (nextConfig.conditions ?? []).map((c) => c.id));
    if (status === 'paused' || reschedule) await dropQueuedSlots(db, current.id);
    changed(caller.user.id, row.id);
    return toApiAgent(row);
  }

  async function remove(caller: Caller, id: string): Promise<void> {
    assertOwnGoogleId(caller);
    if (!(await deleteAgent(db, id, caller.user.id))) throw new AppError('NOT_FOUND', NOT_FOUND);
    changed(caller.user.id, id);
  }

  /**
   * Run now, whatever the status (an admin may test a paused agent): a queued run with no
   * schedule slot (so it never collides with a scheduled one) and its job, in one transaction.
   * One at a time per agent: while one is queued or running, another is refused (409), so
   * pressing Run now repeatedly cannot multiply the calls to the market providers.
   */
  async function runNow(caller: Caller, id: string): Promise<{ runId: number }> {
    const agent = await owned(caller, id);
    const run = await db.transaction(async (tx) => {
      const queued = await queueRunNow(tx, agent.id);
      if (queued && queued !== 'busy') await jobs.enqueueRuns(tx, [{ id: queued.id }]);
      return queued;
    });
    if (run === 'busy') throw new AppError('CONFLICT', RUN_IN_PROGRESS);
    if (!run) throw new AppError('NOT_FOUND', NOT_FOUND); // deleted meanwhile
    events.publish(caller.user.id, { type: 'run', action: 'queued', agentId: agent.id, runId: run.id });
    return { runId: run.id };
  }

  return { listJson, get, runs, run, create, update, remove, runNow };
}

export type AgentsService = ReturnType<typeof createAgentsService>;
