import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from './db/client.ts';
import { inviteCommand } from './invite.ts';

/** What the command printed, line by line. */
function terminal() {
  const lines = { out: [] as string[], err: [] as string[] };
  return { lines, out: { log: (l: string) => lines.out.push(l), error: (l: string) => lines.err.push(l) } };
}

describe('npm run invite (the first admin of a passkey-only install)', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'invite-cli-'));
    env = { NODE_ENV: 'production', SESSION_SECRET: 's'.repeat(32), PUBLIC_URL: 'https://hub.example.com', DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'silent' };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints a one-time link for an admin when SMTP_URL is unset, and stores only its hash', async () => {
    const { lines, out } = terminal();
    expect(await inviteCommand(['Root@Example.com'], env, out)).toBe(0);
    expect(lines.err).toEqual([]);
    const link = lines.out.join('\n').match(/https:\/\/hub\.example\.com\/invite#([A-Za-z0-9_-]{43})/);
    expect(lines.out[0]).toMatch(/^Invite for root@example\.com \(admin\), valid until /);
    const database = await openDatabase({ kind: 'pglite', dataDir: env.DATA_DIR!, maxWaitMs: 2_000 }, pino({ level: 'silent' }));
    try {
      const rows = (await database.db.execute('select email, role, token_hash from invites')) as unknown as { rows: Array<Record<string, string>> };
      expect(rows.rows).toEqual([{ email: 'root@example.com', role: 'admin', token_hash: createHash('sha256').update(link![1]!).digest('hex') }]);
      // While another process holds the embedded database, the command says so and does nothing.
      const busy = terminal();
      expect(await inviteCommand(['second@example.com', 'guest'], env, busy.out)).toBe(1);
      expect(busy.lines.err[0]).toMatch(/is in use by another process.*stop the server, make the invite, and start it again/);
    } finally {
      await database.close();
    }
  }, 60_000);

  it('refuses a bad email or role with the rule, and an install with an identity provider', async () => {
    const bad = terminal();
    expect(await inviteCommand(['not-an-email', 'owner'], env, bad.out)).toBe(2);
    expect(bad.lines.err[0]).toMatch(/email: Enter a valid email address; role: /);
    const google = terminal();
    expect(await inviteCommand(['a@example.com'], { ...env, GOOGLE_CLIENT_ID: 'id', GOOGLE_CLIENT_SECRET: 'secret' }, google.out)).toBe(1);
    expect(google.lines.err[0]).toMatch(/^Passkeys are not offered here/);
  });
});
