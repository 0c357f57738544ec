import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate } from '../../contracts/agents.ts';
import type { TNotificationList } from '../../contracts/notifications.ts';
import { loadConfig } from '../../server/config.ts';
import { until } from '../../server/test/until.ts';
import { ADMIN_EMAIL } from '../e2e/support/constants.ts';
import { freePort, ROOT_DIR, startAppServer, startWorkerProcess, type AppServer, type WorkerProcess } from '../e2e/support/app-server.ts';
import { startFakeAiProviders, type FakeAiProviders } from '../fakes/ai-providers.ts';
import { nginxInstalled, siteForTest, startNginx, type Nginx } from '../support/nginx.ts';
import { postgresInstalled, startPostgresCluster, type PostgresCluster } from '../support/postgres-cluster.ts';
import { selfSignedCert } from '../support/self-signed-cert.ts';
import { proxyClient, sessionCookie, type Answer, type ProxyClient } from './proxy-client.ts';

/**
 * Issue 20: the production path of docs/operator/deployment.md, built for real. Debian's nginx runs the shipped
 * site file (deploy/nginx/axiom.conf, only its host names replaced: see siteForTest) with a
 * self-signed certificate in front of two web processes (RUN_WORKERS=false) and one worker
 * (`npm run worker`), all on a throwaway PostgreSQL, with PUBLIC_URL https and TRUST_PROXY=true
 * as the deployment guide's environment file sets them. Everything is asked through nginx, as a browser
 * would; nginx's access log (the test's X-Probe header and the upstream it chose) tells which
 * web process answered.
 */

const SITE_FILE = path.join(ROOT_DIR, 'deploy/nginx/axiom.conf');
const SERVER_NAME = 'localhost';
/** Per web process and client address (the test's sign-in limit), low enough to reach. */
const SIGN_IN_LIMIT = 3;

const missing = [
  !nginxInstalled() && 'nginx (Debian package nginx)',
  !postgresInstalled() && 'PostgreSQL (Debian package postgresql)',
].filter(Boolean);
const title = 'production path: nginx with TLS in front of two web processes and a worker on PostgreSQL';
const describeIfInstalled = describe.skipIf(missing.length > 0);

describeIfInstalled(missing.length > 0 ? `${title} (skipped: ${missing.join(' and ')} not installed; script/test installs them as root)` : title, () => {
  let cluster: PostgresCluster;
  let ai: FakeAiProviders;
  let web: AppServer[] = [];
  let worker: WorkerProcess;
  let nginx: Nginx;
  let client: ProxyClient;
  let files: string;
  let httpPort: number;
  let publicUrl: string;
  let signInAnswer: Answer;
  let cookie: string;
  let webEnv: Record<string, string>;
  const webAddress = (server: AppServer) => `127.0.0.1:${new URL(server.url).port}`;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    ai = await startFakeAiProviders();
    const httpsPort = await freePort();
    httpPort = await freePort();
    publicUrl = `https://${SERVER_NAME}:${httpsPort}`;
    const env = {
      NODE_ENV: 'production',
      ALLOW_LOCAL_AUTH: 'true',
      AUTH_PROVIDER: 'local',
      ADMIN_EMAILS: ADMIN_EMAIL,
      SESSION_SECRET: randomBytes(32).toString('hex'),
      DATABASE_URL: cluster.url,
      PUBLIC_URL: publicUrl,
      TRUST_PROXY: 'true',
      MARKET_DATA: 'simulated',
      SIGN_IN_RATE_LIMIT: String(SIGN_IN_LIMIT),
      CHAT_RATE_LIMIT: '1000',
      CHAT_DAILY_TOKEN_BUDGET: '0',
      DISPATCH_INTERVAL_MS: '200',
      ...ai.env,
    };
    // All three start at once, as systemd starts them: migrations run once, under the advisory lock.
    webEnv = { ...env, RUN_WORKERS: 'false' };
    [web, worker] = await Promise.all([
      Promise.all([startAppServer({ env: webEnv }), startAppServer({ env: webEnv })]),
      startWorkerProcess(env),
    ]);

    files = mkdtempSync(path.join(tmpdir(), 'production-path-'));
    chmodSync(files, 0o755); // nginx's workers read the client's files
    const { cert, key } = selfSignedCert([SERVER_NAME, '127.0.0.1']);
    writeFileSync(path.join(files, 'cert.pem'), cert);
    writeFileSync(path.join(files, 'key.pem'), key, { mode: 0o600 });
    // A built client's hashed file and its precompressed twin, as `npm run build` leaves them.
    mkdirSync(path.join(files, 'client/assets'), { recursive: true, mode: 0o755 });
    writeFileSync(path.join(files, 'client/assets/probe-4f2a9c1d.js'), ASSET, { mode: 0o644 });
    writeFileSync(path.join(files, 'client/assets/probe-4f2a9c1d.js.gz'), gzipSync(ASSET), { mode: 0o644 });

    const site = siteForTest(readFileSync(SITE_FILE, 'utf8'), {
      httpsPort,
      httpPort,
      serverName: SERVER_NAME,
      certFile: path.join(files, 'cert.pem'),
      keyFile: path.join(files, 'key.pem'),
      upstreamPorts: web.map((w) => Number(new URL(w.url).port)),
      assetsRoot: path.join(files, 'client'),
    });
    nginx = await startNginx(site, [httpsPort, httpPort]);
    client = proxyClient({ port: httpsPort, serverName: SERVER_NAME, ca: cert, origin: publicUrl });

    signInAnswer = await client.ask('/api/auth/local/login', { method: 'POST', body: JSON.stringify({ email: ADMIN_EMAIL, name: 'Operator' }) });
    if (signInAnswer.status !== 200) throw new Error(`sign-in through nginx answered ${signInAnswer.status}: ${signInAnswer.body}\n${nginx.errorLog()}`);
    cookie = sessionCookie(signInAnswer).cookie;
  }, 120_000);

  afterAll(async () => {
    client?.close();
    await nginx?.stop();
    await Promise.all([...web.map((w) => w.stop()), worker?.stop()]);
    await ai?.close();
    cluster?.stop();
    if (files) rmSync(files, { recursive: true, force: true });
  }, 60_000);

  /** nginx's access log line for each probe (the X-Probe header the test sent) logged so far. */
  const loggedProbes = () => new Map(nginx.accessLog().filter((l) => l.probe).map((l) => [l.probe, l]));
  /** The same, once every probe in `probes` is there: nginx logs a request after its answer is sent. */
  const logged = async (probes: string[]) =>
    until(async () => loggedProbes(), (lines) => probes.every((p) => lines.has(p)), 10_000);

  it('serves the shipped site: TLS with HTTP/2, http redirected to https, hashed files from disk cached a year, 1 MB bodies (documents: more)', async () => {
    const h2 = await client.http2Get('/api/health/ready');
    expect(h2.alpn).toBe('h2');
    expect(h2.status).toBe(200);
    expect(JSON.parse(h2.body)).toEqual({ status: 'ready', checks: { database: 'ok' } });
    expect(JSON.parse((await client.ask('/api/health/live')).body)).toEqual({ status: 'ok' });

    const plain = await new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
      httpGet({ host: '127.0.0.1', port: httpPort, path: '/agents-console?tab=all', headers: { host: SERVER_NAME } }, (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, location: res.headers.location });
      }).on('error', reject);
    });
    expect(plain).toEqual({ status: 301, location: `https://${SERVER_NAME}/agents-console?tab=all` });

    const asset = await client.ask('/assets/probe-4f2a9c1d.js', { headers: { 'accept-encoding': 'gzip', 'x-probe': 'asset' } });
    expect(asset.status).toBe(200);
    expect(asset.headers['content-encoding']).toBe('gzip');
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(gunzipSync(asset.raw).toString()).toBe(ASSET);
    // A hashed file that is not there (an old page after an upgrade) is the app's JSON 404.
    const gone = await client.ask('/assets/gone-00000000.js', { headers: { 'x-probe': 'gone-asset' } });
    expect(gone.status).toBe(404);
    expect(JSON.parse(gone.body)).toMatchObject({ error: 'Not Found' });
    expect((await logged(['gone-asset'])).get('gone-asset')?.upstreams).toHaveLength(1);

    const tooLarge = await client.ask('/api/auth/user', { method: 'POST', headers: { cookie }, body: JSON.stringify({ padding: 'x'.repeat(1_100_000) }) });
    expect(tooLarge.status).toBe(413);
    // A document is the other exception: its raw bytes, past 1 MB, reach the server (issue 32).
    const paragraph = `${'A long report, read behind nginx. '.repeat(30)}\n\n`;
    const document = await client.ask('/api/documents?name=long-report.txt', {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/octet-stream' },
      body: paragraph.repeat(Math.ceil((2 * 1024 * 1024) / paragraph.length)),
    });
    expect(document.status, document.body.slice(0, 300)).toBe(201);
    expect(JSON.parse(document.body)).toMatchObject({ name: 'long-report.txt', type: 'text', status: 'ready' });
  }, 30_000);

  it('sign-in sets the __Host- secure cookie, and both web processes know the session', async () => {
    const { line } = sessionCookie(signInAnswer);
    const attributes = line.split(';').map((a) => a.trim());
    expect(attributes[0]).toMatch(/^__Host-sid=[A-Za-z0-9_-]{20,}$/);
    expect(attributes).toEqual(expect.arrayContaining(['Path=/', 'HttpOnly', 'Secure', 'SameSite=Lax']));
    expect(attributes.some((a) => /^domain=/i.test(a))).toBe(false);

    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await client.ask('/api/auth/me', { headers: { cookie, 'x-probe': `me-${i}` } }));
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ user: { email: ADMIN_EMAIL, role: 'admin' } });
    }
    const lines = await logged(answers.map((_, i) => `me-${i}`));
    const servedBy = new Set(answers.map((_, i) => lines.get(`me-${i}`)?.upstreams.at(-1)));
    expect([...servedBy].sort()).toEqual(web.map(webAddress).sort());
  }, 30_000);

  it('a chat answer streams through nginx piece by piece, not buffered to the end', async () => {
    // The fake provider sends the answer's first piece and holds the rest until released: the
    // first piece can reach us only if nothing on the way buffers.
    const held = ai.holdAfterFirstChunk();
    const chat = client.stream('/api/openai/chat', {
      method: 'POST',
      headers: { cookie },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'streamed through nginx' }] }),
    });
    try {
      expect(await within(chat.response, 15_000, 'the chat answer did not begin: something on the way buffers it')).toBe(200);
      await chat.next((e) => e.event === 'delta');
      expect(chat.events.filter((e) => e.event === 'delta')).toHaveLength(1);
      expect(chat.ended).toBe(false);
    } finally {
      held.release();
    }
    await chat.finished;
    const deltas = chat.events.filter((e) => e.event === 'delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((e) => (e.data as { text: string }).text).join('')).toBe('Reply to: streamed through nginx');
    expect(chat.events.at(-1)?.event).toBe('done');
  }, 30_000);

  it('run now executes on the worker, and its notification reaches the live console through nginx', async () => {
    const events = client.stream('/api/events', { headers: { cookie } });
    try {
      expect(await events.response).toBe(200);
      const template = findTemplate('crypto-market-monitor')!;
      const config = defaultAgentConfig(template);
      // Alerts on any move of the simulated market, in the app only.
      config.notifications = { ...config.notifications, email: false, inApp: true, thresholds: [{ type: 'priceChange', value: 0, message: 'Price moved' }] };
      const created = await client.ask('/api/agents', { method: 'POST', headers: { cookie }, body: JSON.stringify({ templateId: template.id, name: 'Behind nginx', config }) });
      expect(created.status).toBe(201);
      const agentId = (JSON.parse(created.body) as { id: string }).id;

      const queued = await client.ask(`/api/agents/${agentId}/run`, { method: 'POST', headers: { cookie }, body: '{}' });
      expect(queued.status).toBe(202);
      const { runId } = JSON.parse(queued.body) as { runId: number };
      // The web processes run no workers (RUN_WORKERS=false): only the worker can finish it.
      const finished = await events.next((e) => e.event === 'run' && (e.data as { action: string; runId: number }).action === 'finished' && (e.data as { runId: number }).runId === runId, 30_000);
      expect(finished.data).toMatchObject({ agentId, runId });
      const notified = await events.next((e) => e.event === 'notification' && (e.data as { action: string; agentId: string }).action === 'created' && (e.data as { agentId: string }).agentId === agentId);
      const notificationId = (notified.data as { notificationId: string }).notificationId;

      const runs = JSON.parse((await client.ask(`/api/agents/${agentId}/runs`, { headers: { cookie } })).body) as Array<{ id: number; status: string }>;
      expect(runs.find((r) => r.id === runId)?.status).toBe('success');
      const bell = JSON.parse((await client.ask('/api/notifications?limit=20', { headers: { cookie } })).body) as TNotificationList;
      expect(bell.notifications.map((n) => n.id)).toContain(notificationId);
    } finally {
      events.close();
    }
  }, 60_000);

  it("the sign-in limit counts each client's address as nginx saw it; a forged X-Forwarded-For does not reset it", async () => {
    const attempt = (from: string, probe: string, forged?: string) =>
      client.ask('/api/auth/local/login', {
        method: 'POST',
        from,
        headers: { 'x-probe': probe, ...(forged ? { 'x-forwarded-for': forged, 'x-real-ip': forged } : {}) },
        body: JSON.stringify({ email: 'limited@example.com', name: 'Limited' }),
      });
    const answers: Answer[] = [];
    // Each attempt claims to come from a new address; nginx appends the real one (127.0.0.2).
    for (let i = 0; i < 10; i++) answers.push(await attempt('127.0.0.2', `limit-${i}`, `198.51.100.${i}, 203.0.113.${i}`));
    const statuses = answers.map((a) => a.status);
    expect(statuses.every((s) => s === 200 || s === 429), `statuses: ${statuses.join(' ')}`).toBe(true);
    // Each web process counts on its own (SECURITY.md): at most the limit per process got through.
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(SIGN_IN_LIMIT * web.length);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(10 - SIGN_IN_LIMIT * web.length);
    // The app's own refusal (JSON with Retry-After), not nginx's.
    for (const a of refused) {
      expect(JSON.parse(a.body)).toMatchObject({ error: 'Too Many Requests' });
      expect(Number(a.headers['retry-after'])).toBeGreaterThan(0);
    }
    const lines = await logged(answers.map((_, i) => `limit-${i}`));
    expect(new Set(answers.map((_, i) => lines.get(`limit-${i}`)?.client))).toEqual(new Set(['127.0.0.2']));

    // Another client, the same forged header: counted apart, by its own address.
    expect((await attempt('127.0.0.3', 'limit-other', '198.51.100.0')).status).toBe(200);
  }, 30_000);

  type Sent = { probe: string; sentAt: number; endedAt: number; answer: Answer };

  /** Signed-in reads through nginx from 8 clients at once, as fast as they are answered, until stopped. */
  function steadyLoad(name: string) {
    const sent: Sent[] = [];
    let running = true;
    let n = 0;
    const loops = Array.from({ length: 8 }, async () => {
      while (running) {
        const probe = `${name}-${n++}`;
        const sentAt = performance.now();
        const answer = await client.ask('/api/auth/me', { headers: { cookie, 'x-probe': probe } });
        sent.push({ probe, sentAt, endedAt: performance.now(), answer });
      }
    });
    return {
      sent,
      /** Waits until requests sent after `from` have been answered by `address`. */
      servedBy: (address: string, from: number) =>
        until(
          async () => {
            const lines = loggedProbes();
            return sent.some((s) => s.sentAt > from && lines.get(s.probe)?.upstreams.at(-1) === address);
          },
          Boolean,
          30_000,
        ),
      async stop(): Promise<Sent[]> {
        running = false;
        await Promise.all(loops);
        return sent;
      },
    };
  }

  const problems = (list: Sent[]) => list.filter((s) => s.answer.status !== 200).map((s) => `${s.probe}: ${s.answer.status} ${s.answer.error ?? s.answer.body.slice(0, 200)}`);

  it('a web process restarted under load (SIGTERM, then started again on its port, as an upgrade does): no request fails, and it serves again', async () => {
    const restarting = web[1]!;
    const port = Number(new URL(restarting.url).port);
    const load = steadyLoad('restart');
    const start = performance.now();
    await Promise.all(web.map((w) => load.servedBy(webAddress(w), start)));
    const exited = new Promise<number | null>((resolve) => restarting.child.once('exit', (code) => resolve(code)));
    restarting.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    await restarting.stop(); // its temporary directory
    web[1] = await startAppServer({ env: webEnv, port });
    const upAt = performance.now();
    // nginx leaves it out for fail_timeout (10 s) after the refusals it met, then sends it traffic again.
    await load.servedBy(webAddress(web[1]), upAt);
    const sent = await load.stop();
    expect(problems(sent)).toEqual([]);
    for (const s of sent) expect(JSON.parse(s.answer.body)).toMatchObject({ user: { email: ADMIN_EMAIL } });
  }, 120_000);

  it('a web process killed mid-load: the other serves on, and no request fails beyond those in flight on the killed one', async () => {
    const [killed, survivor] = web as [AppServer, AppServer];
    const load = steadyLoad('kill');
    const start = performance.now();
    await Promise.all(web.map((w) => load.servedBy(webAddress(w), start)));
    const exited = new Promise<void>((resolve) => killed.child.once('exit', () => resolve()));
    const killedAt = performance.now();
    killed.child.kill('SIGKILL');
    await exited;
    await until(async () => load.sent.filter((s) => s.sentAt > killedAt).length, (count) => count >= 80, 30_000);
    const sent = await load.stop();

    const lines = await logged(sent.filter((s) => s.answer.status !== 'no answer').map((s) => s.probe));
    const upstreams = (s: Sent) => lines.get(s.probe)?.upstreams ?? [];
    // In flight on the killed process: sent before the kill, not answered by then, and handed to it.
    const inFlightOnKilled = new Set(
      sent.filter((s) => s.sentAt <= killedAt && s.endedAt >= killedAt && (upstreams(s).length === 0 || upstreams(s).includes(webAddress(killed)))).map((s) => s.probe),
    );
    expect(problems(sent.filter((s) => !inFlightOnKilled.has(s.probe)))).toEqual([]);
    for (const s of sent.filter((x) => x.answer.status === 200)) expect(JSON.parse(s.answer.body)).toMatchObject({ user: { email: ADMIN_EMAIL } });

    // After the kill, every answer came from the survivor.
    const after = sent.filter((s) => s.sentAt > killedAt);
    expect(after.every((s) => s.answer.status === 200 && upstreams(s).at(-1) === webAddress(survivor))).toBe(true);
    // nginx did hand requests to the dead process, and moved each to the survivor (GETs are retried).
    expect(sent.some((s) => upstreams(s).join(' ') === `${webAddress(killed)} ${webAddress(survivor)}`)).toBe(true);
  }, 90_000);

  it("a worker's health without a web server: its port, and npm run worker:health", async () => {
    const port = new URL(worker.healthUrl).port;
    const ready = await fetch(`${worker.healthUrl}/api/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', jobQueue: 'ok' } });
    const healthCommand = (args: string[] = [], env: Record<string, string> = { WORKER_HEALTH_PORT: port }) =>
      spawnSync(process.execPath, ['server/worker-health.ts', ...args], { cwd: ROOT_DIR, encoding: 'utf8', env: { PATH: process.env.PATH, HOST: '127.0.0.1', ...env } });
    const npmScript = spawnSync('npm', ['run', '--silent', 'worker:health'], { cwd: ROOT_DIR, encoding: 'utf8', env: { ...process.env, HOST: '127.0.0.1', WORKER_HEALTH_PORT: port } });
    expect(npmScript.status, npmScript.stderr).toBe(0);
    expect(npmScript.stdout).toContain('"status":"ready"');
    expect(healthCommand(['--live']).status).toBe(0);
    const unset = healthCommand([], {});
    expect(unset.status).toBe(2);
    expect(unset.stderr).toContain('WORKER_HEALTH_PORT');

    await worker.stop();
    expect(worker.child.exitCode).toBe(0);
    const gone = healthCommand();
    expect(gone.status).toBe(1);
    expect(gone.stdout).toContain('no answer');
  }, 60_000);
});

describe('the shipped deploy files', () => {
  it('the environment file example is a valid configuration once its secret is filled in', () => {
    const env = Object.fromEntries(
      readFileSync(path.join(ROOT_DIR, 'deploy/axiom.env.example'), 'utf8')
        .split('\n')
        .filter((line) => /^[A-Z_]+=/.test(line))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    expect(env.SESSION_SECRET).toBe('');
    const config = loadConfig({ ...env, SESSION_SECRET: randomBytes(32).toString('hex') });
    expect(config).toMatchObject({ env: 'production', trustProxy: 1, secureCookies: true, database: { kind: 'postgres' }, auth: { provider: 'google' } });
    // Unfilled, production refuses to start rather than run with a guessable secret.
    expect(() => loadConfig(env)).toThrow(/SESSION_SECRET/);
  });

  it.runIf(existsSync('/usr/bin/systemd-analyze'))('systemd-analyze verify finds nothing to say about the units', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'units-'));
    try {
      for (const unit of ['axiom-web@.service', 'axiom-worker@.service']) writeFileSync(path.join(dir, unit), readFileSync(path.join(ROOT_DIR, 'deploy/systemd', unit)));
      const result = spawnSync('systemd-analyze', ['verify', 'axiom-web@3001.service', 'axiom-worker@9101.service'], { cwd: dir, encoding: 'utf8' });
      expect(result.status).toBe(0);
      expect(`${result.stdout}${result.stderr}`.trim()).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** `promise`, or a failure saying `what` after `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} (${ms} ms)`)), ms)))]).finally(() => clearTimeout(timer));
}

const ASSET = `console.log(${JSON.stringify('a hashed client file '.repeat(40))});\n`;
