import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ZEnv } from '../server/config.ts';
import { CONFIGURATION_DOC, renderConfigurationDoc } from './docs-config.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const committed = readFileSync(path.join(root, CONFIGURATION_DOC), 'utf8');
const schemaVariables = Object.keys(ZEnv.shape);

/** The variables a reference documents: the first cell of each table row. */
const documentedVariables = (markdown: string) => [...markdown.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]);

describe('the configuration reference (docs/operator/configuration.md)', () => {
  it('documents every variable of the schema, each once, with a meaning', () => {
    const documented = documentedVariables(committed);
    expect(documented.filter((name) => !schemaVariables.includes(name!)), 'documented but not in the schema').toEqual([]);
    expect(schemaVariables.filter((name) => !documented.includes(name)), 'in the schema but missing from the reference').toEqual([]);
    expect(new Set(documented).size).toBe(documented.length);
    for (const row of committed.split('\n').filter((line) => /^\| `[A-Z]/.test(line))) {
      expect(row.split(' | ').at(-1)?.replace(/\|$/, '').trim(), row).not.toBe('');
    }
  });

  it('is exactly what npm run docs:config writes from the schema now (edit server/config-reference.ts, then run it)', () => {
    expect(committed).toBe(renderConfigurationDoc());
  });

  it("prints the schema's own defaults (a variable's default changed in the schema changes the reference)", () => {
    const row = (name: string) => committed.split('\n').find((line) => line.startsWith(`| \`${name}\` |`));
    expect(row('PORT')).toContain('| `3000` |');
    expect(row('OLLAMA_MODELS')).toContain('| `llama3.1` |');
    expect(row('RUN_WORKERS')).toContain('| `true` |');
  });

  it('covers every variable the server reads from its environment (none is read outside the schema)', () => {
    // Names the server's own sources read as process.env.X, env.X or env['X'], tests aside.
    const read = new Set<string>();
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          if (entry.name !== 'test') walk(file);
        } else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) {
          const text = readFileSync(file, 'utf8');
          for (const m of text.matchAll(/\b(?:process\.)?env(?:\.([A-Z][A-Z0-9_]+)|\[['"]([A-Z][A-Z0-9_]+)['"]\])/g)) read.add((m[1] ?? m[2])!);
        }
      }
    };
    walk(path.join(root, 'server'));
    // npm sets INIT_CWD (where `npm run backup` was typed), for the backup file's relative path.
    const notConfiguration = new Set(['INIT_CWD']);
    expect([...read].filter((name) => !schemaVariables.includes(name) && !notConfiguration.has(name))).toEqual([]);
    // The scan sees the one read it allows (config.ts reads the schema's parse, not env.X).
    expect(read).toContain('INIT_CWD');
  });
});
