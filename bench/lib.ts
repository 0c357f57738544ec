import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import pg from 'pg';
import { startPostgresCluster, type PostgresCluster } from '../tests/support/postgres-cluster.ts';
import { freePort, ROOT_DIR, stopChild, waitForHttp } from '../tests/e2e/support/app-server.ts';

export { freePort, startAppServer, stopChild, type AppServer } from '../tests/e2e/support/app-server.ts';

export type BareServer = { url: string; pid: number; child: ChildProcess; stop(): Promise<void> };

/** Starts bench/bare-server.ts as a child process and waits until it answers. */
export async function startBareServer(options: { route?: string; bodyFile?: string; contentType?: string; headersFile?: string } = {}): Promise<BareServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const args = ['bench/bare-server.ts', '--port', String(port)];
  if (options.route && options.bodyFile) {
    args.push('--route', options.route, '--body-file', options.bodyFile, '--content-type', options.contentType ?? 'application/json');
    if (options.headersFile) args.push('--headers-file', options.headersFile);
  }
  const child = spawn(process.execPath, args, { cwd: ROOT_DIR, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    await waitForHttp(`${url}/api/health`, child, 30_000, () => stderr);
  } catch (err) {
    await stopChild(child);
    throw err;
  }
  return { url, pid: child.pid!, child, stop: () => stopChild(child) };
}

/** A memory figure of a process in MB from /proc/<pid>/status (Linux): VmRSS is the resident
 * set now, VmHWM its peak so far. */
export function procMemoryMb(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status)?.[1];
  if (!kb) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(kb) / 1024;
}

export const rssMb = (pid: number) => procMemoryMb(pid, 'VmRSS');

export type LoadResult = { requestsPerSecond: number; latencyP99Ms: number; errors: number; non2xx: number; total: number };

/** autocannon against one URL: a short warm-up, then the measured run. */
export async function load(url: string, options: { connections: number; seconds: number; warmupSeconds: number }): Promise<LoadResult> {
  if (options.warmupSeconds > 0) await autocannon({ url, connections: options.connections, duration: options.warmupSeconds });
  const result = await autocannon({ url, connections: options.connections, duration: options.seconds });
  return {
    requestsPerSecond: result.requests.average,
    latencyP99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    total: result.requests.total,
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let sharedCluster: Promise<PostgresCluster> | undefined;
let databaseCount = 0;

/**
 * A fresh, empty database on the one PostgreSQL cluster a bench run shares: started on first use
 * (one initdb per run, not per benchmark) and stopped by stopBenchPostgres when the run ends.
 */
export async function benchPostgres(): Promise<{ url: string }> {
  sharedCluster ??= startPostgresCluster();
  const cluster = await sharedCluster;
  const name = `bench_${++databaseCount}`;
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(cluster.url);
  url.pathname = `/${name}`;
  return { url: url.toString() };
}

export async function stopBenchPostgres(): Promise<void> {
  if (sharedCluster) (await sharedCluster.catch(() => null))?.stop();
}
