import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';

const MIGRATIONS = fileURLToPath(new URL('../db/migrations', import.meta.url));

export type PreviousRelease = {
  client: PGlite;
  /** The tag of the last migration applied: the previous release's last. */
  lastTag: string;
  /**
   * Applies every later migration, as starting the new release does; with `through`, only those
   * up to the first whose tag matches it (a migration's test on a database a later one changes).
   */
  upgrade(through?: RegExp): Promise<void>;
  close(): Promise<void>;
};

/**
 * A database as the previous release left it, for a migration's upgrade test: an in-memory PGlite
 * migrated up to the migration before the first whose tag matches `migration` (from a copy of the
 * migrations folder whose journal ends there).
 */
export async function databaseBefore(migration: RegExp): Promise<PreviousRelease> {
  const previous = mkdtempSync(join(tmpdir(), 'migrations-previous-'));
  try {
    cpSync(MIGRATIONS, previous, { recursive: true });
    const journalFile = join(previous, 'meta/_journal.json');
    const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: Array<{ tag: string }> };
    const last = journal.entries.findIndex((e) => migration.test(e.tag)) - 1;
    if (last < 0) throw new Error(`no migration before one tagged ${migration} in ${MIGRATIONS}`);
    const journalThrough = (end: number) => writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, end + 1) }));
    journalThrough(last);
    const client = new PGlite();
    await migrate(drizzle({ client }), { migrationsFolder: previous });
    return {
      client,
      lastTag: journal.entries[last]!.tag,
      async upgrade(through) {
        if (!through) return migrate(drizzle({ client }), { migrationsFolder: MIGRATIONS });
        const end = journal.entries.findIndex((e) => through.test(e.tag));
        if (end < 0) throw new Error(`no migration tagged ${through} in ${MIGRATIONS}`);
        journalThrough(end);
        await migrate(drizzle({ client }), { migrationsFolder: previous });
      },
      async close() {
        await client.close();
        rmSync(previous, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(previous, { recursive: true, force: true });
    throw err;
  }
}
