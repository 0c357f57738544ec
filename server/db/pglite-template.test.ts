import { existsSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from './client.ts';
import { dataDirStart, pgliteVersion, writePgliteTemplate, type TemplateFiles } from './pglite-template.ts';

const silent = pino({ level: 'silent' });
const temp = () => mkdtempSync(path.join(tmpdir(), 'pglite-template-'));

/** Every file and directory under `dir` that anyone but the owner may read. */
function notPrivate(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => (statSync(file).mode & 0o077) !== 0);
}

describe('a new PGlite data directory from the build’s initdb output (docs/decisions/0054)', () => {
  let template: TemplateFiles;
  beforeAll(async () => {
    const dir = temp();
    template = { file: path.join(dir, 'initdb.tar.gz'), versionFile: path.join(dir, 'initdb.version') };
    await writePgliteTemplate(template);
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
