import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
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

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ: 100 on Linux). */
const USER_HZ = 100;

/** CPU time a process has used so far, in ms (with `children`: the reaped children's too). */
export function cpuMs(pid: number, children = false): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // After the ')': state ppid ... utime (index 11) stime (12) cutime (13) cstime (14).
    const ticks = Number(fields[11]) + Number(fields[12]) + (children ? Number(fields[13]) + Number(fields[14]) : 0);
    return (ticks * 1000) / USER_HZ;
  } catch {
    return 0; // gone meanwhile
  }
}

/**
 * Where a throughput benchmark's processes run, among the CPUs this process may use: the servers
 * under test on the last one, the load generator (this process: autocannon runs in it) on the
 * others, so that neither takes the other's core and the scheduler moving them about does not
 * add to the noise. `null` without at least two CPUs or without `taskset` (util-linux): then
 * nothing is pinned. `all` is the list to restore.
 */
export type CpuPlacement = { servers: string; loadGenerator: string; all: string };

export function cpuPlacement(): CpuPlacement | null {
  let output: string;
  try {
    // "pid 123's current affinity list: 0,1" (or "0-3", "2,5-7"): the CPUs this process may use,
    // which in a container need not start at 0.
    output = execFileSync('taskset', ['--cpu-list', '--pid', String(process.pid)], { encoding: 'utf8' });
  } catch {
    return null;
  }
  const all = output.split(':').pop()!.trim();
  const cpus = all.split(',').flatMap((part) => {
    const [first = Number.NaN, last = first] = part.split('-').map(Number);
    return Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => first + i);
  });
  if (cpus.length < 2 || cpus.some((cpu) => !Number.isInteger(cpu))) return null;
  return { servers: String(cpus.at(-1)), loadGenerator: cpus.slice(0, -1).join(','), all };
}

/** Pins every thread of a process (and the threads it starts later) to a CPU list. */
export function pinProcess(pid: number, cpuList: string): void {
  execFileSync('taskset', ['--all-tasks', '--pid', '--cpu-list', cpuList, String(pid)], { stdio: 'ignore' });
}

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
  sharedCluster ??= startPostgresCluster(benchClusterOptions());
  return { url: await createDatabase(await sharedCluster, `bench_${++databaseCount}`) };
}

/**
 * A PostgreSQL cluster of its own, for a benchmark that measures the whole cluster's CPU and WAL:
 * on the shared one, autovacuum still working on an earlier benchmark's tables would count as
 * its own. `stop` deletes it.
 */
export async function ownPostgres(): Promise<{ url: string; stop(): void }> {
  const cluster = await startPostgresCluster(benchClusterOptions());
  try {
    return { url: await createDatabase(cluster, 'bench'), stop: () => cluster.stop() };
  } catch (err) {
    cluster.stop();
    throw err;
  }
}

/**
 * With BENCH_STATEMENTS=1 the bench's clusters load pg_stat_statements (with planning times), and
 * runtime-cost prints where the database's time goes by statement; off by default, as it adds its
 * own small cost to every statement of every benchmark.
 */
const benchClusterOptions = () =>
  process.env.BENCH_STATEMENTS === '1' ? { settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track_planning': 'on' } } : {};

/** Creates database `name` on `cluster`; answers its URL. */
async function createDatabase(cluster: PostgresCluster, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(cluster.url);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function stopBenchPostgres(): Promise<void> {
  if (sharedCluster) (await sharedCluster.catch(() => null))?.stop();
}

/** Median and best of `reps` timed runs (ms), after `warmups` untimed ones. */
export function timeRuns<T>(run: () => T, warmups: number, reps: number): { median: number; best: number; result: T } {
  let result = run();
  for (let i = 1; i < warmups; i++) result = run();
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const started = performance.now();
    result = run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { median: times[times.length >> 1]!, best: times[0]!, result };
}
