import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { ROOT_DIR, stopChild } from '../tests/e2e/support/app-server.ts';
import { cpuMs, sleep } from './lib.ts';

/** The agents runtime's benchmarks (agents-scale, runtime-cost): workers, the cluster's CPU and WAL. */

/** CPU time of the whole PostgreSQL cluster so far: the postmaster, its live children and the reaped ones. */
export function postgresCpuMs(postmaster: number): number {
  let total = cpuMs(postmaster, true);
  for (const pid of postgresChildren(postmaster)) total += cpuMs(pid);
  return total;
}

export type PostgresCpuKinds = { backends: number; autovacuum: number; background: number; exited: number };

/**
 * The cluster's CPU so far by kind of process: the sessions serving clients, autovacuum's
 * workers and launcher, the other background processes (WAL writer, checkpointer...), and the
 * postmaster with its children that have exited (a vacuum worker that finished is counted there).
 */
export function postgresCpuByKind(postmaster: number): PostgresCpuKinds {
  const kinds: PostgresCpuKinds = { backends: 0, autovacuum: 0, background: 0, exited: cpuMs(postmaster, true) };
  for (const pid of postgresChildren(postmaster)) {
    let title: string;
    try {
      title = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue; // exited meanwhile: in the postmaster's figure
    }
    const kind = /autovacuum/.test(title) ? 'autovacuum' : /postgres: \S+ \S+ (\[local\]|[\d.:]+\(\d+\))/.test(title) ? 'backends' : 'background';
    kinds[kind] += cpuMs(pid);
  }
  return kinds;
}

/** The postmaster's live children: backends, the checkpointer, the WAL writer, autovacuum. */
export function postgresChildren(postmaster: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      if (ppid === postmaster) children.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return children;
}

/** The cluster's postmaster, from its data directory (null: not readable here, e.g. another OS user's). */
export async function postmasterOf(client: pg.Client): Promise<number | null> {
  const dataDirectory = (await client.query<{ data_directory: string }>('show data_directory')).rows[0]!.data_directory;
  try {
    return Number(readFileSync(path.join(dataDirectory, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return null;
  }
}

/** WAL written by the whole cluster so far, in bytes from its start (pg_current_wal_lsn). */
export async function walBytes(client: pg.Client): Promise<number> {
  return Number((await client.query<{ bytes: string }>(`select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text as bytes`)).rows[0]!.bytes);
}

export type Worker = { child: ChildProcess; pid: number; output(): string };

/**
 * `npm run worker` as a child process (from `root`: this checkout, or the reference's tree),
 * resolved once it has logged that it is ready. `cpuList` pins it (taskset) from its start.
 */
export async function startWorker(env: Record<string, string>, options: { root?: string; cpuList?: string } = {}): Promise<Worker> {
  // BENCH_CPU_PROF=<dir>: each worker writes a V8 CPU profile there when it stops.
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const node = [process.execPath, ...prof, 'server/worker.ts'];
  const [command, ...args] = options.cpuList ? ['taskset', '--cpu-list', options.cpuList, ...node] : node;
  const child = spawn(command!, args, { cwd: options.root ?? ROOT_DIR, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env, LOG_LEVEL: 'info' } });
  let output = '';
  let ready = false;
  const keep = (d: Buffer) => {
    output = (output + d.toString()).slice(-20_000);
    if (!ready && output.includes('"msg":"worker ready"')) ready = true;
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const deadline = Date.now() + 60_000;
  while (!ready) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stopChild(child);
      throw new Error(`the worker did not start:\n${output}`);
    }
    await sleep(100);
  }
  return { child, pid: child.pid!, output: () => output };
}

/**
 * The server's sources at an earlier commit, to run as the reference of a before/after
 * measurement in the same bench run: `git archive` of what a worker needs (server with its
 * migrations, contracts, package.json) in a temporary directory, with this checkout's node_modules.
 * Null (with the reason) when the commit is not in this clone (a shallow clone).
 */
export function sourcesAt(commit: string): { root: string; remove(): void } | { missing: string } {
  try {
    execFileSync('git', ['cat-file', '-e', `${commit}^{commit}`], { cwd: ROOT_DIR, stdio: 'ignore' });
  } catch {
    return { missing: `commit ${commit} is not in this clone (a shallow clone?)` };
  }
  const root = mkdtempSync(path.join(tmpdir(), 'bench-reference-'));
  const archive = execFileSync('git', ['archive', '--format=tar', commit, 'server', 'contracts', 'package.json'], { cwd: ROOT_DIR, maxBuffer: 256 * 1024 * 1024 });
  execFileSync('tar', ['-x', '-C', root], { input: archive });
  symlinkSync(path.join(ROOT_DIR, 'node_modules'), path.join(root, 'node_modules'));
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}
