import { and, asc, desc, eq, getTableColumns, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { agents, alertStates, conditionControls, conditionStates, notifications, users } from '../../db/schema.ts';

export type NotificationRow = typeof notifications.$inferSelect;
export type NewNotification = Pick<
  typeof notifications.$inferInsert,
  | 'userId'
  | 'agentId'
  | 'runId'
  | 'kind'
  | 'agentName'
  | 'market'
  | 'thresholdType'
  | 'alerts'
  | 'conditions'
  | 'title'
  | 'message'
  | 'emailStatus'
  | 'readAt'
  | 'createdAt'
  | 'heldUntil'
  | 'briefStatus'
  | 'briefProvider'
  | 'briefModel'
  | 'deliveriesReleasedAt'
>;
export type EmailStatus = NotificationRow['emailStatus'];
export type AlertKey = { agentId: string; market: string; thresholdType: string };

/** Any connection or transaction: repo functions run inside the caller's transaction. */
export type Tx = Pick<Db, 'select' | 'insert' | 'update' | 'delete' | 'execute'>;

// Every read and write of a user's notifications is scoped by user: another user's
// notification is indistinguishable from a missing one.
const owned = (id: string, userId: string) => and(eq(notifications.id, id), eq(notifications.userId, userId));
const alertKey = (key: AlertKey) =>
  and(eq(alertStates.agentId, key.agentId), eq(alertStates.market, key.market), eq(alertStates.thresholdType, key.thresholdType));

/**
 * Marks a condition as firing. True only for the caller that inserted the row: a concurrent
 * transaction inserting the same key waits for this one and then finds the conflict.
 */
export async function startAlert(db: Tx, key: AlertKey, since: Date): Promise<boolean> {
  const inserted = await db.insert(alertStates).values({ ...key, since }).onConflictDoNothing().returning({ agentId: alertStates.agentId });
  return inserted.length > 0;
}

/** The condition cleared: its next firing alerts again. True when it was marked until now. */
export async function clearAlert(db: Tx, key: AlertKey): Promise<boolean> {
  const deleted = await db.delete(alertStates).where(alertKey(key)).returning({ agentId: alertStates.agentId });
  return deleted.length > 0;
}

/**
 * Locks the agents' rows until the transaction ends and reads each one's cap on notifications
 * per hour (null: not set), in one statement, in id order (every caller locks agents in that
 * order, so two batches cannot deadlock). Every alert decision of an agent takes this lock
 * first, so two runs count its notifications one after the other and cannot both pass the cap.
 * 'No key update' leaves the rows free for the foreign-key checks of alert_states and
 * notifications rows (key share), so only alert decisions and edits of an agent wait for each
 * other. Agents that no longer exist are absent.
 */
export async function lockAgentCaps(db: Tx, agentIds: readonly string[]): Promise<Map<string, { maxPerHour: number | null }>> {
  if (agentIds.length === 0) return new Map();
  const rows = await db
    .select({ id: agents.id, maxPerHour: sql<number | null>`(${agents.config} -> 'notifications' ->> 'maxPerHour')::int` })
    .from(agents)
    .where(inArray(agents.id, [...agentIds]))
    .orderBy(asc(agents.id))
    .for('no key update');
  return new Map(rows.map((r) => [r.id, { maxPerHour: r.maxPerHour }]));
}

/**
 * The keys as one JSON parameter, each row with its place: a batch's keys cost one parameter, not
 * three each (building and planning a statement of hundreds of parameters cost more than running it).
 */
const keyRows = (keys: readonly AlertKey[]) => sql`(
  select (e.value->>'agentId')::uuid as agent_id, e.value->>'market' as market, e.value->>'thresholdType' as threshold_type, e.n
  from jsonb_array_elements(${JSON.stringify(keys.map((k) => ({ agentId: k.agentId, market: k.market, thresholdType: k.thresholdType })))}::jsonb) with ordinality as e(value, n))`;

/** clearAlert for many keys: their rows locked in key order (whoever takes them takes them in it), then deleted. */
export async function clearAlerts(db: Tx, keys: readonly AlertKey[]): Promise<void> {
  if (keys.length === 0) return;
  await db.execute(sql`
    select 1 from ${alertStates} s join ${keyRows(keys)} k using (agent_id, market, threshold_type)
    order by s.agent_id, s.market collate "C", s.threshold_type collate "C"
    for update of s`);
  await db.execute(sql`
    delete from ${alertStates} s using ${keyRows(keys)} k
    where (s.agent_id, s.market, s.threshold_type) = (k.agent_id, k.market, k.threshold_type)`);
}

/**
 * startAlert for many keys in one statement, inserted in key order: the keys this call marked
 * (a concurrent transaction inserting one of them waits for this one and then finds the conflict).
 */
export async function startAlerts(db: Tx, keys: readonly AlertKey[], since: Date): Promise<AlertKey[]> {
  if (keys.length === 0) return [];
  const sorted = [...keys].sort((a, b) => compareKeys(a, b));
  const rows = rowsOf<{ agent_id: string; market: string; threshold_type: string }>(
    await db.execute(sql`
      insert into ${alertStates} (agent_id, market, threshold_type, since)
      select k.agent_id, k.market, k.threshold_type, ${since.toISOString()}::timestamptz from ${keyRows(sorted)} k order by k.n
      on conflict do nothing
      returning agent_id, market, threshold_type`),
  );
  return rows.map((r) => ({ agentId: r.agent_id, market: r.market, thresholdType: r.threshold_type }));
}

/** Byte order (the database's "C" collation for ASCII keys), never the locale's. */
function compareKeys(a: AlertKey, b: AlertKey): number {
  for (const field of ['agentId', 'market', 'thresholdType'] as const) {
    if (a[field] !== b[field]) return a[field] < b[field] ? -1 : 1;
  }
  return 0;
}

/** When each agent's alert notifications created after `since` were created, oldest first, in one statement. */
export async function alertTimesSinceMany(db: Tx, agentIds: readonly string[], since: Date): Promise<Map<string, Date[]>> {
  const times = new Map<string, Date[]>(agentIds.map((id) => [id, []]));
  if (agentIds.length === 0) return times;
  const rows = await db
    .select({ agentId: notifications.agentId, createdAt: notifications.createdAt })
    .from(notifications)
    .where(and(inArray(notifications.agentId, [...agentIds]), eq(notifications.kind, 'alerts'), gt(notifications.createdAt, since)))
    .orderBy(asc(notifications.createdAt));
  for (const row of rows) times.get(row.agentId!)?.push(row.createdAt);
  return times;
}

/**
 * The storm notice of the held period that ends at `heldUntil`, if one was made. The end names
 * the period: it stays the same while alerts are held (only older notifications leave the
 * window), and the next period, after an alert passed, ends later.
 */
export async function findStormNotice(db: Tx, agentId: string, heldUntil: Date): Promise<NotificationRow | undefined> {
  const [row] = await db
    .select()
    .from(notifications)
    .where(and(eq(notifications.agentId, agentId), eq(notifications.kind, 'alert-storm'), eq(notifications.heldUntil, heldUntil)))
    .limit(1);
  return row;
}

/** Rewrites a storm notice's summary as more alerts are held back; its read state stays. */
export async function updateStormNotice(db: Tx, id: string, values: Pick<NewNotification, 'market' | 'thresholdType' | 'alerts' | 'conditions' | 'title' | 'message'>): Promise<NotificationRow | undefined> {
  const [row] = await db.update(notifications).set(values).where(eq(notifications.id, id)).returning();
  return row;
}

/** The user's IANA time zone (Settings), or null. */
export async function findUserTimeZone(db: Tx, userId: string): Promise<string | null> {
  const [row] = await db.select({ timeZone: users.timeZone }).from(users).where(eq(users.id, userId));
  return row?.timeZone ?? null;
}

export async function insertNotification(db: Tx, values: NewNotification): Promise<NotificationRow> {
  const [row] = await db.insert(notifications).values(values).returning();
  return row!;
}

/**
 * Several notifications in one statement, their values as one JSON parameter (hundreds of rows of
 * fourteen columns cost more to build as parameters than to insert). Every column a new
 * notification may set is listed; the others (a brief's text, its follow-up) start at their defaults.
 */
export async function insertNotifications(db: Tx, values: readonly NewNotification[]): Promise<NotificationRow[]> {
  if (values.length === 0) return [];
  const rows = values.map((v) => ({
    user_id: v.userId,
    agent_id: v.agentId ?? null,
    run_id: v.runId ?? null,
    kind: v.kind ?? 'alerts',
    agent_name: v.agentName,
    market: v.market ?? null,
    threshold_type: v.thresholdType ?? null,
    alerts: v.alerts ?? [],
    conditions: v.conditions ?? [],
    title: v.title,
    message: v.message,
    email_status: v.emailStatus ?? 'none',
    read_at: v.readAt?.toISOString() ?? null,
    created_at: (v.createdAt ?? new Date()).toISOString(),
    held_until: v.heldUntil?.toISOString() ?? null,
    brief_status: v.briefStatus ?? null,
    brief_provider: v.briefProvider ?? null,
    brief_model: v.briefModel ?? null,
    deliveries_released_at: v.deliveriesReleasedAt?.toISOString() ?? null,
  }));
  const inserted = rowsOf<Record<string, unknown>>(
    await db.execute(sql`
      insert into ${notifications} (user_id, agent_id, run_id, kind, agent_name, market, threshold_type, alerts, conditions, title, message, email_status, read_at, created_at, held_until,
        brief_status, brief_provider, brief_model, deliveries_released_at)
      select v.user_id, v.agent_id, v.run_id, v.kind, v.agent_name, v.market, v.threshold_type, v.alerts, v.conditions, v.title, v.message, v.email_status, v.read_at, v.created_at, v.held_until,
        v.brief_status, v.brief_provider, v.brief_model, v.deliveries_released_at
      from jsonb_array_elements(${JSON.stringify(rows)}::jsonb) with ordinality as e(value, n),
        jsonb_to_record(e.value) as v(user_id uuid, agent_id uuid, run_id bigint, kind text, agent_name text, market text, threshold_type text,
          alerts jsonb, conditions jsonb, title text, message text, email_status text, read_at timestamptz, created_at timestamptz, held_until timestamptz,
          brief_status text, brief_provider text, brief_model text, deliveries_released_at timestamptz)
      order by e.n
      returning *`),
  );
  return inserted.map(fromDriver);
}

const notificationColumns = Object.entries(getTableColumns(notifications));

/** A notifications row as a raw statement answers it (column names, driver values), as drizzle's select would. */
function fromDriver(raw: Record<string, unknown>): NotificationRow {
  return Object.fromEntries(notificationColumns.map(([key, column]) => [key, raw[column.name] === null ? null : column.mapFromDriverValue(raw[column.name])])) as NotificationRow;
}

/** Rows of a raw `execute()`: node-postgres answers a result with `rows`, PGlite's driver too. */
function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/**
 * The user's newest notifications, newest first (the (user_id, created_at desc) index), and how many of all theirs are unread, in one statement (two
 * were two turns for PGlite's one connection, docs/decisions/0059). The count is computed once
 * (an uncorrelated subquery, on the partial unread index) and carried on every row; a user
 * without rows has no notifications, so none unread.
 */
export async function listNotificationsWithUnread(db: Tx, userId: string, limit: number): Promise<{ rows: NotificationRow[]; unread: number }> {
  const rows = await db
    .select({
      notification: notifications,
      unread: sql`(select count(*) from ${notifications} u where u.user_id = ${userId} and u.read_at is null)`.mapWith(Number),
    })
    .from(notifications)
    .where(eq(notifications.userId, userId))
    .orderBy(desc(notifications.createdAt), desc(notifications.id))
    .limit(limit);
  return { rows: rows.map((r) => r.notification), unread: rows[0]?.unread ?? 0 };
}

/** Marks one notification read, keeping the first read time; undefined when it is not the user's. */
export async function markNotificationRead(db: Tx, userId: string, id: string, at: Date): Promise<NotificationRow | undefined> {
  const [row] = await db
    .update(notifications)
    .set({ readAt: sql`coalesce(${notifications.readAt}, ${at.toISOString()}::timestamptz)` })
    .where(owned(id, userId))
    .returning();
  return row;
}

export async function markAllNotificationsRead(db: Tx, userId: string, at: Date): Promise<void> {
  await db
    .update(notifications)
    .set({ readAt: at })
    .where(and(eq(notifications.userId, userId), isNull(notifications.readAt)));
}

export type EmailTarget = NotificationRow & { alertEmail: string | null; signInEmail: string; timeZone: string | null };

/** A notification with where its email goes and the time zone to write its time in. */
export async function findEmailTarget(db: Tx, id: string): Promise<EmailTarget | undefined> {
  const [row] = await db
    .select({ notification: notifications, alertEmail: users.alertEmail, signInEmail: users.email, timeZone: users.timeZone })
    .from(notifications)
    .innerJoin(users, eq(users.id, notifications.userId))
    .where(eq(notifications.id, id));
  return row ? { ...row.notification, alertEmail: row.alertEmail, signInEmail: row.signInEmail, timeZone: row.timeZone } : undefined;
}

/**
 * Records how an email went. `attempted` counts one more delivery attempt; a queueing failure
 * is not an attempt.
 */
export async function recordEmailOutcome(
  db: Tx,
  id: string,
  outcome: { status: EmailStatus; error: string | null; attempted: boolean },
): Promise<NotificationRow | undefined> {
  const [row] = await db
    .update(notifications)
    .set({
      emailStatus: outcome.status,
      emailError: outcome.error,
      ...(outcome.attempted ? { emailAttempts: sql`${notifications.emailAttempts} + 1` } : {}),
    })
    .where(eq(notifications.id, id))
    .returning();
  return row;
}

/** One notification, whoever's it is (for the jobs that work on it). */
export async function findNotification(db: Tx, id: string): Promise<NotificationRow | undefined> {
  const [row] = await db.select().from(notifications).where(eq(notifications.id, id));
  return row;
}

/**
 * Records how a pending brief ended, once (a job run again finds it settled and changes nothing).
 * `brief_follows` says whether the deliveries had been released before: the UPDATE reads
 * `deliveries_released_at` on the row as it is when it writes (a concurrent release commits
 * first or waits), so exactly one of the two sees the other (docs/decisions/0044).
 */
export async function settleBrief(
  db: Tx,
  id: string,
  outcome: { status: 'ready'; text: string } | { status: 'failed'; error: string },
): Promise<NotificationRow | undefined> {
  const [row] = await db
    .update(notifications)
    .set({
      briefStatus: outcome.status,
      briefText: outcome.status === 'ready' ? outcome.text : null,
      briefError: outcome.status === 'failed' ? outcome.error : null,
      briefFollows: sql`${notifications.deliveriesReleasedAt} is not null`,
    })
    .where(and(eq(notifications.id, id), eq(notifications.briefStatus, 'pending')))
    .returning();
  return row;
}

/** Lets the notification's email and channel deliveries go, once: only the caller that sets the
 * time gets the row back. */
export async function releaseDeliveries(db: Tx, id: string, at: Date): Promise<NotificationRow | undefined> {
  const [row] = await db
    .update(notifications)
    .set({ deliveriesReleasedAt: at })
    .where(and(eq(notifications.id, id), isNull(notifications.deliveriesReleasedAt)))
    .returning();
  return row;
}

/** How the brief's follow-up email went. */
export async function recordBriefEmailOutcome(db: Tx, id: string, status: EmailStatus): Promise<void> {
  await db.update(notifications).set({ briefEmailStatus: status }).where(eq(notifications.id, id));
}

/** What a run leaves of a condition on a market after it notified (or was held). */
export type ConditionStateWrite = { agentId: string; conditionId: string; market: string; lastNotifiedAt: Date; lastNotifiedCandle: number; disarm: boolean };

/** A (agent, condition, market) state's key. */
export const conditionStateKey = (w: Pick<ConditionStateWrite, 'agentId' | 'conditionId' | 'market'>) => `${w.agentId}|${w.conditionId}|${w.market}`;

/**
 * Records what a batch's runs notified (in the alerts' transaction, under the agents' locks): each
 * (condition, market)'s last notification, and 'only once' conditions disarmed. One statement
 * each, rows in key order. Answers the keys it wrote: a key already notified for the same candle
 * (another run of the agent, a run-now beside a scheduled one, decided it first) is not written,
 * and that run does not notify it again, as an alert's state is marked by one run only.
 */
export async function writeConditionStates(tx: Tx, writes: readonly ConditionStateWrite[]): Promise<Set<string>> {
  if (writes.length === 0) return new Set();
  // One row per key: a later write of the same key (an agent's two markets cannot share one) wins.
  const byKey = new Map(writes.map((w) => [conditionStateKey(w), w]));
  const sorted = [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, w]) => w);
  const rows = JSON.stringify(sorted.map((w) => ({ agent_id: w.agentId, condition_id: w.conditionId, market: w.market, at: w.lastNotifiedAt.toISOString(), candle: w.lastNotifiedCandle })));
  const stored = await tx.execute(sql`
    insert into ${conditionStates} (agent_id, condition_id, market, last_notified_at, last_notified_candle)
    select v.agent_id, v.condition_id, v.market, v.at, v.candle
    from jsonb_to_recordset(${rows}::jsonb) as v(agent_id uuid, condition_id uuid, market text, at timestamptz, candle bigint)
    on conflict (agent_id, condition_id, market) do update set last_notified_at = excluded.last_notified_at, last_notified_candle = excluded.last_notified_candle
    where ${conditionStates.lastNotifiedCandle} is distinct from excluded.last_notified_candle
    returning agent_id, condition_id, market`);
  const written = new Set(rowsOf<{ agent_id: string; condition_id: string; market: string }>(stored).map((r) => conditionStateKey({ agentId: r.agent_id, conditionId: r.condition_id, market: r.market })));
  const disarmed = [...new Map(sorted.filter((w) => w.disarm && written.has(conditionStateKey(w))).map((w) => [`${w.agentId}|${w.conditionId}`, { agent_id: w.agentId, condition_id: w.conditionId }])).values()];
  if (disarmed.length === 0) return written;
  await tx.execute(sql`
    insert into ${conditionControls} (agent_id, condition_id, disarmed)
    select v.agent_id, v.condition_id, true from jsonb_to_recordset(${JSON.stringify(disarmed)}::jsonb) as v(agent_id uuid, condition_id uuid)
    on conflict (agent_id, condition_id) do update set disarmed = true`);
  return written;
}
