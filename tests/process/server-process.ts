import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The repository's root, where `npm start` and `npm run backup` run. */
export const ROOT = path.resolve(import.meta.dirname, '../..');

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export type ChildProcessRun = { child: ReturnType<typeof spawn>; exited: Promise<number | null>; output(): string };

/** `node <script> ...args` from the repository's root with only PATH and `env`, its output kept. */
export function runNode(script: string, args: string[], env: Record<string, string>): ChildProcessRun {
  const child = spawn(process.execPath, [path.join(ROOT, script), ...args], { cwd: ROOT, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

/** The server process (`server/index.ts`) at LOG_LEVEL info, on a new DATA_DIR unless `env` names one. */
export function startServer(env: Record<string, string>): ChildProcessRun {
  return runNode('server/index.ts', [], { LOG_LEVEL: 'info', DATA_DIR: mkdtempSync(path.join(tmpdir(), 'srv-')), ...env });
}

export async function waitForHealth(url: string, deadline = Date.now() + 60_000): Promise<void> {
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no answer from ${url}`);
}
