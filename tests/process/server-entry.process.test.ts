import { chmodSync, lstatSync, mkdtempSync, readdirSync } from 'node:fs';
import { Agent, get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../server/test/until.ts';
import { freePort, startServer, waitForHealth } from './server-process.ts';

/** A GET over `agent`: its status, whether it reused a kept-alive connection, and the
 * server's Connection header. */
function getOver(agent: Agent, url: string): Promise<{ status: number; reusedSocket: boolean; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const request = httpGet(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, reusedSocket: request.reusedSocket, connection: res.headers.connection }));
    });
    request.on('error', reject);
  });
}

/** Every path under `dir` (itself included) whose mode lets anyone but the owner in. */
function looseModes(dir: string): string[] {
  const loose: string[] = [];
  const visit = (p: string) => {
    const stat = lstatSync(p);
    if ((stat.mode & 0o077) !== 0) loose.push(`${(stat.mode & 0o777).toString(8)} ${path.relative(dir, p) || '.'}`);
    if (stat.isDirectory()) for (const name of readdirSync(p)) visit(path.join(p, name));
  };
  visit(dir);
  return loose;
}

/** Counts what is under `dir` by kind, so a check of modes can be seen to have checked something. */
function countEntries(dir: string): { dirs: number; files: number } {
  const count = { dirs: 0, files: 0 };
  const visit = (p: string) => {
    if (lstatSync(p).isDirectory()) {
      count.dirs++;
      for (const name of readdirSync(p)) visit(path.join(p, name));
    } else count.files++;
  };
  visit(dir);
  return count;
}

describe('server process', () => {
  it('stops at start with a message naming a bad variable', async () => {
    const server = startServer({ PORT: 'eighty' });
    expect(await server.exited).toBe(1);
    expect(server.output()).toMatch(/Invalid configuration:\s+PORT:/);
  });

  // One process serves both: one reads what it logged at start, the other talks to it, then
  // stops it (each start costs seconds of CPU on a loaded machine).
  describe('started with a setting under its old name and a test-only one', () => {
    let port: number;
    let server: ReturnType<typeof startServer>;
    beforeAll(async () => {
      port = await freePort();
      server = startServer({ PORT: String(port), SMTP_FROM: 'alerts@example.com', OUTBOUND_ALLOW_LOOPBACK: 'true' });
      await waitForHealth(`http://127.0.0.1:${port}/api/health`);
    }, 90_000);
    afterAll(() => {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    });

    it('logs a setting given under its old name at start (SMTP_FROM, now MAIL_FROM) and still uses it', async () => {
      // Logged before it listened; read from its pipe, which may come in after the health answer.
      const output = await until(async () => server.output(), (text) => text.includes('SMTP_FROM'));
      const warning = output.split('\n').find((line) => line.includes('SMTP_FROM'));
      expect(JSON.parse(warning!)).toMatchObject({ level: 40, msg: 'SMTP_FROM is deprecated and will stop working: rename it to MAIL_FROM' });
    });

    it('warns once at start that OUTBOUND_ALLOW_LOOPBACK is on, and what it lets users reach', async () => {
      const output = await until(async () => server.output(), (text) => text.includes('OUTBOUND_ALLOW_LOOPBACK'));
      const warnings = output.split('\n').filter((line) => line.includes('OUTBOUND_ALLOW_LOOPBACK'));
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0]!)).toMatchObject({ level: 40, msg: expect.stringMatching(/^OUTBOUND_ALLOW_LOOPBACK is on: .* 127\.0\.0\.0\/8 and ::1/) });
    });

    it('serves on PGlite, then on SIGTERM stops accepting, closes the database and exits 0 within 10 s', async () => {
      const keepAlive = await fetch(`http://127.0.0.1:${port}/api/articles`);
      expect(await keepAlive.json()).toEqual([]);
      // HTTP keep-alive: a second request goes over the first one's connection.
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const first = await getOver(agent, `http://127.0.0.1:${port}/api/health`);
      const second = await getOver(agent, `http://127.0.0.1:${port}/api/articles`);
      agent.destroy();
      expect(first).toMatchObject({ status: 200, reusedSocket: false, connection: 'keep-alive' });
      expect(second).toMatchObject({ status: 200, reusedSocket: true, connection: 'keep-alive' });

      const signalledAt = Date.now();
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      expect(Date.now() - signalledAt).toBeLessThan(10_000);
      expect(server.output()).toContain('shut down cleanly');
      await expect(fetch(`http://127.0.0.1:${port}/api/health`)).rejects.toThrow();
    }, 30_000);
  });

  it('keeps DATA_DIR private: the directory and everything in it readable by the server user only, also one an older version left open', async () => {
    const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'private-')), 'data');
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = { PORT: String(port), DATA_DIR: dataDir, PUBLIC_URL: url, ADMIN_EMAILS: 'admin@example.com' };
    const first = startServer(env);
    await waitForHealth(`${url}/api/health`);
    // Writes: a user (the write-ahead log then holds an email), a session and an article.
    const login = await fetch(`${url}/api/auth/local/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: url },
      body: JSON.stringify({ email: 'admin@example.com', name: 'Admin' }),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
    const article = await fetch(`${url}/api/articles`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: url, cookie },
      body: JSON.stringify({ title: 'Private files', category: 'Security', excerpt: 'Nobody else reads them.', content: 'x'.repeat(60), published: true }),
    });
    expect(article.status).toBe(201);
    expect(lstatSync(dataDir).mode & 0o777).toBe(0o700);
    expect(looseModes(dataDir)).toEqual([]);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(looseModes(dataDir)).toEqual([]);
    const entries = countEntries(dataDir);
    expect(entries.files).toBeGreaterThan(100); // the cluster's files and the session secret
    expect(entries.dirs).toBeGreaterThan(5);

    // A directory an older version made (0755, files 0666) is tightened at the next start.
    const loosen = (p: string) => {
      const stat = lstatSync(p);
      chmodSync(p, stat.isDirectory() ? 0o755 : 0o666);
      if (stat.isDirectory()) for (const name of readdirSync(p)) loosen(path.join(p, name));
    };
    loosen(dataDir);
    expect(looseModes(dataDir).length).toBe(entries.dirs + entries.files);
    const second = startServer(env);
    await waitForHealth(`${url}/api/health`);
    expect(looseModes(dataDir)).toEqual([]);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 120_000);
});
