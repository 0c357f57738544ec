import type { z } from 'zod';
import type { TSettings, ZUpdateSettings } from '../../../contracts/settings.ts';
import type { Db } from '../../db/client.ts';
import { AppError } from '../../lib/errors.ts';
import { findSettings, updateSettings } from './settings.repo.ts';

// The session said the user exists; a miss means the account was deleted meanwhile.
const NOT_FOUND = 'User not found';

/** The signed-in user's own settings: where agent alerts are emailed, and their time zone. */
export function createSettingsService({ db }: { db: Db }) {
  async function get(userId: string): Promise<TSettings> {
    const row = await findSettings(db, userId);
    if (!row) throw new AppError('NOT_FOUND', NOT_FOUND);
    return row;
  }

  /** Replaces both settings; an empty alert email has become null (= the sign-in email). */
  async function update(userId: string, settings: z.output<typeof ZUpdateSettings>): Promise<TSettings> {
    const row = await updateSettings(db, userId, settings);
    if (!row) throw new AppError('NOT_FOUND', NOT_FOUND);
    return row;
  }

  return { get, update };
}

export type SettingsService = ReturnType<typeof createSettingsService>;
