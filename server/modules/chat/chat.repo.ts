import { and, asc, count, eq, gte, ne, sql, sum } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { chatUsage, users } from '../../db/schema.ts';

export type NewChatUsage = Omit<typeof chatUsage.$inferInsert, 'id'>;

export async function insertChatUsage(db: Db, row: NewChatUsage): Promise<void> {
  await db.insert(chatUsage).values(row);
}

/** Input + output tokens a user spent since `since` (served by the (user_id, created_at) index). */
export async function tokensSpentSince(db: Db, userId: string, since: Date): Promise<number> {
  const [row] = await db
    .select({ total: sql<string | null>`sum(${chatUsage.inputTokens} + ${chatUsage.outputTokens})` })
    .from(chatUsage)
    .where(and(eq(chatUsage.userId, userId), gte(chatUsage.createdAt, since)));
  return Number(row?.total ?? 0);
}

/** Usage since `since` grouped by user, provider and model; the biggest spenders first. */
export async function usageByUserAndModel(db: Db, since: Date) {
  const rows = await db
    .select({
      userId: users.id,
      email: users.email,
      name: users.name,
      provider: chatUsage.provider,
      model: chatUsage.model,
      requests: count(),
      failed: sql<number>`count(*) filter (where ${ne(chatUsage.outcome, 'ok')})`.mapWith(Number),
      inputTokens: sum(chatUsage.inputTokens).mapWith(Number),
      outputTokens: sum(chatUsage.outputTokens).mapWith(Number),
    })
    .from(chatUsage)
    .innerJoin(users, eq(users.id, chatUsage.userId))
    .where(gte(chatUsage.createdAt, since))
    .groupBy(users.id, users.email, users.name, chatUsage.provider, chatUsage.model)
    .orderBy(sql`sum(${chatUsage.inputTokens} + ${chatUsage.outputTokens}) desc`, asc(users.email), asc(chatUsage.provider), asc(chatUsage.model));
  return rows;
}
