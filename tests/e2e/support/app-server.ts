import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN_EMAIL } from './constants.ts';
import type { SeedArticle } from './seed-articles.ts';

export const ROOT_DIR = fileURLToPath(new URL('../../../', import.meta.url));

/** A port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Polls `url` until it answers 200; fails early when `child` exits first. */
export async function waitForHttp(url: string, child: ChildProcess, timeoutMs = 60_000, stderr = () => ''): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`server exited (${child.exitCode ?? child.signalCode}) before ${url} answered:\n${stderr()}`);
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms:\n${stderr()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Ends a child process: SIGTERM, then SIGKILL if it is still there after `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT_DIR, stdio: ['ignore', 'inherit', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited ${code}:\n${err}`))));
  });
}

export type AppServer = {
  url: string;
  pid: number;
  dataDir: string;
  child: ChildProcess;
  /** The last 20 KB the process wrote (its log and any crash), for a failing test to show. */
  output(): string;
  stop(): Promise<void>;
};

/**
 * Starts our real server (`node server/index.ts`) as a child process on a free port with a
 * fresh PGlite directory, optionally seeded with articles first, and waits for /api/health.
 * `port`: a given one instead (a process restarted where a proxy expects it).
 * Used by the specs that need their own database and by the benchmarks.
 */
export async function startAppServer(options: { articles?: SeedArticle[]; env?: Record<string, string>; port?: number } = {}): Promise<AppServer> {
  const workDir = mkdtempSync(path.join(tmpdir(), 'app-server-'));
  const dataDir = path.join(workDir, 'data');
  const cleanup = () => rmSync(workDir, { recursive: true, force: true });
  try {
    if (options.articles) {
      const file = path.join(workDir, 'articles.json');
      writeFileSync(file, JSON.stringify(options.articles));
      await run(process.execPath, [path.join(ROOT_DIR, 'tests/e2e/support/seed-articles.ts'), dataDir, file]);
    }
    const port = options.port ?? (await freePort());
    const url = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, ['server/index.ts'], {
      cwd: ROOT_DIR,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        DATABASE_URL: '',
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        PUBLIC_URL: url,
        ADMIN_EMAILS: ADMIN_EMAIL,
        AUTH_PROVIDER: 'local',
        LOG_LEVEL: 'warn',
        ...options.env,
      },
    });
    let output = '';
    const keep = (d: Buffer) => (output = (output + d.toString()).slice(-20_000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    try {
      await waitForHttp(`${url}/api/health`, child, 60_000, () => output);
    } catch (err) {
      await stopChild(child);
      throw err;
    }
    return {
      url,
      pid: child.pid!,
      dataDir,
      child,
      output: () => output,
      async stop() {
        await stopChild(child);
        cleanup();
      },
    };
  } catch (err) {
    cleanup();
    throw err;
  }
}

export type WorkerProcess = {
  /** Its health port's origin (WORKER_HEALTH_PORT on 127.0.0.1). */
  healthUrl: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
};

/**
 * Starts `node server/worker.ts` (`npm run worker`) as a child process with a health port, and
 * waits until that port says ready. `env` must name the worker's PostgreSQL (DATABASE_URL).
 */
export async function startWorkerProcess(env: Record<string, string>): Promise<WorkerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['server/worker.ts'], {
    cwd: ROOT_DIR,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env, WORKER_HEALTH_PORT: String(port) },
  });
  let output = '';
  const keep = (d: Buffer) => (output = (output + d.toString()).slice(-20_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const healthUrl = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${healthUrl}/api/health/ready`, child, 60_000, () => output);
  } catch (err) {
    await stopChild(child);
    throw err;
  }
  return { healthUrl, child, output: () => output, stop: () => stopChild(child, 35_000) };
}
