import { eq } from 'drizzle-orm';
import type { TAgent } from '../../../contracts/agents.ts';
import type { TConditionState, TSnoozeRequest } from '../../../contracts/conditions.ts';
import { zoneOr } from '../../../contracts/time-zone.ts';
import type { Db } from '../../db/client.ts';
import { users } from '../../db/schema.ts';
import { AppError } from '../../lib/errors.ts';
import { NO_EVENTS, type EventPublisher } from '../../lib/live-events.ts';
import type { Caller } from './agents.service.ts';
import { computeNextRunAt } from './schedule.ts';
import { findConditionStates, rearm, setSnooze } from './condition-states.repo.ts';

/** The longest snooze: a month ahead is a setting, not a snooze. */
export const SNOOZE_MAX_DAYS = 30;
const HOUR_MS = 60 * 60_000;
export const SNOOZE_PAST = 'Snooze until must be in the future';
export const SNOOZE_TOO_FAR = `Snooze until must be at most ${SNOOZE_MAX_DAYS} days ahead`;
const CONDITION_NOT_FOUND = 'Condition not found';

export type ConditionStatesDeps = {
  db: Db;
  /** The caller's agent, or 404 (missing or another's): the agents service's own check. */
  ownedAgent: (caller: Caller, id: string) => Promise<TAgent>;
  now?: () => Date;
  events?: EventPublisher;
};

/**
 * The next 09:00 on the wall clock of `timeZone` after `now` ("Until tomorrow 09:00" in the bell;
 * before 09:00 it is this morning's): the schedule's own daily slot, DST included.
 */
export function nextNineOClock(now: Date, timeZone: string): Date {
  const daily = { frequency: 'daily' as const, activeHours: { start: '09:00', end: '09:00' }, daysActive: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const, timeZone };
  return computeNextRunAt(daily, now)!;
}

/**
 * Snooze and re-arm of an owner's conditions (issue 30 item 2, docs/decisions/0073), and their
 * state for the details. Only the agent's owner, identified by the session, reaches them; a
 * condition must be in the agent's current config.
 */
export function createConditionStatesService({ db, ownedAgent, now = () => new Date(), events = NO_EVENTS }: ConditionStatesDeps) {
  async function conditionOf(caller: Caller, agentId: string, conditionId: string): Promise<TAgent> {
    const agent = await ownedAgent(caller, agentId);
    if (!(agent.config.conditions ?? []).some((c) => c.id === conditionId)) throw new AppError('NOT_FOUND', CONDITION_NOT_FOUND);
    return agent;
  }

  const changed = (caller: Caller, agentId: string) => events.publish(caller.user.id, { type: 'agent', agentId });

  async function ownerZone(userId: string): Promise<string> {
    const [row] = await db.select({ timeZone: users.timeZone }).from(users).where(eq(users.id, userId));
    return zoneOr(row?.timeZone);
  }

  /** When a snooze asked at `at` ends; a chosen time in the past or beyond SNOOZE_MAX_DAYS is a 400 on `until`. */
  async function snoozeEnd(caller: Caller, request: TSnoozeRequest, at: Date): Promise<Date> {
    if ('preset' in request) {
      if (request.preset === '1h') return new Date(at.getTime() + HOUR_MS);
      if (request.preset === '4h') return new Date(at.getTime() + 4 * HOUR_MS);
      return nextNineOClock(at, await ownerZone(caller.user.id));
    }
    const until = new Date(request.until);
    if (until.getTime() <= at.getTime()) throw new AppError('BAD_REQUEST', 'Invalid request', [{ path: 'until', message: SNOOZE_PAST }]);
    if (until.getTime() > at.getTime() + SNOOZE_MAX_DAYS * 24 * HOUR_MS) throw new AppError('BAD_REQUEST', 'Invalid request', [{ path: 'until', message: SNOOZE_TOO_FAR }]);
    return until;
  }

  async function snooze(caller: Caller, agentId: string, conditionId: string, request: TSnoozeRequest): Promise<TConditionState> {
    await conditionOf(caller, agentId, conditionId);
    const until = await snoozeEnd(caller, request, now());
    await setSnooze(db, agentId, conditionId, until);
    changed(caller, agentId);
    return stateOf(agentId, conditionId);
  }

  async function unsnooze(caller: Caller, agentId: string, conditionId: string): Promise<TConditionState> {
    await conditionOf(caller, agentId, conditionId);
    await setSnooze(db, agentId, conditionId, null);
    changed(caller, agentId);
    return stateOf(agentId, conditionId);
  }

  async function rearmCondition(caller: Caller, agentId: string, conditionId: string): Promise<TConditionState> {
    await conditionOf(caller, agentId, conditionId);
    await rearm(db, agentId, conditionId);
    changed(caller, agentId);
    return stateOf(agentId, conditionId);
  }

  /** Every condition of the agent's config with its state (armed, not snoozed, never notified when nothing is stored). */
  async function list(caller: Caller, agentId: string): Promise<TConditionState[]> {
    const agent = await ownedAgent(caller, agentId);
    const rows = await findConditionStates(db, agentId, (agent.config.conditions ?? []).map((c) => c.id));
    return rows.map((row) => toApiState(row, now()));
  }

  async function stateOf(agentId: string, conditionId: string): Promise<TConditionState> {
    const [row] = await findConditionStates(db, agentId, [conditionId]);
    return toApiState(row!, now());
  }

  return { snooze, unsnooze, rearm: rearmCondition, list };
}

/** A snooze that has ended reads as none. */
function toApiState(row: Awaited<ReturnType<typeof findConditionStates>>[number], at: Date): TConditionState {
  return {
    conditionId: row.conditionId,
    disarmed: row.disarmed,
    snoozedUntil: row.snoozedUntil && row.snoozedUntil.getTime() > at.getTime() ? row.snoozedUntil.toISOString() : null,
    lastNotifiedAt: row.lastNotifiedAt?.toISOString() ?? null,
  };
}

export type ConditionStatesService = ReturnType<typeof createConditionStatesService>;
