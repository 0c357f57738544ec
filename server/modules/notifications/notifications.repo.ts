import { and, asc, count, desc, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { agents, alertStates, notifications, users } from '../../db/schema.ts';

export type NotificationRow = typeof notifications.$inferSelect;
export type NewNotification = Pick<
  typeof notifications.$inferInsert,
  'userId' | 'agentId' | 'runId' | 'kind' | 'agentName' | 'market' | 'thresholdType' | 'alerts' | 'title' | 'message' | 'emailStatus' | 'readAt' | 'createdAt' | 'heldUntil'
>;
export type EmailStatus = NotificationRow['emailStatus'];
export type AlertKey = { agentId: string; market: string; thresholdType: string };

/** Any connection or transaction: repo functions run inside the caller's transaction. */
export type Tx = Pick<Db, 'select' | 'insert' | 'update' | 'delete'>;

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

/** The keys as one tuple list, for `(agent_id, market, threshold_type) in (...)`. */
const keyList = (keys: readonly AlertKey[]) =>
  sql`(${alertStates.agentId}, ${alertStates.market}, ${alertStates.thresholdType}) in (${sql.join(
    keys.map((k) => sql`(${k.agentId}::uuid, ${k.market}, ${k.thresholdType})`),
    sql`, `,
  )})`;

/** Every key in one fixed order (the rows' locks are taken in it, whoever takes them). */
const keyOrder = [alertStates.agentId, sql`${alertStates.market} collate "C"`, sql`${alertStates.thresholdType} collate "C"`];

/** clearAlert for many keys: their rows locked in key order, then deleted. */
export async function clearAlerts(db: Tx, keys: readonly AlertKey[]): Promise<void> {
  if (keys.length === 0) return;
  await db.select({ agentId: alertStates.agentId }).from(alertStates).where(keyList(keys)).orderBy(...keyOrder).for('update');
  await db.delete(alertStates).where(keyList(keys));
}

/**
 * startAlert for many keys in one statement, inserted in key order: the keys this call marked
 * (a concurrent transaction inserting one of them waits for this one and then finds the conflict).
 */
export async function startAlerts(db: Tx, keys: readonly AlertKey[], since: Date): Promise<AlertKey[]> {
  if (keys.length === 0) return [];
  const sorted = [...keys].sort((a, b) => compareKeys(a, b));
  return db
    .insert(alertStates)
    .values(sorted.map((k) => ({ ...k, since })))
    .onConflictDoNothing()
    .returning({ agentId: alertStates.agentId, market: alertStates.market, thresholdType: alertStates.thresholdType });
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
export async function updateStormNotice(db: Tx, id: string, values: Pick<NewNotification, 'market' | 'thresholdType' | 'alerts' | 'title' | 'message'>): Promise<NotificationRow | undefined> {
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

/** Several notifications in one statement, answered in the order given. */
export async function insertNotifications(db: Tx, values: readonly NewNotification[]): Promise<NotificationRow[]> {
  if (values.length === 0) return [];
  return db.insert(notifications).values([...values]).returning();
}

/** The user's latest notifications, newest first (the (user_id, created_at desc) index). */
export async function listNotifications(db: Tx, userId: string, limit: number): Promise<NotificationRow[]> {
  return db
    .select()
    .from(notifications)
    .where(eq(notifications.userId, userId))
    .orderBy(desc(notifications.createdAt), desc(notifications.id))
    .limit(limit);
}

/** Unread notifications of the user, all of them (the partial unread index). */
export async function countUnread(db: Tx, userId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(notifications)
    .where(and(eq(notifications.userId, userId), isNull(notifications.readAt)));
  return row?.n ?? 0;
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
