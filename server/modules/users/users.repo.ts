import { and, asc, eq, sql } from 'drizzle-orm';
import type { TRole } from '../../../contracts/users.ts';
import type { Db } from '../../db/client.ts';
import { users } from '../../db/schema.ts';

export type UserRow = typeof users.$inferSelect;
export type Identity = { provider: string; subject: string };
export type Profile = { email: string; name: string; profilePicture: string };

/** Any connection or transaction: repo functions run inside the caller's transaction. */
type Tx = Pick<Db, 'select' | 'insert' | 'update' | 'execute'>;

export async function findUserById(db: Tx, id: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id));
  return row;
}

export async function findUserByIdentity(db: Tx, identity: Identity): Promise<UserRow | undefined> {
  const [row] = await db
    .select()
    .from(users)
    .where(and(eq(users.provider, identity.provider), eq(users.subject, identity.subject)));
  return row;
}

/** Serialises first sign-ins so "the first account is admin" holds under concurrency. */
const FIRST_USER_LOCK_KEY = 7_240_310_002;

/** Holds the first-user lock until the caller's transaction ends. */
export async function lockFirstUser(db: Tx): Promise<void> {
  await db.execute(sql`select pg_advisory_xact_lock(${FIRST_USER_LOCK_KEY})`);
}

export async function hasAnyUser(db: Tx): Promise<boolean> {
  const [row] = await db.select({ one: sql<number>`1` }).from(users).limit(1);
  return row !== undefined;
}

/** `id` is chosen by the caller where it is known before the row (a passkey's user handle). */
export async function insertUser(db: Tx, values: Identity & Profile & { role: TRole; id?: string }): Promise<UserRow> {
  const [row] = await db.insert(users).values(values).returning();
  return row!;
}

export async function updateUserProfile(db: Tx, id: string, profile: Profile & { role?: TRole }): Promise<UserRow> {
  const [row] = await db
    .update(users)
    .set({ ...profile, updatedAt: new Date() })
    .where(eq(users.id, id))
    .returning();
  return row!;
}

export async function listUsers(db: Tx): Promise<UserRow[]> {
  return db.select().from(users).orderBy(asc(users.createdAt), asc(users.email));
}

/** Locks the admin rows so two concurrent demotions cannot both see "another admin remains". */
export async function countAdminsForUpdate(db: Tx): Promise<number> {
  const rows = await db.select({ id: users.id }).from(users).where(eq(users.role, 'admin')).for('update');
  return rows.length;
}

export async function setUserRole(db: Tx, id: string, role: TRole): Promise<UserRow | undefined> {
  const [row] = await db.update(users).set({ role, updatedAt: new Date() }).where(eq(users.id, id)).returning();
  return row;
}
