import { existsSync, mkdirSync, openAsBlob, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';

export type TemplateFiles = { file: string; versionFile: string };

/** Where `npm run build` puts a new data directory made by PGlite's initdb and migrated
 * (script/pglite-template.ts). */
export const PGLITE_TEMPLATE: TemplateFiles = {
  file: fileURLToPath(new URL('../../dist/pglite/template.tar.gz', import.meta.url)),
  versionFile: fileURLToPath(new URL('../../dist/pglite/template.version', import.meta.url)),
};

/** The migrations the server applies at every start (server/db/client.ts). */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('./migrations', import.meta.url));

/** The installed PGlite's version: a template is used only by the version that made it. */
export function pgliteVersion(): string {
  // Its exports map has no ./package.json: found beside the entry (dist/index.js).
  const manifest = new URL('../package.json', import.meta.resolve('@electric-sql/pglite'));
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/** How a data directory starts: the database already in it, the template, or initdb (and why). */
export type DataDirStart = { from: 'existing' } | { from: 'template'; template: Blob } | { from: 'initdb'; why: string };

/**
 * For a data directory without a database yet, the packed template, so PGlite unpacks it instead
 * of running initdb in a second instance of itself (docs/decisions/0054) and the server's
 * migrations find the build's own already applied (decision 0105); initdb when there is no
 * template from this PGlite version.
 */
export async function dataDirStart(dataDir: string, template: TemplateFiles = PGLITE_TEMPLATE): Promise<DataDirStart> {
  if (existsSync(path.join(dataDir, 'PG_VERSION'))) return { from: 'existing' };
  if (!existsSync(template.file) || !existsSync(template.versionFile)) return { from: 'initdb', why: `no ${template.file} (npm run build makes it)` };
  const made = readFileSync(template.versionFile, 'utf8').trim();
  if (made !== pgliteVersion()) return { from: 'initdb', why: `${template.file} was made by PGlite ${made}, this is ${pgliteVersion()}` };
  // The gzip type tells PGlite to unpack it.
  return { from: 'template', template: await openAsBlob(template.file, { type: 'application/x-gzip' }) };
}

/**
 * Runs initdb (in memory) and every migration in `migrationsFolder`, and writes the data
 * directory, packed, with this PGlite's version. Migrations added after the build are applied by
 * the server as to any database (drizzle's journal in the template says which it holds).
 */
export async function writePgliteTemplate(
  template: TemplateFiles = PGLITE_TEMPLATE,
  migrationsFolder: string = MIGRATIONS_FOLDER,
): Promise<{ bytes: number; version: string }> {
  const client = await PGlite.create();
  try {
    await migrate(drizzle({ client }), { migrationsFolder });
    // Written to the data files, so a server opening the unpacked copy replays no WAL.
    await client.query('checkpoint');
    const dump = await client.dumpDataDir('gzip');
    mkdirSync(path.dirname(template.file), { recursive: true });
    writeFileSync(template.file, Buffer.from(await dump.arrayBuffer()));
    writeFileSync(template.versionFile, `${pgliteVersion()}\n`);
    return { bytes: dump.size, version: pgliteVersion() };
  } finally {
    await client.close();
  }
}
