import { and, asc, count, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import type { TRole } from '../../../contracts/users.ts';
import type { Db } from '../../db/client.ts';
import { invites, passkeyChallenges, passkeys, users } from '../../db/schema.ts';

/** Any connection or transaction: repo functions run inside the caller's transaction. */
type Tx = Pick<Db, 'select' | 'insert' | 'update' | 'delete' | 'execute'>;

export type InviteRow = typeof invites.$inferSelect;
export type PasskeyRow = typeof passkeys.$inferSelect;
export type ChallengeRow = typeof passkeyChallenges.$inferSelect;

export async function insertInvite(db: Tx, values: { email: string; role: TRole; tokenHash: string; invitedBy: string | null; expiresAt: Date }): Promise<InviteRow> {
  const [row] = await db.insert(invites).values(values).returning();
  return row!;
}

/** A newer invite replaces the unused ones to the same email: only the latest link works. */
export async function deleteUnusedInvites(db: Tx, email: string): Promise<void> {
  await db.delete(invites).where(and(eq(invites.email, email), isNull(invites.usedAt)));
}

/** The invite of that token while it may still be used (unused and unexpired), else undefined. */
export async function findUsableInvite(db: Tx, tokenHash: string, now: Date): Promise<InviteRow | undefined> {
  const [row] = await db
    .select()
    .from(invites)
    .where(and(eq(invites.tokenHash, tokenHash), isNull(invites.usedAt), gt(invites.expiresAt, now)));
  return row;
}

export async function findInviteByTokenHash(db: Tx, tokenHash: string): Promise<InviteRow | undefined> {
  const [row] = await db.select().from(invites).where(eq(invites.tokenHash, tokenHash));
  return row;
}

/** Marks the invite used, only if nobody did first: single use under concurrency. */
export async function useInvite(db: Tx, id: string, userId: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(invites)
    .set({ usedAt: now, userId })
    .where(and(eq(invites.id, id), isNull(invites.usedAt), gt(invites.expiresAt, now)))
    .returning({ id: invites.id });
  return rows.length === 1;
}

export async function userWithEmailExists(db: Tx, email: string): Promise<boolean> {
  const [row] = await db.select({ one: sql<number>`1` }).from(users).where(eq(users.email, email)).limit(1);
  return row !== undefined;
}

export async function insertChallenge(db: Tx, values: typeof passkeyChallenges.$inferInsert): Promise<void> {
  await db.insert(passkeyChallenges).values(values);
}

/** Takes a challenge for its one answer: deleted here, so no second answer finds it. */
export async function takeChallenge(db: Tx, challenge: string, purpose: ChallengeRow['purpose'], now: Date): Promise<ChallengeRow | undefined> {
  const [row] = await db
    .delete(passkeyChallenges)
    .where(and(eq(passkeyChallenges.challenge, challenge), eq(passkeyChallenges.purpose, purpose), gt(passkeyChallenges.expiresAt, now)))
    .returning();
  return row;
}

export async function deleteExpiredChallenges(db: Tx, now: Date): Promise<void> {
  await db.delete(passkeyChallenges).where(lt(passkeyChallenges.expiresAt, now));
}

export async function insertPasskey(
  db: Tx,
  values: { userId: string; credentialId: string; publicKey: Buffer; counter: number; transports: string[]; name: string },
): Promise<PasskeyRow> {
  const [row] = await db.insert(passkeys).values(values).returning();
  return row!;
}

export async function findPasskeyByCredentialId(db: Tx, credentialId: string): Promise<PasskeyRow | undefined> {
  const [row] = await db.select().from(passkeys).where(eq(passkeys.credentialId, credentialId));
  return row;
}

export async function listPasskeys(db: Tx, userId: string): Promise<PasskeyRow[]> {
  return db.select().from(passkeys).where(eq(passkeys.userId, userId)).orderBy(asc(passkeys.createdAt), asc(passkeys.id));
}

/**
 * Records a sign-in: the new counter and the time, only if the counter is still what the check
 * saw, so two sign-ins racing with one assertion cannot both pass.
 */
export async function recordPasskeyUse(db: Tx, id: string, seenCounter: number, newCounter: number, at: Date): Promise<boolean> {
  const rows = await db
    .update(passkeys)
    .set({ counter: newCounter, lastUsedAt: at })
    .where(and(eq(passkeys.id, id), eq(passkeys.counter, seenCounter)))
    .returning({ id: passkeys.id });
  return rows.length === 1;
}

/** Locks the user's passkeys and counts them, so two removals at once cannot take the last two. */
export async function countPasskeysForUpdate(db: Tx, userId: string): Promise<number> {
  const rows = await db.select({ id: passkeys.id }).from(passkeys).where(eq(passkeys.userId, userId)).for('update');
  return rows.length;
}

export async function deletePasskey(db: Tx, userId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(passkeys)
    .where(and(eq(passkeys.id, id), eq(passkeys.userId, userId)))
    .returning({ id: passkeys.id });
  return rows.length === 1;
}

export async function countPasskeys(db: Tx, userId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(passkeys).where(eq(passkeys.userId, userId));
  return row?.n ?? 0;
}

export async function deleteInvite(db: Tx, id: string): Promise<void> {
  await db.delete(invites).where(eq(invites.id, id));
}
