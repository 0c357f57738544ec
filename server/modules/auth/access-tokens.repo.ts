import { and, count, desc, eq, gt, isNull, lt, or } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { accessTokens, users } from '../../db/schema.ts';
import type { UserRow } from '../users/users.repo.ts';

export type AccessTokenRow = typeof accessTokens.$inferSelect;
type Tx = Pick<Db, 'select' | 'insert' | 'update'>;

/** The user's tokens that are not revoked (expired ones too: their owner sees they ended), newest first. */
export async function listAccessTokens(db: Tx, userId: string): Promise<AccessTokenRow[]> {
  return db
    .select()
    .from(accessTokens)
    .where(and(eq(accessTokens.userId, userId), isNull(accessTokens.revokedAt)))
    .orderBy(desc(accessTokens.createdAt), desc(accessTokens.id));
}

/** Locks the user's row until the transaction ends, so two creates at once count each other. */
export async function lockTokenOwner(db: Tx, userId: string): Promise<boolean> {
  const [row] = await db.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
  return row !== undefined;
}

/** Tokens that still work: neither revoked nor expired at `at`. */
export async function countLiveAccessTokens(db: Tx, userId: string, at: Date): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(accessTokens)
    .where(and(eq(accessTokens.userId, userId), isNull(accessTokens.revokedAt), gt(accessTokens.expiresAt, at)));
  return row?.n ?? 0;
}

export async function insertAccessToken(db: Tx, row: typeof accessTokens.$inferInsert): Promise<AccessTokenRow> {
  const [created] = await db.insert(accessTokens).values(row).returning();
  return created!;
}

/** Marks the user's token revoked; false when it is not theirs or was revoked already. */
export async function revokeAccessToken(db: Tx, userId: string, id: string, at: Date): Promise<boolean> {
  const rows = await db
    .update(accessTokens)
    .set({ revokedAt: at })
    .where(and(eq(accessTokens.id, id), eq(accessTokens.userId, userId), isNull(accessTokens.revokedAt)))
    .returning({ id: accessTokens.id });
  return rows.length > 0;
}

/** A token by its hash, with its user as the database has them now (the role included). */
export async function findAccessTokenByHash(db: Tx, tokenHash: string): Promise<{ token: AccessTokenRow; user: UserRow } | undefined> {
  const [row] = await db.select({ token: accessTokens, user: users }).from(accessTokens).innerJoin(users, eq(users.id, accessTokens.userId)).where(eq(accessTokens.tokenHash, tokenHash));
  return row;
}

/**
 * Records a use at `at`, unless one was recorded after `since`: the condition in the statement,
 * so processes using the same token at once write it once.
 */
export async function touchAccessToken(db: Tx, id: string, at: Date, since: Date): Promise<void> {
  await db
    .update(accessTokens)
    .set({ lastUsedAt: at })
    .where(and(eq(accessTokens.id, id), or(isNull(accessTokens.lastUsedAt), lt(accessTokens.lastUsedAt, since))));
}
