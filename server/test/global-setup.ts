import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildPgliteTemplate, createPostgresTemplate, dropPostgresDatabase } from './database-templates.ts';

/**
 * Vitest's global setup for the server projects: one migrated database per run, provided to the
 * test files (server/test/test-app.ts copies it), removed at the end.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (project.name === 'server-postgres') {
    const adminUrl = process.env.TEST_POSTGRES_URL;
    if (!adminUrl) return async () => {};
    const name = await createPostgresTemplate(adminUrl);
    project.provide('postgresTemplate', name);
    return () => dropPostgresDatabase(adminUrl, name);
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'test-pglite-'));
  const dump = await buildPgliteTemplate();
  const file = path.join(dir, 'migrated.tar');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  project.provide('pgliteTemplate', { file, type: dump.type });
  return async () => rmSync(dir, { recursive: true, force: true });
}
