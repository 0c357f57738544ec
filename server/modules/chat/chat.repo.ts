import { and, asc, count, eq, gte, lte, or, sql, sum } from 'drizzle-orm';
import type { TRole } from '../../../contracts/users.ts';
import type { Db } from '../../db/client.ts';
import { chatReservations, chatUsage, users } from '../../db/schema.ts';

export type NewChatUsage = Omit<typeof chatUsage.$inferInsert, 'id'>;

/** Any connection or transaction: repo functions run inside the caller's transaction. */
export type Tx = Pick<Db, 'select' | 'insert' | 'update' | 'delete' | 'execute'>;

export async function insertChatUsage(db: Tx, row: NewChatUsage): Promise<void> {
  await db.insert(chatUsage).values(row);
}

/** Any int4 shared by all processes: the first key of the per-user budget locks. */
const BUDGET_LOCK_CLASS = 72_403;

/**
 * Serialises budget reservations of one user until the transaction ends, across processes
 * (two users whose ids hash alike just wait for each other briefly).
 */
export async function lockUserBudget(tx: Tx, userId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${BUDGET_LOCK_CLASS}::int, hashtext(${userId}::text))`);
}

export type BudgetTotals = { spentTokens: number; spentImages: number; reservedTokens: number; reservedImages: number };

/**
 * What a user spent since `since` (chat_usage, by the (user_id, created_at) index) and what
 * their calls in flight hold (reservations not expired at `now`), in one statement.
 */
export async function budgetTotals(tx: Tx, userId: string, since: Date, now: Date): Promise<BudgetTotals> {
  const spent = (expr: ReturnType<typeof sql>) =>
    sql`(select coalesce(sum(${expr}), 0) from ${chatUsage} where ${chatUsage.userId} = ${userId} and ${chatUsage.createdAt} >= ${since.toISOString()}::timestamptz)`.mapWith(Number);
  const held = (column: typeof chatReservations.tokens | typeof chatReservations.images) =>
    sql`(select coalesce(sum(${column}), 0) from ${chatReservations} where ${chatReservations.userId} = ${userId} and ${chatReservations.expiresAt} > ${now.toISOString()}::timestamptz)`.mapWith(Number);
  const [row] = await tx
    .select({
      spentTokens: spent(sql`${chatUsage.inputTokens} + ${chatUsage.outputTokens}`),
      spentImages: spent(sql`${chatUsage.images}`),
      reservedTokens: held(chatReservations.tokens),
      reservedImages: held(chatReservations.images),
    })
    .from(users)
    .where(eq(users.id, userId));
  return row ?? { spentTokens: 0, spentImages: 0, reservedTokens: 0, reservedImages: 0 };
}

export async function insertReservation(tx: Tx, row: { userId: string; tokens: number; images: number; expiresAt: Date }): Promise<string> {
  const [inserted] = await tx.insert(chatReservations).values(row).returning({ id: chatReservations.id });
  return inserted!.id;
}

export async function extendReservation(db: Tx, id: string, expiresAt: Date): Promise<void> {
  await db.update(chatReservations).set({ expiresAt }).where(eq(chatReservations.id, id));
}

/** What a reservation holds now (0 when it is gone: settled, or expired and swept). */
export async function reservedTokensOf(tx: Tx, id: string): Promise<number> {
  const [row] = await tx.select({ tokens: chatReservations.tokens }).from(chatReservations).where(eq(chatReservations.id, id));
  return row?.tokens ?? 0;
}

/** Makes a reservation hold `tokens` from now on; false when it is gone. */
export async function resizeReservation(tx: Tx, id: string, tokens: number, expiresAt: Date): Promise<boolean> {
  const rows = await tx.update(chatReservations).set({ tokens, expiresAt }).where(eq(chatReservations.id, id)).returning({ id: chatReservations.id });
  return rows.length > 0;
}

/** Deletes a settled or released reservation, and the user's reservations left by dead processes. */
export async function deleteReservation(tx: Tx, id: string, userId: string, now: Date): Promise<void> {
  await tx
    .delete(chatReservations)
    .where(or(eq(chatReservations.id, id), and(eq(chatReservations.userId, userId), lte(chatReservations.expiresAt, now))));
}

/** The user's role now (null: no such user), for checks made outside a request. */
export async function findUserRole(db: Tx, userId: string): Promise<TRole | null> {
  const [row] = await db.select({ role: users.role }).from(users).where(eq(users.id, userId));
  return row?.role ?? null;
}

/** Usage since `since` grouped by user, provider, model and purpose; the biggest spenders first. */
export async function usageByUserAndModel(db: Db, since: Date) {
  const rows = await db
    .select({
      userId: users.id,
      email: users.email,
      name: users.name,
      provider: chatUsage.provider,
      model: chatUsage.model,
      purpose: chatUsage.purpose,
      requests: count(),
      // Stopped by the person is not a failure (docs/decisions/0061).
      failed: sql<number>`count(*) filter (where ${chatUsage.outcome} in ('error', 'interrupted', 'rejected'))`.mapWith(Number),
      stopped: sql<number>`count(*) filter (where ${eq(chatUsage.outcome, 'stopped')})`.mapWith(Number),
      estimated: sql<number>`count(*) filter (where ${chatUsage.estimated})`.mapWith(Number),
      inputTokens: sum(chatUsage.inputTokens).mapWith(Number),
      outputTokens: sum(chatUsage.outputTokens).mapWith(Number),
      images: sum(chatUsage.images).mapWith(Number),
    })
    .from(chatUsage)
    .innerJoin(users, eq(users.id, chatUsage.userId))
    .where(gte(chatUsage.createdAt, since))
    .groupBy(users.id, users.email, users.name, chatUsage.provider, chatUsage.model, chatUsage.purpose)
    .orderBy(sql`sum(${chatUsage.inputTokens} + ${chatUsage.outputTokens}) desc`, asc(users.email), asc(chatUsage.provider), asc(chatUsage.model), asc(chatUsage.purpose));
  return rows;
}
