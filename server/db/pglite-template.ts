import { existsSync, mkdirSync, openAsBlob, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';

export type TemplateFiles = { file: string; versionFile: string };

/** Where `npm run build` puts a new data directory made by PGlite's initdb (script/pglite-template.ts). */
export const PGLITE_TEMPLATE: TemplateFiles = {
  file: fileURLToPath(new URL('../../dist/pglite/initdb.tar.gz', import.meta.url)),
  versionFile: fileURLToPath(new URL('../../dist/pglite/initdb.version', import.meta.url)),
};

/** The installed PGlite's version: a template is used only by the version that made it. */
export function pgliteVersion(): string {
  // Its exports map has no ./package.json: found beside the entry (dist/index.js).
  const manifest = new URL('../package.json', import.meta.resolve('@electric-sql/pglite'));
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/** How a data directory starts: the database already in it, the template, or initdb (and why). */
export type DataDirStart = { from: 'existing' } | { from: 'template'; template: Blob } | { from: 'initdb'; why: string };

/**
 * For a data directory without a database yet, the packed initdb output, so PGlite unpacks it
 * instead of running initdb in a second instance of itself (docs/decisions/0054); initdb when
 * there is no template from this PGlite version.
 */
export async function dataDirStart(dataDir: string, template: TemplateFiles = PGLITE_TEMPLATE): Promise<DataDirStart> {
  if (existsSync(path.join(dataDir, 'PG_VERSION'))) return { from: 'existing' };
  if (!existsSync(template.file) || !existsSync(template.versionFile)) return { from: 'initdb', why: `no ${template.file} (npm run build makes it)` };
  const made = readFileSync(template.versionFile, 'utf8').trim();
  if (made !== pgliteVersion()) return { from: 'initdb', why: `${template.file} was made by PGlite ${made}, this is ${pgliteVersion()}` };
  // The gzip type tells PGlite to unpack it.
  return { from: 'template', template: await openAsBlob(template.file, { type: 'application/x-gzip' }) };
}

/** Runs initdb (in memory) and writes its data directory, packed, with this PGlite's version. */
export async function writePgliteTemplate(template: TemplateFiles = PGLITE_TEMPLATE): Promise<{ bytes: number; version: string }> {
  const client = await PGlite.create();
  try {
    const dump = await client.dumpDataDir('gzip');
    mkdirSync(path.dirname(template.file), { recursive: true });
    writeFileSync(template.file, Buffer.from(await dump.arrayBuffer()));
    writeFileSync(template.versionFile, `${pgliteVersion()}\n`);
    return { bytes: dump.size, version: pgliteVersion() };
  } finally {
    await client.close();
  }
}
