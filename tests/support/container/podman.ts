import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT_DIR } from '../../e2e/support/app-server.ts';

/** The images script/container-images builds, and the status it ends with. */
export const IMAGES = { product: 'localhost/axiom-automation:test', postgres: 'localhost/axiom-postgres' } as const;
const STATUS_FILE = path.join(ROOT_DIR, '.tmp/container-images/status.json');

export type ImagesStatus = {
  /** unavailable: no container engine can run here (the test skips, saying `message`). */
  state: 'ready' | 'unavailable' | 'failed';
  message: string;
  /** What `podman run` needs on this machine (runc, explicit ulimits). */
  runArgs: string[];
};

export const podmanInstalled = (): boolean => spawnSync('podman', ['--version'], { stdio: 'ignore' }).status === 0;

export type Result = { code: number | null; stdout: string; stderr: string };

/** Runs `command` to its end without blocking the test's event loop. */
export function run(command: string, args: string[], options: { cwd?: string; timeoutMs?: number } = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd ?? ROOT_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = options.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs) : null;
    child.once('error', reject);
    child.once('close', (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export const podman = (args: string[]) => run('podman', args, { timeoutMs: 120_000 });

/** podman, failing with its words unless it exits 0; its output, trimmed. */
export async function podmanOk(args: string[]): Promise<string> {
  const result = await podman(args);
  if (result.code !== 0) throw new Error(`podman ${args.join(' ')} exited ${result.code}: ${result.stderr.trim() || result.stdout.trim()}`);
  return result.stdout.trim();
}

/**
 * script/container-images, which builds what changed (minutes on a fresh machine, a second when
 * nothing did) or first waits for script/test's background run of it to end; then its status.
 */
export async function buildImages(): Promise<ImagesStatus> {
  const result = await run(path.join(ROOT_DIR, 'script/container-images'), [], { timeoutMs: 20 * 60_000 });
  if (!existsSync(STATUS_FILE)) return { state: 'failed', message: `script/container-images exited ${result.code} without a status:\n${result.stdout}\n${result.stderr}`, runArgs: [] };
  const status = JSON.parse(readFileSync(STATUS_FILE, 'utf8')) as ImagesStatus;
  return status.state === 'failed' ? { ...status, message: `${status.message}\n${result.stderr.slice(-4000)}` } : status;
}
