import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Libraries only some requests use are loaded at their first use, not when a server starts
 * (docs/decisions/0105): each was a tenth to a fifth of a CPU-second of every start.
 */
const LOADED_WHEN_USED = ['@simplewebauthn/server', '@modelcontextprotocol/sdk', 'linkedom', '@mozilla/readability', 'nodemailer', 'yahoo-finance2'];

/** Every module URL a Node process loads while it imports what server/index.ts imports (the
 * entry itself would start a server): a load hook records them. */
function modulesOfServerStart(): string[] {
  const entryUrl = new URL('server/index.ts', `file://${ROOT}`);
  const entry = readFileSync(entryUrl, 'utf8');
  // Every value import, side-effect ones too; relative ones resolved against the entry.
  const specifiers = [...entry.matchAll(/^import (?!type )(?:[^'"]*from )?'([^']+)';$/gm)].map((match) => match[1]!);
  const imports = specifiers.map((specifier) => `await import(${JSON.stringify(specifier.startsWith('.') ? new URL(specifier, entryUrl).href : specifier)});`);
  const hook = `import { registerHooks } from 'node:module';
const loaded = [];
registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
process.on('exit', () => process.stdout.write(JSON.stringify(loaded)));`;
  const out = execFileSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(hook)}`, '--input-type=module', '-e', imports.join('\n')], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return JSON.parse(out) as string[];
}

describe('what a server loads when it starts', () => {
  it('leaves the libraries of passkeys, MCP, web pages, email and stock data until they are used', () => {
    const modules = modulesOfServerStart();
    // It saw the server's modules: the app, Fastify and PGlite.
    expect(modules.some((url) => url.endsWith('/server/app.ts'))).toBe(true);
    expect(modules.some((url) => url.includes('/node_modules/fastify/'))).toBe(true);
    expect(modules.some((url) => url.includes('/node_modules/@electric-sql/pglite/'))).toBe(true);
    const early = LOADED_WHEN_USED.filter((name) => modules.some((url) => url.includes(`/node_modules/${name}/`)));
    expect(early, 'libraries loaded at start that decision 0105 loads at first use').toEqual([]);
  }, 60_000);
});
