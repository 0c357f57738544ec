import { chmodSync, existsSync, readdirSync, renameSync, rmSync, statSync, type Stats } from 'node:fs';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { create as createArchive, extract as extractArchive, list as listArchive, type ReadEntry } from 'tar';
import { makePrivate } from '../lib/private-files.ts';
import { busyHandler, claimDataDir, CONTROL_SOCKET, DataDirInUseError, requireControlSocketPath } from './data-dir-lock.ts';

/**
 * A copy of the embedded database's DATA_DIR as one .tar.gz, and back (docs/decisions/0067).
 * With a server running on DATA_DIR, the server holds its database still (a CHECKPOINT, then no
 * statement) while the files are copied; with none, this process claims the directory so none
 * starts meanwhile. The archive is the directory as it is, `session-secret` included (the key
 * of saved channel secrets when SESSION_SECRET and CHANNEL_SECRET_KEY are not set), so a
 * restore into a new DATA_DIR on any host is the same database with readable channels.
 */

/** A backup or restore that could not be made, with the sentence that says why. */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

/** The file whose presence makes a directory a PostgreSQL data directory. */
const PG_VERSION = 'PG_VERSION';
/** The key file config.ts keeps in DATA_DIR when SESSION_SECRET is not set. */
export const SESSION_SECRET_FILE = 'session-secret';
/** Never copied: the live process's socket, and PGlite's note of the process that had it open. */
const NOT_COPIED = new Set([CONTROL_SOCKET, 'postmaster.pid']);
/** How long a running server may take to hold its database still (it waits for the statement or
 * transaction in progress). */
const HOLD_WAIT_MS = 120_000;

const copied = (entryPath: string, stat?: Stats | ReadEntry) => !NOT_COPIED.has(path.normalize(entryPath)) && !(stat && 'isSocket' in stat && stat.isSocket());

export type BackupReport = { bytes: number; serverRunning: boolean; heldMs: number | null; keyFile: boolean };

export async function backupDataDir(dataDir: string, file: string): Promise<BackupReport> {
  if (!existsSync(path.join(dataDir, PG_VERSION))) throw new BackupError(`DATA_DIR ${dataDir} holds no embedded database to back up`);
  const inside = path.relative(dataDir, file);
  if (!inside.startsWith('..') && !path.isAbsolute(inside)) throw new BackupError(`write the backup outside DATA_DIR (${file} is in it)`);
  let held = await holdRunningServer(dataDir);
  const serverRunning = held !== null;
  const claim = held
    ? null
    : await claimDataDir(dataDir, busyHandler('npm run backup')).catch((err: unknown) => {
        throw err instanceof DataDirInUseError ? new BackupError(`a server started on DATA_DIR ${dataDir} meanwhile: run the backup again`) : err;
      });
  const partial = `${file}.partial`;
  try {
    const since = performance.now();
    // The fastest compression: the time it takes is the time a running server holds its database still.
    await createArchive({ gzip: { level: 1 }, cwd: dataDir, file: partial, portable: true, filter: copied }, ['.']);
    const heldMs = held ? Math.round(performance.now() - since) : null;
    if (held) {
      // Still held all along, or the copy is not one moment's database.
      const answer = await held.release();
      held = null;
      if (answer !== 'released') {
        throw new BackupError(answer ? `the server let its database go before the copy was done (${answer.replace(/^error: /, '')}): run the backup again` : 'the server went away during the copy: run the backup again');
      }
    }
    chmodSync(partial, 0o600);
    renameSync(partial, file);
    return { bytes: statSync(file).size, serverRunning, heldMs, keyFile: existsSync(path.join(dataDir, SESSION_SECRET_FILE)) };
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  } finally {
    await held?.release();
    await claim?.release();
  }
}

export type RestoreReport = { keyFile: boolean };

/** Unpacks a backup into `dataDir`, which must hold nothing yet; no server may run on it. */
export async function restoreDataDir(dataDir: string, file: string): Promise<RestoreReport> {
  if (!existsSync(file)) throw new BackupError(`no backup at ${file}`);
  const entries = new Set<string>();
  await listArchive({ file, onReadEntry: (entry) => void entries.add(path.normalize(entry.path)) }).catch(() => {
    throw new BackupError(`${file} is not a backup made by npm run backup (not a .tar.gz)`);
  });
  if (!entries.has(PG_VERSION)) throw new BackupError(`${file} is not a backup made by npm run backup (no ${PG_VERSION} in it)`);
  makePrivate(dataDir);
  const claim = await claimDataDir(dataDir, busyHandler('npm run restore')).catch((err: unknown) => {
    throw err instanceof DataDirInUseError ? new BackupError(`a server (or another backup or restore) is running on DATA_DIR ${dataDir}: stop it first`) : err;
  });
  try {
    const present = readdirSync(dataDir).filter((name) => name !== CONTROL_SOCKET);
    if (present.length > 0) {
      throw new BackupError(`DATA_DIR ${dataDir} is not empty (${present.slice(0, 3).join(', ')}${present.length > 3 ? ', …' : ''}): restore into a new directory, or move this one aside first`);
    }
    await extractArchive({ file, cwd: dataDir, filter: copied });
    makePrivate(dataDir);
    return { keyFile: existsSync(path.join(dataDir, SESSION_SECRET_FILE)) };
  } finally {
    await claim.release();
  }
}

/** Asks the server running on `dataDir` to hold its database still; null when none runs. */
async function holdRunningServer(dataDir: string): Promise<{ release(): Promise<string> } | null> {
  const socket = await new Promise<Socket | null>((resolve) => {
    const s = connect(requireControlSocketPath(dataDir));
    s.once('connect', () => resolve(s));
    s.once('error', () => resolve(null));
  });
  if (!socket) return null;
  const lines = readLines(socket);
  socket.write('hold\n');
  const answer = await Promise.race([lines.next(), new Promise<string>((resolve) => setTimeout(() => resolve('timeout'), HOLD_WAIT_MS).unref())]);
  if (answer !== 'held') {
    socket.destroy();
    if (answer === 'timeout') throw new BackupError(`the server on DATA_DIR ${dataDir} did not hold its database still within ${HOLD_WAIT_MS / 1000} s: try again`);
    throw new BackupError(answer.startsWith('error: ') ? `the server on DATA_DIR ${dataDir} refused: ${answer.slice('error: '.length)}` : `the server on DATA_DIR ${dataDir} did not answer`);
  }
  return {
    /** Lets the database go; answers the server's last word ('released', an error, or '' when it went away). */
    async release() {
      socket.write('release\n');
      const answer = await lines.next();
      socket.destroy();
      return answer;
    },
  };
}

/** The socket's lines, one per call; '' once it has closed. */
function readLines(socket: Socket): { next(): Promise<string> } {
  const ready: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  let buffered = '';
  let closed = false;
  const push = (line: string) => {
    const waiter = waiting.shift();
    if (waiter) waiter(line);
    else ready.push(line);
  };
  socket.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
      push(buffered.slice(0, end).trim());
      buffered = buffered.slice(end + 1);
    }
  });
  socket.on('error', () => socket.destroy());
  socket.on('close', () => {
    closed = true;
    while (waiting.length > 0) waiting.shift()!('');
  });
  return {
    next: () => (ready.length > 0 ? Promise.resolve(ready.shift()!) : closed ? Promise.resolve('') : new Promise((resolve) => waiting.push(resolve))),
  };
}
