import type { FastifyBaseLogger as Logger } from 'fastify';
import { thresholdLabel } from '../../../contracts/alert-thresholds.ts';
import { BRIEF_FAILURES, briefAttribution, type TAlertBrief, type TNotification, type TNotificationList } from '../../../contracts/notifications.ts';
import type { TAlertBriefChoice } from '../../../contracts/agents.ts';
import { CHAT_PROVIDERS, type TChatProvider } from '../../../contracts/chat.ts';
import type { Db } from '../../db/client.ts';
import { EmailDeliveryError, type Mailer } from '../../integrations/email/mailer.ts';
import { AppError } from '../../lib/errors.ts';
import { alertEmail, briefEmail, type EmailBrief } from './alert-email.ts';
import { briefFacts, briefPrompt, cleanBriefText, type BriefFacts, type RecordedMarket } from './alert-brief.ts';
import { CAP_WINDOW_MS, resumesAt, stormMessage, stormTitle } from './alert-storm.ts';
import { MAX_PER_HOUR_DEFAULT } from '../../../contracts/agents.ts';
import type { TRunAlert } from '../../../contracts/market.ts';
import type { TChannelDelivery, TDeliveryEvent } from '../../../contracts/channels.ts';
import {
  alertTimesSinceMany,
  clearAlert,
  clearAlerts,
  findStormNotice,
  findUserTimeZone,
  lockAgentCaps,
  startAlerts,
  insertNotifications,
  updateStormNotice,
  findEmailTarget,
  findNotification,
  recordBriefEmailOutcome,
  releaseDeliveries,
  settleBrief,
  insertNotification,
  listNotificationsWithUnread,
  markAllNotificationsRead,
  markNotificationRead,
  recordEmailOutcome,
  startAlert,
  writeConditionStates,
  conditionStateKey,
  type ConditionStateWrite,
  type NewNotification,
  type Tx,
  type NotificationRow,
} from './notifications.repo.ts';
import { FAILING_AFTER_RUNS, failingTitle, recoveredTitle } from '../../../contracts/agent-health.ts';
import { FOREIGN_KEY_VIOLATION, sqlState } from '../../lib/db-errors.ts';
import type { TNotifiedCondition } from '../../../contracts/condition-outcomes.ts';
import { NO_EVENTS, type EventPublisher } from '../../lib/live-events.ts';
import { NO_CACHE, type Invalidations } from '../../lib/invalidations.ts';
import { createOwnerCache } from '../../lib/owner-cache.ts';
import { channelDeliveries } from '../../lib/telemetry/metrics.ts';

/** One threshold the run evaluated for one market; `message` already holds its numbers. */
export type AlertCondition = { market: string; thresholdType: string; firing: boolean; value: number; limit: number; message: string };

type Channels = {
  /** The agent's owner: who is told. */
  userId: string;
  agentId: string;
  agentName: string;
  /** The run it is about; null when there is none to point at. */
  runId: number | null;
  emailEnabled: boolean;
  inAppEnabled: boolean;
  /** The owner's delivery channels the agent chose (docs/decisions/0043); none when absent. */
  channelIds?: readonly string[];
};

export type ApplyAlertsInput = Channels & {
  /** Every condition the run evaluated, firing or not: a non-firing one clears its state. */
  conditions: AlertCondition[];
  /** The agent's "Explain alerts" choice (docs/decisions/0044); absent or null: no brief. */
  brief?: TAlertBriefChoice | null;
  /** The run's recorded market results, by market label: the brief's numbers. */
  recorded?: readonly RecordedMarket[];
  /** The owner's conditions the run decided to notify (issue 30): in the notification beside the alerts. */
  conditionsMet?: readonly TNotifiedCondition[];
  /** Their trigger state after it (docs/decisions/0073), stored in the alerts' transaction. */
  conditionStates?: readonly ConditionStateWrite[];
};

/**
 * What became of one run's alerts: the notifications made, whether the hourly cap held them back,
 * and the conditions not notified after all because another run of the agent notified them for
 * the same candle first ('repeat').
 */
export type AppliedAlerts = { created: TNotification[]; held: boolean; repeated: Array<{ conditionId: string; market: string }> };

export type ApplyHealthInput = Channels & {
  /** The run failed (with its one-line reason and the failed runs in a row up to it), or null: it succeeded. */
  failing: { reason: string; failedRuns: number } | null;
};

export type EmailAttempt = { number: number; last: boolean };

export type NotificationsServiceDeps = {
  db: Db;
  mailer: Mailer;
  /** Hands the notification's email to whatever delivers it (a job queue with retries), which
   * then calls deliverEmail. Called after the notification is committed. */
  enqueueEmail: (notificationId: string) => Promise<void>;
  logger: Logger;
  /** The site's origin, for the console link in emails. */
  publicUrl: string;
  /** Delivery channels: each new notification's deliveries are scheduled after its commit, and
   * shown with it. Without it (a test's own service), notifications have none. */
  channels?: ChannelDeliveries;
  now?: () => Date;
  /** Tells the owner's open consoles (docs/decisions/0042). */
  events?: EventPublisher;
  /** Briefs of alerts; without it (a test's own service), agents' brief choices are ignored. */
  briefs?: AlertBriefs;
  /** Where the database announces owners' changes (PGlite), each user's list is kept in memory
   * until their next change (docs/decisions/0059); absent: read every time. */
  invalidations?: Invalidations;
};

export type ChannelDeliveries = {
  /** Records a delivery per chosen channel and queues them, or with `hold` only records them
   * (a brief is awaited): `release` then queues them. */
  schedule(notificationId: string, userId: string, channelIds: readonly string[], options?: { hold?: boolean }): Promise<void>;
  release(notificationId: string): Promise<void>;
  /** A brief written after the deliveries went out follows them to the same channels. */
  followUp(notificationId: string): Promise<void>;
  deliveriesFor(notificationIds: readonly string[]): Promise<Map<string, TChannelDelivery[]>>;
};

/** What writes a brief: the chat module's writer (role, key, budget, usage, the call). */
export type BriefWriter = {
  write(request: { userId: string; provider: TChatProvider; model: string; system: string; prompt: string; notificationId: string }): Promise<{ ok: true; text: string } | { ok: false; error: string }>;
};

/** "Explain alerts" (docs/decisions/0044): the writer, the grace, and the jobs (a queue with
 * its workers, or the app's in-process stand-ins) that call writeBrief, releaseDeliveries and
 * deliverBriefEmail. */
export type AlertBriefs = {
  writer: BriefWriter;
  /** How long the email and channels wait for the brief (ALERT_BRIEF_WAIT_SECONDS). */
  waitSeconds: number;
  enqueueBrief(notificationId: string, facts: BriefFacts): Promise<void>;
  /** Calls releaseDeliveries at `at`. */
  enqueueRelease(notificationId: string, at: Date): Promise<void>;
  /** The follow-up email of a brief written after the alert's email was released. */
  enqueueBriefEmail(notificationId: string): Promise<void>;
};

/** Whether the owner hears of it at all: in the bell, by email, or on a channel. */
const isAlerting = (input: Channels) => input.emailEnabled || input.inAppEnabled || (input.channelIds?.length ?? 0) > 0;

const NOT_FOUND = 'Notification not found';
/** The notification lists kept in memory, in characters of JSON (a page of 20 is ~10,000). */
const LIST_CACHE_CHARS = 4_000_000;
const MAX_ERROR_CHARS = 500;

/**
 * The health condition's key in alert_states: like a threshold, it is 'firing' (the owner was
 * told the agent is failing) until a run succeeds. No threshold type or market is empty.
 */
const failingKey = (agentId: string) => ({ agentId, market: '', thresholdType: 'agent-failing' });

/**
 * 'Scanner: Price change alert on AAPL', 'Scanner: 2 alerts on AAPL', 'Scanner: 3 alerts on 2
 * markets'. 'Alert' as in the wizard and Run History: thresholds the user set, not the template's
 * signals. The title is also the email's subject.
 */
function alertsTitle(agentName: string, fired: readonly AlertCondition[], met: readonly TNotifiedCondition[] = []): string {
  const markets = new Set([...fired.map((c) => c.market), ...met.map((c) => c.market)]);
  const [first] = fired;
  const count = fired.length + met.length;
  if (count === 1 && first) return `${agentName}: ${thresholdLabel(first.thresholdType)} alert on ${first.market}`;
  if (count === 1) return `${agentName}: ${met[0]!.title} on ${met[0]!.market}`;
  if (markets.size === 1) return `${agentName}: ${count} alerts on ${[...markets][0]!}`;
  return `${agentName}: ${count} alerts on ${markets.size} markets`;
}

/** The one value all items share, else null. */
const only = (values: readonly string[]) => (new Set(values).size === 1 ? values[0]! : null);

/** The brief as stored, or null when the notification has none. */
function briefOf(row: NotificationRow): TAlertBrief | null {
  if (row.briefStatus === null) return null;
  return { status: row.briefStatus, text: row.briefText, provider: row.briefProvider ?? '', model: row.briefModel ?? '', error: row.briefError };
}

/**
 * The brief as the notification's own email and deliveries carry it: as it was when they were
 * released. One that settled after (it follows them) was still pending then, whenever the
 * delivery happens to be sent, so it is not told twice.
 */
export function briefAsReleased(row: NotificationRow): TAlertBrief | null {
  const brief = briefOf(row);
  return brief && row.briefFollows ? { ...brief, status: 'pending', text: null, error: null } : brief;
}

/** The brief a channel delivery carries (docs/decisions/0044): the notification's own as it was
 * released, the follow-up's as written. */
export function deliveryBrief(row: NotificationRow, event: TDeliveryEvent): TAlertBrief | null {
  return event === 'notification' ? briefAsReleased(row) : briefOf(row);
}

/** A written brief for the emails: its text and who wrote it. */
const emailBrief = (brief: TAlertBrief | null): EmailBrief | null => (brief?.status === 'ready' && brief.text ? { text: brief.text, attribution: briefAttribution(brief) } : null);

export function toApiNotification(row: NotificationRow, deliveries: TChannelDelivery[] = []): TNotification {
  return {
    id: row.id,
    kind: row.kind,
    agentId: row.agentId,
    agentName: row.agentName,
    runId: row.runId,
    market: row.market,
    thresholdType: row.thresholdType,
    alerts: row.alerts,
    conditions: row.conditions,
    title: row.title,
    message: row.message,
    createdAt: row.createdAt.toISOString(),
    readAt: row.readAt?.toISOString() ?? null,
    emailStatus: row.emailStatus,
    heldUntil: row.heldUntil?.toISOString() ?? null,
    deliveries,
    brief: briefOf(row),
  };
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, MAX_ERROR_CHARS);

/** Conditions (sorted by market, then type) in runs of one alert_states key. */
function byKey(sorted: readonly AlertCondition[]): AlertCondition[][] {
  const groups: AlertCondition[][] = [];
  for (const condition of sorted) {
    const last = groups.at(-1)?.[0];
    if (last && last.market === condition.market && last.thresholdType === condition.thresholdType) groups.at(-1)!.push(condition);
    else groups.push([condition]);
  }
  return groups;
}

export function createNotificationsService({ db, mailer, enqueueEmail, logger, publicUrl, channels, now = () => new Date(), events = NO_EVENTS, briefs, invalidations = NO_CACHE }: NotificationsServiceDeps) {
  // Every change to a notification or its deliveries, by any module (the workers' too), drops
  // its owner's lists (migration 0015).
  const lists = createOwnerCache({ invalidations, topic: 'notifications', maxChars: LIST_CACHE_CHARS });

  /**
   * Turns one run's evaluated conditions into at most one notification listing every alert that
   * started firing (docs/decisions/0029). Each (agent, market, threshold) alerts once until it
   * clears (DESIGN section 7): a firing condition counts only if this call inserted its
   * alert_states row, so concurrent runs of one agent cannot both alert; a non-firing one
   * deletes the row, so its next firing alerts again. All in one transaction, with rows locked
   * in key order so two runs cannot deadlock each other.
   *
   * Channels: with email on, the notification starts 'pending' and its email is queued after
   * the commit (a rolled-back alert never sends). With in-app off but email on, the row still
   * exists (it carries the email's status and shows in the bell's history) but is created read,
   * so the bell never counts it as new. With both off, nothing is created and the condition is
   * not marked as alerted, so turning alerts on while it still fires alerts at once.
   *
   * Email trouble never fails this call: a queueing failure marks the email 'failed'.
   *
   * Caps (docs/decisions/0041): with the agent's alert notifications of the last hour at its
   * `maxPerHour`, the alerts are held back instead, under one 'alert-storm' notice per held
   * period. Counted under the agent's row lock, in this transaction.
   */
  async function applyAlerts(input: ApplyAlertsInput): Promise<AppliedAlerts> {
    return (await applyAlertsMany([input]))[0]!;
  }

  /**
   * applyAlerts for the runs of a batch (docs/decisions/0052), answered in the order given: the
   * same decisions, taken for every agent of the batch in one transaction of a few statements
   * (lock the agents, clear, mark, count the caps, insert the notifications) instead of one
   * transaction of several statements per agent. Two runs of one agent are decided one after
   * the other, as two calls would be. Should the transaction fail (an agent deleted while its
   * run ran, or anything else), the runs are decided one by one, so one agent's trouble never
   * loses another's alerts; a lone run's failure is thrown as applyAlerts always did.
   */
  async function applyAlertsMany(inputs: readonly ApplyAlertsInput[]): Promise<AppliedAlerts[]> {
    const results: AppliedAlerts[] = inputs.map(() => ({ created: [], held: false, repeated: [] }));
    // Rounds of distinct agents: an agent's second run in the batch goes in the next round.
    const rounds: number[][] = [];
    const seen = new Map<string, number>();
    inputs.forEach((input, index) => {
      const round = seen.get(input.agentId) ?? 0;
      seen.set(input.agentId, round + 1);
      (rounds[round] ??= []).push(index);
    });
    for (const round of rounds) {
      const batch = round.map((index) => inputs[index]!);
      try {
        const created = await decideAlerts(batch);
        round.forEach((index, k) => (results[index] = created[k]!));
      } catch (err) {
        if (round.length === 1) {
          // The agent (or its run) was deleted while it ran: there is nobody left to tell.
          if (sqlState(err) !== FOREIGN_KEY_VIOLATION) throw err;
          logger.info({ agentId: batch[0]!.agentId, runId: batch[0]!.runId }, 'notification skipped: the agent or run no longer exists');
          continue;
        }
        logger.warn({ err, runs: batch.map((b) => b.runId) }, 'could not store a batch of alerts at once; storing them run by run');
        for (const index of round) {
          try {
            results[index] = (await applyAlertsMany([inputs[index]!]))[0]!;
          } catch (one) {
            logger.error({ err: one, agentId: inputs[index]!.agentId, runId: inputs[index]!.runId }, 'could not record alerts');
          }
        }
      }
    }
    return results;
  }

  /** The alert decisions of runs of distinct agents, in one transaction; their new notifications delivered after it. */
  async function decideAlerts(inputs: readonly ApplyAlertsInput[]): Promise<AppliedAlerts[]> {
    const at = now();
    const since = new Date(at.getTime() - CAP_WINDOW_MS);
    // One state per (market, type): two thresholds of one type (5% and 8% price change) decide
    // it together, so the one that does not fire cannot clear the one that does.
    const plans = inputs.map((input) => {
      const conditions = [...input.conditions].sort((a, b) => (a.market === b.market ? compare(a.thresholdType, b.thresholdType) : compare(a.market, b.market)));
      const groups = byKey(conditions).map((group) => ({
        key: { agentId: input.agentId, market: group[0]!.market, thresholdType: group[0]!.thresholdType },
        firing: group.filter((c) => c.firing),
      }));
      return { input, alerting: isAlerting(input), groups };
    });
    const keyOf = (k: { agentId: string; market: string; thresholdType: string }) => JSON.stringify([k.agentId, k.market, k.thresholdType]);

    const rows = await db.transaction(async (tx) => {
      // First, before any alert_states row: every decision takes the locks in the same order
      // (agents by id, then states by key), so concurrent batches queue, never deadlock.
      const caps = await lockAgentCaps(
        tx,
        plans.filter((p) => p.alerting).map((p) => p.input.agentId),
      );
      // The conditions' trigger state, under the agents' locks, so it and the notification it
      // allowed are stored together or not at all. Nobody told (every channel off): nothing stored.
      const written = await writeConditionStates(
        tx,
        plans.flatMap((p) => (p.alerting ? (p.input.conditionStates ?? []) : [])),
      );
      await clearAlerts(
        tx,
        plans.flatMap((p) => p.groups.filter((g) => g.firing.length === 0).map((g) => g.key)),
      );
      const marked = new Set(
        (
          await startAlerts(
            tx,
            plans.flatMap((p) => (p.alerting ? p.groups.filter((g) => g.firing.length > 0).map((g) => g.key) : [])),
            at,
          )
        ).map(keyOf),
      );
      const firedOf = plans.map((p) => (p.alerting ? p.groups.filter((g) => g.firing.length > 0 && marked.has(keyOf(g.key))).flatMap((g) => g.firing) : []));
      const metOf = plans.map((p) => (p.alerting ? (p.input.conditionsMet ?? []).filter((c) => written.has(conditionStateKey({ agentId: p.input.agentId, ...c }))) : []));
      const repeatedOf = plans.map((p) => (p.alerting ? (p.input.conditionsMet ?? []).filter((c) => !written.has(conditionStateKey({ agentId: p.input.agentId, ...c }))) : []));
      const times = await alertTimesSinceMany(
        tx,
        plans.flatMap((p, i) => (firedOf[i]!.length + metOf[i]!.length > 0 ? [p.input.agentId] : [])),
        since,
      );
      const drafts: Array<{ index: number; draft: Draft }> = [];
      const held = new Set<number>();
      for (const [i, p] of plans.entries()) {
        const fired = firedOf[i]!;
        const met = metOf[i]!;
        if (fired.length === 0 && met.length === 0) continue;
        const alerts = fired.map((c) => ({ market: c.market, threshold: c.thresholdType, value: c.value, limit: c.limit, message: c.message }));
        const maxPerHour = caps.get(p.input.agentId)?.maxPerHour ?? MAX_PER_HOUR_DEFAULT;
        const resumes = resumesAt((times.get(p.input.agentId) ?? []).map((time) => time.getTime()), maxPerHour);
        // Only an 'alerts' notification is explained: not a storm notice, not a health notice.
        const brief = briefs && p.input.brief ? { briefStatus: 'pending' as const, briefProvider: p.input.brief.provider, briefModel: p.input.brief.model } : {};
        if (resumes !== null) held.add(i);
        const draft =
          resumes !== null
            ? await holdBack(tx, p.input, alerts, met, { at, resumes: new Date(resumes), maxPerHour })
            : ({
                kind: 'alerts',
                market: only([...fired.map((c) => c.market), ...met.map((c) => c.market)]),
                // A condition is no threshold type: with one, the notification is about no single type.
                thresholdType: met.length > 0 ? null : only(fired.map((c) => c.thresholdType)),
                alerts,
                conditions: met,
                title: alertsTitle(p.input.agentName, fired, met),
                message: [...fired.map((c) => c.message), ...met.map((c) => c.text)].join('\n'),
                ...brief,
              } satisfies Draft);
        if (draft) drafts.push({ index: i, draft });
      }
      const inserted = await insertNotifications(
        tx,
        drafts.map(({ index, draft }) => newNotification(inputs[index]!, draft, at)),
      );
      // One notification per agent at most here (the agents of a round are distinct).
      const byAgent = new Map(inserted.map((row) => [row.agentId, row]));
      return { created: drafts.map(({ index }) => ({ index, row: byAgent.get(inputs[index]!.agentId)! })), held, repeatedOf };
    });

    const repeated = (i: number) => rows.repeatedOf[i]!.map(({ conditionId, market }) => ({ conditionId, market }));
    const results: AppliedAlerts[] = inputs.map((_, i) => ({ created: [], held: rows.held.has(i), repeated: repeated(i) }));
    for (const { index, row } of rows.created) results[index] = { created: [await delivered(inputs[index]!, row)], held: rows.held.has(index), repeated: repeated(index) };
    return results;
  }

  /**
   * The agent is at its cap (docs/decisions/0041): the alerts are not notified. Their
   * alert_states rows stay marked, so a condition still firing when the cap lifts does not
   * alert late. The held period's one storm notice is drafted by its first held alert (and
   * emailed once); later ones in the period only add themselves to its summary.
   */
  async function holdBack(tx: Tx, input: ApplyAlertsInput, held: TRunAlert[], heldConditions: TNotifiedCondition[], cap: { at: Date; resumes: Date; maxPerHour: number }): Promise<Draft | null> {
    const timeZone = await findUserTimeZone(tx, input.userId);
    const notice = await findStormNotice(tx, input.agentId, cap.resumes);
    const all = [...(notice?.alerts ?? []), ...held];
    const conditions = [...(notice?.conditions ?? []), ...heldConditions];
    const summary = { agentName: input.agentName, held: all, heldConditions: conditions, since: notice?.createdAt ?? cap.at, resumes: cap.resumes, maxPerHour: cap.maxPerHour, timeZone };
    const draft = {
      market: only([...all.map((a) => a.market), ...conditions.map((c) => c.market)]),
      thresholdType: conditions.length > 0 ? null : only(all.map((a) => a.threshold)),
      alerts: all,
      conditions,
      title: stormTitle(summary),
      message: stormMessage(summary),
    };
    logger.info({ agentId: input.agentId, runId: input.runId, held: held.length + heldConditions.length, resumes: cap.resumes }, 'alerts held back: the agent is at its notifications per hour');
    if (!notice) return { kind: 'alert-storm', heldUntil: cap.resumes, ...draft };
    await updateStormNotice(tx, notice.id, draft);
    return null;
  }

  /**
   * The agent's health after a run (docs/decisions/0028): after FAILING_AFTER_RUNS failed runs in
   * a row the owner is told once that it is failing, and once when a run succeeds again; nothing
   * while it keeps failing. The 'failing' mark is an alert_states row, so, as for alerts, only
   * the run that inserts it notifies, and with both channels off nothing is marked.
   */
  async function applyHealth(input: ApplyHealthInput): Promise<{ created: TNotification[] }> {
    const alerting = isAlerting(input);
    const key = failingKey(input.agentId);
    const { failing } = input;
    return record(input, async (tx, at) => {
      if (failing) {
        if (failing.failedRuns < FAILING_AFTER_RUNS || !alerting || !(await startAlert(tx, key, at))) return null;
        return {
          kind: 'failing',
          title: failingTitle(input.agentName, failing.reason),
          message: `Its last ${failing.failedRuns} runs failed. The latest: ${failing.reason}`,
        };
      }
      if (!(await clearAlert(tx, key)) || !alerting) return null;
      return { kind: 'recovered', title: recoveredTitle(input.agentName), message: 'Its latest run succeeded. Run History has the failed runs.' };
    });
  }

  type Draft = Pick<NewNotification, 'kind' | 'title' | 'message'> &
    Partial<Pick<NewNotification, 'market' | 'thresholdType' | 'alerts' | 'conditions' | 'heldUntil' | 'briefStatus' | 'briefProvider' | 'briefModel'>>;

  /**
   * Runs `decide` in a transaction, stores the notification it drafts, then queues its email and
   * channel deliveries; with a brief to write, queues that and holds them back until it settles
   * or the grace ends (docs/decisions/0044). The bell has the notification at once either way.
   */
  async function record(input: Channels & Pick<ApplyAlertsInput, 'recorded'>, decide: (tx: Tx, at: Date) => Promise<Draft | null>): Promise<{ created: TNotification[] }> {
    const at = now();
    let created: NotificationRow | null;
    try {
      created = await db.transaction(async (tx) => {
        const draft = await decide(tx, at);
        if (!draft) return null;
        return insertNotification(tx, newNotification(input, draft, at));
      });
    } catch (err) {
      // The agent (or its run) was deleted while it ran: there is nobody left to tell.
      if (sqlState(err) === FOREIGN_KEY_VIOLATION) {
        logger.info({ agentId: input.agentId, runId: input.runId }, 'notification skipped: the agent or run no longer exists');
        return { created: [] };
      }
      throw err;
    }
    if (!created) return { created: [] };
    return { created: [await delivered(input, created)] };
  }

  /** The row of a drafted notification: in the bell unless in-app is off, with its email pending when email is on. */
  function newNotification(input: Channels, draft: Draft, at: Date): NewNotification {
    return {
      ...draft,
      userId: input.userId,
      agentId: input.agentId,
      runId: input.runId,
      agentName: input.agentName,
      emailStatus: input.emailEnabled ? 'pending' : 'none',
      readAt: input.inAppEnabled ? null : at,
      createdAt: at,
      // Held back until the brief settles (docs/decisions/0044); released at once otherwise.
      deliveriesReleasedAt: draft.briefStatus === 'pending' ? null : at,
    };
  }

  /** After the commit: the owner's consoles told, the email queued, the channels' deliveries scheduled. */
  async function delivered(input: Channels & Pick<ApplyAlertsInput, 'recorded'>, created: NotificationRow): Promise<TNotification> {
    events.publish(input.userId, { type: 'notification', action: 'created', notificationId: created.id, agentId: input.agentId });
    if (created.briefStatus === 'pending' && briefs) {
      const deliveries = await scheduleDeliveries(created, input.channelIds ?? [], true);
      const settled = await queueBrief(created, briefFacts(created.agentName, created.alerts, input.recorded ?? [], created.conditions), briefs);
      return toApiNotification(settled ?? created, deliveries);
    }
    const stored = created.emailStatus === 'pending' ? await queueEmail(created) : created;
    return toApiNotification(stored, await scheduleDeliveries(stored, input.channelIds ?? [], false));
  }

  /** Schedules the channels' deliveries (held for a brief, or queued); trouble there never fails the notification. */
  async function scheduleDeliveries(row: NotificationRow, channelIds: readonly string[], hold: boolean): Promise<TChannelDelivery[]> {
    if (!channels || channelIds.length === 0) return [];
    try {
      await channels.schedule(row.id, row.userId, channelIds, { hold });
      return (await channels.deliveriesFor([row.id])).get(row.id) ?? [];
    } catch (err) {
      logger.error({ err, notificationId: row.id }, 'could not schedule channel deliveries');
      return [];
    }
  }

  /**
   * Queues the brief, and the release of the held deliveries at the grace's end (none without a
   * grace: they go at once, and the brief follows). A brief that cannot be queued fails at once,
   * which releases them; returns the row then.
   */
  async function queueBrief(row: NotificationRow, facts: BriefFacts, jobs: AlertBriefs): Promise<NotificationRow | undefined> {
    try {
      await jobs.enqueueBrief(row.id, facts);
    } catch (err) {
      logger.error({ err, notificationId: row.id }, 'could not queue an alert brief');
      return settle(row.id, { status: 'failed', error: BRIEF_FAILURES['queue-failed'] });
    }
    if (jobs.waitSeconds === 0) {
      await release(row.id);
      return undefined;
    }
    try {
      await jobs.enqueueRelease(row.id, new Date(now().getTime() + jobs.waitSeconds * 1000));
    } catch (err) {
      // The brief's settling releases them; without a grace, at once.
      logger.error({ err, notificationId: row.id }, 'could not queue the release of an alert; it goes when its brief settles');
    }
    return undefined;
  }

  /**
   * The brief job (docs/decisions/0044): asks the owner's chosen assistant for the brief of the
   * notification's alerts, from `facts`, and records how it ended. Its first attempt only calls
   * the assistant; a later one (the job's worker died mid-call) records it as interrupted rather
   * than paying twice. Then the held deliveries go, carrying the brief, unless the grace already
   * let them go: then a written brief follows them. Never throws for the brief's own trouble.
   */
  async function writeBrief(notificationId: string, facts: BriefFacts, attempt: { number: number }): Promise<void> {
    const row = await findNotification(db, notificationId);
    if (!row || row.briefStatus !== 'pending' || !briefs) return;
    const provider = row.briefProvider as TChatProvider;
    let outcome: { status: 'ready'; text: string } | { status: 'failed'; error: string };
    if (attempt.number > 1) outcome = { status: 'failed', error: BRIEF_FAILURES.interrupted };
    else if (!CHAT_PROVIDERS.includes(provider) || row.briefModel === null) outcome = { status: 'failed', error: BRIEF_FAILURES['model-unavailable'] };
    else {
      try {
        const written = await briefs.writer.write({ userId: row.userId, provider, model: row.briefModel, notificationId, ...briefPrompt(facts) });
        const text = written.ok ? cleanBriefText(written.text) : '';
        outcome = written.ok ? (text === '' ? { status: 'failed', error: BRIEF_FAILURES.empty } : { status: 'ready', text }) : { status: 'failed', error: written.error };
      } catch (err) {
        logger.error({ err, notificationId }, 'alert brief failed');
        outcome = { status: 'failed', error: BRIEF_FAILURES.internal };
      }
    }
    await settle(notificationId, outcome);
  }

  /** Records the brief's end once, tells the owner's consoles, then releases or follows up. */
  async function settle(notificationId: string, outcome: Parameters<typeof settleBrief>[2]): Promise<NotificationRow | undefined> {
    const settled = await settleBrief(db, notificationId, outcome);
    if (!settled) return undefined;
    logger.info({ notificationId, status: settled.briefStatus, follows: settled.briefFollows }, 'alert brief settled');
    events.publish(settled.userId, { type: 'notification', action: 'updated', notificationId, agentId: settled.agentId });
    if (!settled.briefFollows) await release(notificationId);
    else if (settled.briefStatus === 'ready') await followUp(settled);
    return settled;
  }

  /** Trouble releasing is logged: the notification stands, and the release job retries. */
  async function release(notificationId: string): Promise<void> {
    try {
      await releaseHeld(notificationId);
    } catch (err) {
      logger.error({ err, notificationId }, 'could not release the deliveries of an alert');
    }
  }

  /**
   * Lets the notification's held email and channel deliveries go, once: whichever comes first,
   * its brief settling or its grace ending (the release job), gets the row; the other finds it
   * released. Throws on database trouble, so the release job is retried.
   */
  async function releaseHeld(notificationId: string): Promise<void> {
    const row = await releaseDeliveries(db, notificationId, now());
    if (!row) return;
    if (row.emailStatus === 'pending') await queueEmail(row);
    if (channels) {
      try {
        await channels.release(notificationId);
      } catch (err) {
        logger.error({ err, notificationId }, 'could not queue the held channel deliveries');
      }
    }
  }

  /** A brief written after its alert went out follows it: by email (with email on) and to each channel. */
  async function followUp(row: NotificationRow): Promise<void> {
    if (row.emailStatus !== 'none' && briefs) {
      try {
        await recordBriefEmailOutcome(db, row.id, 'pending');
        await briefs.enqueueBriefEmail(row.id);
      } catch (err) {
        logger.error({ err, notificationId: row.id }, 'could not queue the email of a brief');
        await recordBriefEmailOutcome(db, row.id, 'failed').catch(() => {});
      }
    }
    if (channels) {
      try {
        await channels.followUp(row.id);
      } catch (err) {
        logger.error({ err, notificationId: row.id }, 'could not queue the channel follow-ups of a brief');
      }
    }
  }

  /** Each notification as answered, with its deliveries. */
  async function present(rows: NotificationRow[]): Promise<TNotification[]> {
    const deliveries = channels ? await channels.deliveriesFor(rows.map((r) => r.id)) : new Map<string, TChannelDelivery[]>();
    return rows.map((row) => toApiNotification(row, deliveries.get(row.id) ?? []));
  }

  /** Queues the email; if that fails, the notification records it instead of the caller failing. */
  async function queueEmail(row: NotificationRow): Promise<NotificationRow> {
    try {
      await enqueueEmail(row.id);
      return row;
    } catch (err) {
      const error = `Could not queue the email: ${errorText(err)}`;
      logger.error({ err, notificationId: row.id }, 'could not queue an alert email');
      try {
        return (await recordEmailOutcome(db, row.id, { status: 'failed', error, attempted: false })) ?? row;
      } catch (recordErr) {
        logger.error({ err: recordErr, notificationId: row.id }, 'could not record that an alert email failed to queue');
        return { ...row, emailStatus: 'failed', emailError: error };
      }
    }
  }

  /**
   * One delivery attempt of a notification's email, to the user's alert email or else their
   * sign-in email. A failure is recorded and rethrown so the job queue retries with backoff,
   * except on the last attempt or when the server refused the message for good (a 5xx reply:
   * sending it again gets the same answer): then the email is 'failed' and this resolves.
   */
  async function deliverEmail(notificationId: string, attempt: EmailAttempt): Promise<void> {
    const target = await findEmailTarget(db, notificationId);
    if (!target) {
      logger.info({ notificationId }, 'alert email skipped: the notification no longer exists');
      return;
    }
    // Already delivered (a job run again after a crash), or no email was asked for.
    if (target.emailStatus === 'sent' || target.emailStatus === 'logged' || target.emailStatus === 'none') return;

    const email = alertEmail({
      to: target.alertEmail ?? target.signInEmail,
      agentName: target.agentName,
      market: target.market,
      title: target.title,
      message: target.message,
      createdAt: target.createdAt,
      timeZone: target.timeZone,
      publicUrl,
      about: target,
      brief: emailBrief(briefAsReleased(target)),
    });
    try {
      const { delivered } = await mailer.send(email);
      await recordEmailOutcome(db, notificationId, { status: delivered === 'smtp' ? 'sent' : 'logged', error: null, attempted: true });
      channelDeliveries.inc({ channel: 'email', status: delivered === 'smtp' ? 'sent' : 'logged' });
    } catch (err) {
      const giveUp = attempt.last || (err instanceof EmailDeliveryError && err.permanent);
      const error = errorText(err);
      await recordEmailOutcome(db, notificationId, { status: giveUp ? 'failed' : 'pending', error, attempted: true });
      channelDeliveries.inc({ channel: 'email', status: giveUp ? 'failed' : 'retry' });
      // The mailer's errors carry no credentials; only their text is logged.
      logger.warn({ notificationId, attempt: attempt.number, giveUp, error }, giveUp ? 'alert email failed; giving up' : 'alert email failed; will retry');
      if (!giveUp) throw err;
    }
  }

  /**
   * One attempt of a brief's follow-up email (a brief written after the alert's email went).
   * Retried like the alert's; its outcome is recorded as the brief's email status.
   */
  async function deliverBriefEmail(notificationId: string, attempt: EmailAttempt): Promise<void> {
    const target = await findEmailTarget(db, notificationId);
    const brief = target ? emailBrief(briefOf(target)) : null;
    if (!target || !brief || target.briefEmailStatus !== 'pending') return;
    const email = briefEmail({
      to: target.alertEmail ?? target.signInEmail,
      agentName: target.agentName,
      market: target.market,
      title: target.title,
      createdAt: target.createdAt,
      timeZone: target.timeZone,
      publicUrl,
      about: target,
      brief,
    });
    try {
      const { delivered } = await mailer.send(email);
      await recordBriefEmailOutcome(db, notificationId, delivered === 'smtp' ? 'sent' : 'logged');
    } catch (err) {
      const giveUp = attempt.last || (err instanceof EmailDeliveryError && err.permanent);
      if (giveUp) await recordBriefEmailOutcome(db, notificationId, 'failed');
      logger.warn({ notificationId, attempt: attempt.number, giveUp, error: errorText(err) }, giveUp ? 'brief email failed; giving up' : 'brief email failed; will retry');
      if (!giveUp) throw err;
    }
  }

  /** The user's latest notifications, newest first, and how many of all theirs are unread, as the
   * API's JSON: the bell reads it again at every live event. */
  async function listJson(userId: string, limit: number): Promise<string> {
    return lists.get(userId, String(limit), async () => {
      const { rows, unread } = await listNotificationsWithUnread(db, userId, limit);
      const list: TNotificationList = { notifications: await present(rows), unread };
      return JSON.stringify(list);
    });
  }

  /** Marks the user's notification read (again is fine); another user's is 404 like a missing one. */
  async function markRead(userId: string, id: string): Promise<TNotification> {
    const row = await markNotificationRead(db, userId, id, now());
    if (!row) throw new AppError('NOT_FOUND', NOT_FOUND);
    events.publish(userId, { type: 'notification', action: 'read', notificationId: row.id, agentId: row.agentId });
    return (await present([row]))[0]!;
  }

  async function markAllRead(userId: string): Promise<void> {
    await markAllNotificationsRead(db, userId, now());
    events.publish(userId, { type: 'notification', action: 'read', notificationId: null, agentId: null });
  }

  return { applyAlerts, applyAlertsMany, applyHealth, deliverEmail, deliverBriefEmail, writeBrief, releaseDeliveries: releaseHeld, listJson, markRead, markAllRead };
}

export type NotificationsService = ReturnType<typeof createNotificationsService>;

/** A fixed order, not the locale's: every process must take the row locks in the same order. */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
