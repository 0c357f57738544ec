import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TSaveConversation } from '../../contracts/chat-history.ts';
import { startChannelReceivers, type ChannelReceivers } from '../fakes/channel-receivers.ts';
import { freePort, runNode, startServer, waitForHealth, type ChildProcessRun } from './server-process.ts';

const ADMIN = 'backup-admin@example.com';
const GUEST = 'backup-guest@example.com';

/** `npm run backup -- <file>` / `npm run restore -- <file>` as package.json runs them. */
async function backupCommand(command: 'backup' | 'restore', file: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const run = runNode('server/backup.ts', [command, file], env);
  const code = await run.exited;
  return { code, output: run.output() };
}

/** A server process on `dataDir`, answering at `url` once healthy. */
async function serve(dataDir: string, env: Record<string, string> = {}): Promise<{ url: string; server: ChildProcessRun; stop(): Promise<void> }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = startServer({ PORT: String(port), PUBLIC_URL: url, DATA_DIR: dataDir, ADMIN_EMAILS: ADMIN, OUTBOUND_ALLOW_LOOPBACK: 'true', ...env });
  await waitForHealth(`${url}/api/health`).catch((err: unknown) => {
    throw new Error(`${String(err)}\n${server.output()}`);
  });
  return {
    url,
    server,
    async stop() {
      if (server.child.exitCode !== null) return;
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    },
  };
}

/** A signed-in client of one server: JSON in and out, with our Origin. */
async function client(url: string, email: string) {
  const login = await fetch(`${url}/api/auth/local/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ email, name: email.split('@')[0] }),
  });
  expect(login.status).toBe(200);
  const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
  return async <T>(method: string, pathname: string, body?: unknown): Promise<{ status: number; json: T }> => {
    const res = await fetch(`${url}${pathname}`, {
      method,
      headers: { cookie, origin: url, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: (text ? JSON.parse(text) : null) as T };
  };
}

const CHAT: TSaveConversation = {
  id: 'chat-1746000000001-backupx',
  provider: 'deepseek',
  title: 'What the backup keeps',
  model: 'deepseek-chat',
  leafId: 'backup-a',
  updatedAt: '2025-05-01T10:01:00.000Z',
  messages: [
    { id: 'backup-q', parentId: null, role: 'user', content: 'Is this chat in the backup?', timestamp: '2025-05-01T10:00:00.000Z' },
    { id: 'backup-a', parentId: 'backup-q', role: 'assistant', content: 'Yes, with every message.', timestamp: '2025-05-01T10:01:00.000Z', model: 'deepseek-chat' },
  ],
};

/** What a restored server must show: both users, the article, the chat with its messages, and the channel, whose secret opens. */
async function expectTheData(url: string, receivers: ChannelReceivers, channelId: string) {
  const admin = await client(url, ADMIN);
  const users = await admin<Array<{ email: string; role: string }>>('GET', '/api/users');
  expect(users.json.map((u) => [u.email, u.role]).sort()).toEqual([
    [ADMIN, 'admin'],
    [GUEST, 'guest'],
  ]);
  expect((await (await fetch(`${url}/api/articles`)).json()) as Array<{ title: string }>).toMatchObject([{ title: 'Kept through a restore' }]);
  const chat = await admin<{ title: string; messages: Array<{ content: string }> }>('GET', `/api/chat/conversations/${CHAT.id}`);
  expect(chat.status).toBe(200);
  expect(chat.json.title).toBe(CHAT.title);
  expect(chat.json.messages.map((m) => m.content)).toEqual(['Is this chat in the backup?', 'Yes, with every message.']);
  const before = receivers.receipts.length;
  const test = await admin<{ status: string; error?: string }>('POST', `/api/channels/${channelId}/test`);
  expect(test.json).toEqual({ status: 'sent' });
  expect(receivers.receipts.slice(before)).toMatchObject([{ kind: 'slack', name: 'backup', verdict: 'ok' }]);
}

describe('npm run backup and npm run restore (the embedded database)', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'backup-'));
  const original = path.join(work, 'original');
  const live = path.join(work, 'live.tar.gz');
  let receivers: ChannelReceivers;
  let channelId: string;
  let first: Awaited<ReturnType<typeof serve>>;

  beforeAll(async () => {
    receivers = await startChannelReceivers({ tls: false });
    // No SESSION_SECRET: the key of channel secrets is the session-secret file in DATA_DIR.
    first = await serve(original);
    const admin = await client(first.url, ADMIN);
    await client(first.url, GUEST);
    expect((await admin('POST', '/api/articles', { title: 'Kept through a restore', category: 'Operations', excerpt: 'Backed up and restored.', content: 'x'.repeat(60), published: true })).status).toBe(201);
    expect((await admin('POST', '/api/chat/conversations', CHAT)).status).toBe(201);
    const channel = await admin<{ id: string }>('POST', '/api/channels', { kind: 'slack', name: 'Team', url: `${receivers.origin}/slack/backup` });
    expect(channel.status).toBe(201);
    channelId = channel.json.id;
    expect((await admin<{ status: string }>('POST', `/api/channels/${channelId}/test`)).json).toEqual({ status: 'sent' });
  }, 120_000);
  afterAll(async () => {
    if (first?.server.child.exitCode === null) first.server.child.kill('SIGKILL');
    await receivers?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('backs up while the server runs (it holds its database still for the copy), and refuses a restore onto the running server', async () => {
    const backup = await backupCommand('backup', live, { DATA_DIR: original });
    expect(backup.output).toMatch(/Backed up DATA_DIR .* \(\d+\.\d MB; the server running on it held its database still for \d+\.\d s\)/);
    expect(backup.code).toBe(0);
    expect(statSync(live).mode & 0o777).toBe(0o600);
    // The server went on serving, and logged the hold.
    expect((await fetch(`${first.url}/api/health`)).status).toBe(200);
    expect(first.server.output()).toContain('database held still for a copy of DATA_DIR');

    const onto = await backupCommand('restore', live, { DATA_DIR: original });
    expect(onto.code).toBe(1);
    expect(onto.output).toMatch(/Restore refused: a server \(or another backup or restore\) is running on DATA_DIR .*: stop it first/);
    // A second server on the same DATA_DIR would corrupt it: refused at start.
    const port = await freePort();
    const second = startServer({ PORT: String(port), DATA_DIR: original });
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain(`Server failed to start: DATA_DIR ${original} is in use by another process`);
  }, 120_000);

  it('restores into a new DATA_DIR: a server started on it has the users, the article, the chat, and a channel whose secret still opens', async () => {
    const restored = path.join(work, 'restored');
    const restore = await backupCommand('restore', live, { DATA_DIR: restored });
    expect(restore.output).toContain(`Restored ${live} into DATA_DIR ${restored}`);
    expect(restore.code).toBe(0);
    // The key travelled with the data.
    expect(readFileSync(path.join(restored, 'session-secret'), 'utf8')).toBe(readFileSync(path.join(original, 'session-secret'), 'utf8'));
    const again = await backupCommand('restore', live, { DATA_DIR: restored });
    expect(again.code).toBe(1);
    expect(again.output).toMatch(/DATA_DIR .* is not empty .*: restore into a new directory, or move this one aside first/);

    const server = await serve(restored);
    try {
      await expectTheData(server.url, receivers, channelId);
    } finally {
      await server.stop();
    }
  }, 120_000);

  it('backs up a stopped server too; restored elsewhere without the key file, its channels open with CHANNEL_SECRET_KEY set to that key', async () => {
    await first.stop();
    const stopped = path.join(work, 'stopped.tar.gz');
    const backup = await backupCommand('backup', stopped, { DATA_DIR: original });
    expect(backup.output).toContain('no server was running on it');
    expect(backup.code).toBe(0);

    // As if only the database had moved (a pg_dump, or a copy without DATA_DIR/session-secret).
    const elsewhere = path.join(work, 'elsewhere');
    expect((await backupCommand('restore', stopped, { DATA_DIR: elsewhere })).code).toBe(0);
    rmSync(path.join(elsewhere, 'session-secret'));
    const server = await serve(elsewhere, { CHANNEL_SECRET_KEY: readFileSync(path.join(original, 'session-secret'), 'utf8').trim() });
    try {
      await expectTheData(server.url, receivers, channelId);
    } finally {
      await server.stop();
    }
    expect(existsSync(path.join(elsewhere, 'server.sock'))).toBe(false);
  }, 120_000);

  it('says what to use for PostgreSQL, and refuses a backup inside DATA_DIR and a file that is not a backup', async () => {
    const postgres = await backupCommand('backup', path.join(work, 'pg.tar.gz'), { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    expect(postgres.code).toBe(1);
    expect(postgres.output).toContain('the database is PostgreSQL, which pg_dump backs up and pg_restore restores');
    const inside = await backupCommand('backup', path.join(original, 'in-here.tar.gz'), { DATA_DIR: original });
    expect(inside.code).toBe(1);
    expect(inside.output).toContain('write the backup outside DATA_DIR');
    expect(existsSync(path.join(original, 'in-here.tar.gz'))).toBe(false);
    const notBackup = await backupCommand('restore', path.join(original, 'PG_VERSION'), { DATA_DIR: path.join(work, 'nothing') });
    expect(notBackup.code).toBe(1);
    expect(notBackup.output).toContain('is not a backup made by npm run backup');
  }, 60_000);
});
