import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../e2e/support/app-server.ts';

export type PostgresCluster = {
  url: string;
  /** Stops the PostgreSQL server but keeps the cluster, as an outage would (fault tests). */
  halt(mode: 'fast' | 'immediate'): Promise<void>;
  /** Starts the halted server again on the same port and data directory. */
  resume(): Promise<void>;
  /** Stops the server and deletes the cluster. */
  stop(): void;
};

/** Whether startPostgresCluster can run here (script/test installs PostgreSQL when it is missing). */
export const postgresInstalled = (): boolean => postgresBin() !== null;

/** The newest installed PostgreSQL's bin directory (Debian layout), or null. */
function postgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(a) - Number(b));
  return versions.length ? path.join(root, versions.at(-1)!, 'bin') : null;
}

/**
 * A throwaway PostgreSQL cluster in a temporary directory on a free port, as script/test starts
 * one. PostgreSQL refuses to run as root, so as root it runs as the `postgres` OS user. fsync is
 * off: the cluster is deleted afterwards, and benchmarks compare our layer, not the disk.
 * `settings`: more server settings (name: value, no spaces), e.g. a benchmark's
 * shared_preload_libraries.
 */
export async function startPostgresCluster(options: { settings?: Record<string, string> } = {}): Promise<PostgresCluster> {
  const bin = postgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed (Debian package postgresql); script/test installs it');
  const dir = mkdtempSync(path.join(tmpdir(), 'pg-cluster-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString()), Number(execFileSync('id', ['-g', 'postgres']).toString()));
  const commandFor = (tool: string, args: string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args]] : [path.join(bin, tool), args];
  const run = (tool: string, args: string[]) => {
    const result = spawnSync(...commandFor(tool, args), { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${tool} failed: ${result.error?.message ?? (result.stderr || result.stdout)}`);
  };
  // Without blocking this process: a fault test keeps its traffic going meanwhile.
  const runAsync = (tool: string, args: string[]) =>
    new Promise<void>((resolve, reject) => {
      execFile(...commandFor(tool, args), (err, stdout, stderr) => (err ? reject(new Error(`${tool} failed: ${stderr || stdout}`)) : resolve()));
    });
  const port = await freePort();
  const data = path.join(dir, 'data');
  const settings = Object.entries(options.settings ?? {})
    .map(([name, value]) => ` -c ${name}=${value}`)
    .join('');
  const startArgs = ['-D', data, '-l', path.join(dir, 'log'), '-w', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300${settings}`, 'start'];
  let running = false;
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
    run('pg_ctl', startArgs);
    running = true;
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async halt(mode) {
      await runAsync('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
      running = false;
    },
    async resume() {
      await runAsync('pg_ctl', startArgs);
      running = true;
    },
    stop() {
      try {
        if (running) run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
