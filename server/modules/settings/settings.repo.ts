import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { users } from '../../db/schema.ts';

export type SettingsRow = { alertEmail: string | null; timeZone: string | null; signInEmail: string };

type Tx = Pick<Db, 'select' | 'update'>;

const columns = { alertEmail: users.alertEmail, timeZone: users.timeZone, signInEmail: users.email };

export async function findSettings(db: Tx, userId: string): Promise<SettingsRow | undefined> {
  const [row] = await db.select(columns).from(users).where(eq(users.id, userId));
  return row;
}

export async function updateSettings(
  db: Tx,
  userId: string,
  settings: { alertEmail: string | null; timeZone: string | null },
): Promise<SettingsRow | undefined> {
  const [row] = await db
    .update(users)
    .set({ ...settings, updatedAt: new Date() })
    .where(eq(users.id, userId))
    .returning(columns);
  return row;
}
