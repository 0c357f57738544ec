import { and, asc, count, desc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { agents, alertStates, notifications, users } from '../../db/schema.ts';

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
 * Locks the agent's row until the transaction ends and reads its cap on notifications per hour
 * (null: not set). Every alert decision of the agent takes this lock first, so two runs count
 * its notifications one after the other and cannot both pass the cap. 'No key update' leaves
 * the row free for the foreign-key checks of alert_states and notifications rows (key share),
 * so only alert decisions and edits of the agent wait for each other. Undefined: no such agent.
 */
export async function lockAgentCap(db: Tx, agentId: string): Promise<{ maxPerHour: number | null } | undefined> {
  const [row] = await db
    .select({ maxPerHour: sql<number | null>`(${agents.config} -> 'notifications' ->> 'maxPerHour')::int` })
    .from(agents)
    .where(eq(agents.id, agentId))
    .for('no key update');
  return row;
}

/** When the agent's alert notifications created after `since` were created, oldest first. */
export async function alertTimesSince(db: Tx, agentId: string, since: Date): Promise<Date[]> {
  const rows = await db
    .select({ createdAt: notifications.createdAt })
    .from(notifications)
    .where(and(eq(notifications.agentId, agentId), eq(notifications.kind, 'alerts'), gt(notifications.createdAt, since)))
    .orderBy(asc(notifications.createdAt));
  return rows.map((r) => r.createdAt);
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
