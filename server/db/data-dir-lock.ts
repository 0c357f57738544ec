import { unlinkSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';

/**
 * The embedded database's directory belongs to one process at a time (docs/decisions/0067):
 * PGlite would open a DATA_DIR another process has open and both would write it, which corrupts
 * it. The process that holds it (the server, or `npm run backup` / `npm run restore` while they
 * work on a stopped server's directory) listens on this Unix socket inside it, which is both the
 * lock (another process that can connect knows it is taken) and the way `npm run backup` asks a
 * running server to hold its database still while the files are copied. Only DATA_DIR's owner
 * can reach it (the directory is 0700).
 */
export const CONTROL_SOCKET = 'server.sock';

/** A Unix socket's path must fit its address (107 bytes on Linux, 103 on macOS). */
const MAX_SOCKET_PATH_CHARS = 103;

export class DataDirInUseError extends Error {
  constructor(dataDir: string) {
    super(
      `DATA_DIR ${dataDir} is in use by another process (a server, or npm run backup or restore): the embedded database belongs to one process at a time. Stop that process, or use another DATA_DIR`,
    );
    this.name = 'DataDirInUseError';
  }
}

/** What the holder does with one command line from a client; it answers on the socket itself. */
export type ControlHandler = (command: string, socket: Socket) => void;

export type DataDirClaim = { release(): Promise<void> };

/**
 * The control socket's path: absolute, or, when that is too long for a socket's address, relative
 * to this process's working directory (the kernel resolves it from there, for the server and for
 * `npm run backup` alike), so a deep DATA_DIR under the app's folder still works. Null when
 * neither fits.
 */
export function controlSocketPath(dataDir: string): string | null {
  const absolute = path.resolve(dataDir, CONTROL_SOCKET);
  if (absolute.length <= MAX_SOCKET_PATH_CHARS) return absolute;
  const relative = path.relative(process.cwd(), absolute);
  return relative.length <= MAX_SOCKET_PATH_CHARS ? relative : null;
}

/** The socket's path, or an error that says why a DATA_DIR this deep cannot be used. */
export function requireControlSocketPath(dataDir: string): string {
  const socketPath = controlSocketPath(dataDir);
  if (socketPath === null) throw new Error(DATA_DIR_TOO_DEEP);
  return socketPath;
}

export const DATA_DIR_TOO_DEEP = `DATA_DIR: its path, absolute or relative to the working directory, must be at most ${MAX_SOCKET_PATH_CHARS - 1 - CONTROL_SOCKET.length} characters (the embedded database's control socket lives in it, and a socket's path is short)`;

/** Whether a process answers on `socketPath`; a file left by a process that died answers nothing. */
function answers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(socketPath);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

/**
 * Takes `dataDir` for this process, or throws DataDirInUseError when another process holds it.
 * A socket file left by a process that died is replaced. Two processes claiming at the same
 * moment cannot both win: binding a path that exists fails.
 */
export async function claimDataDir(dataDir: string, handle: ControlHandler): Promise<DataDirClaim> {
  const socketPath = requireControlSocketPath(dataDir);
  if (await answers(socketPath)) throw new DataDirInUseError(dataDir);
  try {
    unlinkSync(socketPath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const clients = new Set<Socket>();
  const server: Server = createServer((socket) => {
    clients.add(socket);
    socket.once('close', () => clients.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffered = '';
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
        const command = buffered.slice(0, end).trim();
        buffered = buffered.slice(end + 1);
        if (command) handle(command, socket);
      }
      // A client that sends no line break is not one of ours.
      if (buffered.length > 1024) socket.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE' ? new DataDirInUseError(dataDir) : err));
    server.listen(socketPath, () => resolve());
  });
  return {
    async release() {
      for (const client of clients) client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The answer of a holder that cannot do what it is asked while it works on the directory itself. */
export const busyHandler =
  (what: string): ControlHandler =>
  (_command, socket) => {
    socket.end(`error: ${what} (process ${process.pid}) is using DATA_DIR; try again when it is done\n`);
  };

/** Runs `work` while the database is held still: no statement runs, and what it wrote is in its files. */
export type HoldStill = <T>(work: () => Promise<T>) => Promise<T>;

/** The longest a client may hold the database still: a backup that hangs must not stop the site for good. */
export const HOLD_MAX_MS = 10 * 60_000;

/**
 * The server's side of the socket. `hold`: once the database is still, answers `held`, and keeps
 * it so until the client sends `release`, goes away, or HOLD_MAX_MS pass; then answers
 * `released`. Requests meanwhile wait their turn at the database as usual (a long hold answers
 * them 503 with Retry-After). `holdStill` is null until the database is ready.
 */
export function holdHandler(holdStill: () => HoldStill | null, log: { info(obj: object, msg: string): void }, maxMs = HOLD_MAX_MS): ControlHandler {
  const releases = new WeakMap<Socket, () => void>();
  return (command, socket) => {
    if (command === 'release') return releases.get(socket)?.();
    if (command !== 'hold') return void socket.end(`error: unknown command\n`);
    const hold = holdStill();
    if (!hold) return void socket.end('error: the server is starting; try again in a few seconds\n');
    if (releases.has(socket)) return;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    releases.set(socket, release);
    socket.once('close', release);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      release();
    }, maxMs);
    hold(async () => {
      const since = performance.now();
      log.info({}, 'database held still for a copy of DATA_DIR (npm run backup)');
      socket.write('held\n');
      await released;
      log.info({ ms: Math.round(performance.now() - since) }, 'database released after the copy of DATA_DIR');
    })
      .then(() => socket.end(timedOut ? `error: held for the longest allowed, ${maxMs / 1000} s\n` : 'released\n'))
      .catch((err: unknown) => socket.end(`error: ${err instanceof Error ? err.message : String(err)}\n`))
      .finally(() => clearTimeout(timer));
  };
}
