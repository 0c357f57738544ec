import { cpSync, existsSync, mkdtempSync, openAsBlob, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { PGlite } from '@electric-sql/pglite';
import pino from 'pino';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from './client.ts';
import { dataDirStart, MIGRATIONS_FOLDER, pgliteVersion, writePgliteTemplate, type TemplateFiles } from './pglite-template.ts';

const silent = pino({ level: 'silent' });
const temp = () => mkdtempSync(path.join(tmpdir(), 'pglite-template-'));

/** Every file and directory under `dir` that anyone but the owner may read. */
function notPrivate(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => (statSync(file).mode & 0o077) !== 0);
}

type Journal = { entries: Array<{ tag: string; when: number }> };
const journal = JSON.parse(readFileSync(path.join(MIGRATIONS_FOLDER, 'meta/_journal.json'), 'utf8')) as Journal;
/** Every migration of the checkout, by the time drizzle records for each. */
const checkoutMigrations = journal.entries.map((entry) => entry.when);

/** The migrations a database holds, oldest first, by drizzle's record of them. */
async function appliedMigrations(database: Awaited<ReturnType<typeof openDatabase>>): Promise<number[]> {
  const { rows } = (await database.db.execute(sql`select created_at from drizzle.__drizzle_migrations order by created_at`)) as unknown as {
    rows: Array<{ created_at: string }>;
  };
  return rows.map((row) => Number(row.created_at));
}

/** A copy of the migrations folder whose journal lists only the first `count`. */
function firstMigrations(count: number): string {
  const folder = path.join(temp(), 'migrations');
  cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
  writeFileSync(path.join(folder, 'meta/_journal.json'), JSON.stringify({ ...journal, entries: journal.entries.slice(0, count) }));
  return folder;
}

describe('a new PGlite data directory from the build’s migrated template (docs/decisions/0054, 0105)', () => {
  let template: TemplateFiles;
  beforeAll(async () => {
    const dir = temp();
    template = { file: path.join(dir, 'template.tar.gz'), versionFile: path.join(dir, 'template.version') };
    await writePgliteTemplate(template);
  }, 60_000);

  it('holds every migration of the checkout, so a new directory applies none at start', async () => {
    // The template as it is, opened without the server's migrations.
    const client = new PGlite({ loadDataDir: await openAsBlob(template.file, { type: 'application/x-gzip' }) });
    try {
      const { rows } = await client.query<{ created_at: string }>('select created_at from drizzle.__drizzle_migrations order by created_at');
      expect(rows.map((row) => Number(row.created_at))).toEqual(checkoutMigrations);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('applies at start the migrations written after the template was built', async () => {
    const dir = temp();
    const older = { file: path.join(dir, 'older.tar.gz'), versionFile: path.join(dir, 'older.version') };
    await writePgliteTemplate(older, firstMigrations(journal.entries.length - 2));
    const database = await openDatabase({ kind: 'pglite', dataDir: path.join(dir, 'data') }, silent, { dataDirTemplate: older });
    try {
      expect(await appliedMigrations(database)).toEqual(checkoutMigrations);
      // The second newest migration's table is there and usable.
      await database.db.execute(sql`select count(*) from agent_schedules`);
    } finally {
      await database.close();
    }
  }, 60_000);

  it('runs initdb without a template from this PGlite version, and says why', async () => {
    const dir = temp();
    const missing = { file: path.join(dir, 'none.tar.gz'), versionFile: path.join(dir, 'none.version') };
    expect(await dataDirStart(path.join(dir, 'data'), missing)).toEqual({ from: 'initdb', why: expect.stringContaining('npm run build') });
    const other = { file: template.file, versionFile: path.join(dir, 'old.version') };
    writeFileSync(other.versionFile, '0.0.1\n');
    expect(await dataDirStart(path.join(dir, 'data'), other)).toEqual({ from: 'initdb', why: expect.stringContaining(`made by PGlite 0.0.1, this is ${pgliteVersion()}`) });
  });

  it('starts a new directory from it: migrated, private, and opened as an existing database next time', async () => {
    const dataDir = path.join(temp(), 'data');
    expect((await dataDirStart(dataDir, template)).from).toBe('template');
    const first = await openDatabase({ kind: 'pglite', dataDir }, silent, { dataDirTemplate: template });
    try {
      await first.db.execute(sql`insert into users (provider, subject, email, name, role) values ('local', 'first@example.com', 'first@example.com', 'First', 'admin')`);
    } finally {
      await first.close();
    }
    expect(notPrivate(dataDir)).toEqual([]);

    expect(await dataDirStart(dataDir, template)).toEqual({ from: 'existing' });
    const again = await openDatabase({ kind: 'pglite', dataDir }, silent, { dataDirTemplate: template });
    try {
      const { rows } = (await again.db.execute(sql`select email from users`)) as unknown as { rows: Array<{ email: string }> };
      expect(rows).toEqual([{ email: 'first@example.com' }]);
    } finally {
      await again.close();
    }
  }, 60_000);

  it('opens a new directory with initdb when the template is missing, and logs why', async () => {
    const dir = temp();
    const lines: Array<{ msg: string; why?: string }> = [];
    const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(JSON.parse(chunk.toString()) as { msg: string; why?: string }), done()) });
    const missing = { file: path.join(dir, 'none.tar.gz'), versionFile: path.join(dir, 'none.version') };
    const dataDir = path.join(dir, 'data');
    const database = await openDatabase({ kind: 'pglite', dataDir }, pino({ level: 'info' }, sink), { dataDirTemplate: missing });
    try {
      await database.ping();
    } finally {
      await database.close();
    }
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'new PGlite data directory: running initdb', why: expect.stringContaining('none.tar.gz') }));
    expect(existsSync(path.join(dataDir, 'PG_VERSION'))).toBe(true);
    expect(notPrivate(dataDir)).toEqual([]);
  }, 60_000);
});
