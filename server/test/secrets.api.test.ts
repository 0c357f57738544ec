import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate } from '../../contracts/agents.ts';
import type { TChatProvider } from '../../contracts/chat.ts';
import type { TNotificationList } from '../../contracts/notifications.ts';
import { FAKE_AI_KEYS, startFakeAiProviders, type FakeAiProviders } from '../../tests/fakes/ai-providers.ts';
import { DEFAULT_FAKE_USER, startFakeOidcIssuer, type FakeOidcIssuer } from '../../tests/fakes/oidc-issuer.ts';
import { startSmtpCatcher, type SmtpCatcher } from '../../tests/fakes/smtp-catcher.ts';
import { startFakeWhaleAlert, type FakeWhaleAlert } from '../../tests/fakes/whale-alert.ts';
import { hashToken } from '../modules/auth/auth.service.ts';
import { startWorkers, type Workers } from '../modules/runtime/workers.ts';
import { chatBody } from './chat-helpers.ts';
import { capturingLogger, encodings, leaks, recordingClient, sessionTokens, setCookies, visibleText, type Recorded } from './secret-scan.ts';
import { createTestApp, type TestApp } from './test-app.ts';
import { until } from './until.ts';

/** Distinctive values, so any appearance in a log line or a response is a leak and nothing else. */
const SESSION_SECRET = 'session-secret-7c1f0e9a2b4d6f8013579bdf2468ace0';
const XAI_KEY = 'xai-rejected-key-5e0d3c2b1a09'; // the fake refuses it: the provider-error path
const WHALE_KEY = 'whale-secret-key-9f8e7d6c5b4a'; // likewise refused: the on-chain error path
const SMTP_USER = 'alerts-mailer';
const SMTP_PASSWORD = 'smtp-Pa55-w0rd-4a3b2c1d';
const AUTHORIZATION = 'Bearer header-token-0a9b8c7d6e';
const OTHER_COOKIE = 'other-cookie-value-6e5f4a3b2c';
const GOOGLE_CLIENT_ID = 'secrets-test.apps.googleusercontent.com';
const GOOGLE_CLIENT_SECRET = 'google-client-secret-1b2c3d4e5f6a';

const ADMIN = 'admin@example.com';

/** Every line the app logged and every response it sent, scanned for every form of each secret. */
function expectNoLeaks(lines: string[], recorded: Recorded[], secrets: Record<string, string>) {
  const forms = Object.fromEntries(Object.entries(secrets).map(([name, value]) => [name, encodings(value)]));
  expect(leaks(lines.map((text, i) => ({ label: `log line ${i}`, text })), forms), 'in the log').toEqual([]);
  expect(leaks(recorded.map((r) => ({ label: r.label, text: visibleText(r) })), forms), 'in a response').toEqual([]);
  expect(leaks(recorded.map((r) => ({ label: `${r.label} Set-Cookie`, text: setCookies(r) })), forms), 'in a Set-Cookie').toEqual([]);
}

/** Session tokens: in no log line and no response, except once, in the Set-Cookie that issued it.
 * Their hashes (the sessions table's keys) stay out of the log too. */
function expectTokensOnlyWithTheirOwner(lines: string[], recorded: Recorded[]) {
  const tokens = sessionTokens(recorded);
  expect(tokens.length).toBeGreaterThan(0);
  const forms = Object.fromEntries(tokens.map((token, i) => [`session token ${i}`, encodings(token)]));
  const hashes = Object.fromEntries(tokens.map((token, i) => [`session token hash ${i}`, [hashToken(token)]]));
  expect(leaks(lines.map((text, i) => ({ label: `log line ${i}`, text })), { ...forms, ...hashes })).toEqual([]);
  expect(leaks(recorded.map((r) => ({ label: r.label, text: visibleText(r) })), forms)).toEqual([]);
  for (const token of tokens) expect(recorded.filter((r) => setCookies(r).includes(token))).toHaveLength(1);
}

/** Shows the scan ran over the paths that matter: each message must have been logged. */
function expectLogged(lines: string[], messages: string[]) {
  const logged = new Set(lines.map((line) => (JSON.parse(line) as { msg?: string }).msg));
  expect(messages.filter((m) => !logged.has(m)), 'messages never logged').toEqual([]);
}

describe('secrets never reach a log line or a response (local sign-in)', () => {
  const { logger, lines } = capturingLogger();
  const recorded: Recorded[] = [];
  let ai: FakeAiProviders;
  let smtp: SmtpCatcher;
  let whale: FakeWhaleAlert;
  let t: TestApp;
  let workers: Workers | undefined;

  beforeAll(async () => {
    [ai, smtp, whale] = await Promise.all([startFakeAiProviders(), startSmtpCatcher({ mode: 'reject' }), startFakeWhaleAlert()]);
    ai.setFault('gemini', '500');
    t = await createTestApp({
      logger,
      env: {
        ...ai.env,
        XAI_API_KEY: XAI_KEY,
        SMTP_URL: `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${smtp.port}`,
        WHALE_ALERT_API_KEY: WHALE_KEY,
        WHALE_ALERT_BASE_URL: whale.baseUrl,
        SESSION_SECRET,
        ADMIN_EMAILS: ADMIN,
        MARKET_DATA: 'simulated',
        MARKET_RETRIES: '0',
      },
    });
  });
  afterAll(async () => {
    await workers?.stop();
    await t?.close().catch(() => {}); // its database was closed on purpose
    await Promise.all([ai?.close(), smtp?.close(), whale?.close()]);
  });

  it('across sign-in, chat, admin pages, agents, a failed email, errors and an outage', async () => {
    const send = recordingClient(t, recorded);
    const signIn = async (email: string) => {
      const res = await send({ method: 'POST', url: '/api/auth/local/login', payload: { email, name: email.split('@')[0]! } });
      const cookie = res.cookies.find((c) => c.name === 'sid')!;
      return `sid=${cookie.value}`;
    };
    const admin = await signIn(ADMIN);
    const guest = await signIn('guest@example.com');
    // Extra headers a browser or a script may send: never to be logged.
    const withHeaders = { headers: { authorization: AUTHORIZATION }, cookie: `${admin}; theme=${OTHER_COOKIE}` };

    for (const url of ['/api/auth/me', '/api/users', '/api/admin/usage', '/api/admin/articles', '/api/agents', '/api/chat/providers', '/api/settings', '/api/notifications']) {
      expect((await send({ url, ...withHeaders })).statusCode, url).toBe(200);
    }
    expect((await send({ method: 'PUT', url: '/api/settings', cookie: admin, payload: { alertEmail: 'alerts@example.com', timeZone: 'Europe/Paris' } })).statusCode).toBe(200);
    expect((await send({ method: 'POST', url: '/api/auth/user', ...withHeaders, payload: {} })).statusCode).toBe(200);

    // Chat: answers streamed and not, a key the provider rejects, a provider answering 500.
    const chatCall = (provider: TChatProvider, stream: boolean) =>
      send({ method: 'POST', url: `/api/${provider}/chat`, cookie: admin, payload: chatBody(provider), headers: stream ? { accept: 'text/event-stream' } : {} });
    expect((await chatCall('openai', true)).body).toContain('event: done');
    expect((await chatCall('anthropic', false)).json().error).toBe(false);
    expect((await chatCall('grok', false)).json()).toMatchObject({ error: true, message: 'The Grok API key was rejected' });
    expect((await chatCall('gemini', true)).body).toContain('event: error');
    expect((await send({ url: '/api/admin/usage', cookie: admin })).statusCode).toBe(200);

    // An agent run that reaches Whale Alert with a key it refuses.
    const monitor = findTemplate('crypto-market-monitor')!;
    const config = defaultAgentConfig(monitor);
    const agent = (await send({ method: 'POST', url: '/api/agents', cookie: admin, payload: { templateId: monitor.id, name: 'Whales', config } })).json() as { id: string; name: string };
    workers = await startWorkers({ config: t.config, database: t.database, jobs: t.jobs, logger, now: t.now, notifications: t.app.notifications });
    const { runId } = (await send({ method: 'POST', url: `/api/agents/${agent.id}/run`, cookie: admin })).json() as { runId: number };
    await until(() => send({ url: `/api/agents/${agent.id}/runs`, cookie: admin }).then((r) => r.json() as Array<{ status: string }>), (runs) => runs[0]?.status === 'success');
    expect(whale.requests().length).toBeGreaterThan(0);

    // An alert whose email the SMTP server refuses (after the client logged in with the password).
    const me = (await send({ url: '/api/auth/me', cookie: admin })).json() as { user: { id: string } };
    await t.app.notifications.applyAlerts({
      userId: me.user.id,
      agentId: agent.id,
      agentName: agent.name,
      runId,
      emailEnabled: true,
      inAppEnabled: true,
      conditions: [{ market: 'BTC', thresholdType: 'priceChange', firing: true, value: 3.2, limit: 1, message: 'BTC moved' }],
    });
    await until(
      () => send({ url: '/api/notifications', cookie: admin }).then((r) => r.json() as TNotificationList),
      (list) => list.notifications.some((n) => n.emailStatus === 'failed'),
    );
    await workers.stop();
    workers = undefined;

    // Client errors of every kind.
    expect((await send({ url: '/api/agents', headers: { authorization: AUTHORIZATION } })).statusCode).toBe(401);
    expect((await send({ url: '/api/users', cookie: guest })).statusCode).toBe(403);
    expect((await send({ url: '/api/nope', ...withHeaders })).statusCode).toBe(404);
    expect((await send({ method: 'POST', url: '/api/agents', ...withHeaders, payload: { templateId: 'nope' } })).statusCode).toBe(400);
    expect((await send({ method: 'POST', url: '/api/auth/local/login', payload: '{"email":', headers: { 'content-type': 'application/json' } })).statusCode).toBe(400);
    expect((await send({ method: 'PUT', url: '/api/settings', ...withHeaders, payload: 'a=b', headers: { ...withHeaders.headers, 'content-type': 'text/plain' } })).statusCode).toBe(415);
    expect((await send({ method: 'PUT', url: '/api/settings', ...withHeaders, payload: {}, headers: { ...withHeaders.headers, origin: 'https://evil.example' } })).statusCode).toBe(403);
    expect((await send({ method: 'POST', url: '/api/auth/logout', cookie: guest })).statusCode).toBe(204);
    expect((await send({ url: '/api/settings', cookie: guest })).statusCode).toBe(401); // the ended session replayed

    // The database goes away: the server-error path logs the error it got.
    await t.database.close();
    expect((await send({ url: '/api/agents', ...withHeaders })).statusCode).toBe(503);

    expectLogged(lines, [
      'request completed',
      'chat provider call failed',
      'on-chain source failed',
      'alert email failed; giving up',
      'database unavailable',
    ]);
    expect(smtp.messages()).toHaveLength(0);
    expectNoLeaks(lines, recorded, {
      SESSION_SECRET,
      OPENAI_API_KEY: FAKE_AI_KEYS.openai,
      ANTHROPIC_API_KEY: FAKE_AI_KEYS.anthropic,
      GOOGLE_GENERATIVE_AI_API_KEY: FAKE_AI_KEYS.gemini,
      DEEPSEEK_API_KEY: FAKE_AI_KEYS.deepseek,
      XAI_API_KEY: XAI_KEY,
      WHALE_ALERT_API_KEY: WHALE_KEY,
      'SMTP_URL password': SMTP_PASSWORD,
      'SMTP AUTH PLAIN': `\0${SMTP_USER}\0${SMTP_PASSWORD}`,
      'authorization header': AUTHORIZATION,
      'another cookie': OTHER_COOKIE,
    });
    expectTokensOnlyWithTheirOwner(lines, recorded);
  });
});

describe('secrets never reach a log line or a response (Google sign-in)', () => {
  const { logger, lines } = capturingLogger();
  const recorded: Recorded[] = [];
  let issuer: FakeOidcIssuer;
  let t: TestApp;

  beforeAll(async () => {
    issuer = await startFakeOidcIssuer({ clientId: GOOGLE_CLIENT_ID, clientSecret: GOOGLE_CLIENT_SECRET });
    t = await createTestApp({
      logger,
      env: { AUTH_PROVIDER: 'google', GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET, OIDC_ISSUER: issuer.url, SESSION_SECRET },
    });
  });
  afterAll(async () => {
    await t?.close();
    await issuer?.close();
  });

  it('across a sign-in, a refused one and an issuer outage', async () => {
    const send = recordingClient(t, recorded);
    /** start -> the issuer's authorize page -> our callback, as the browser would go. */
    const attempt = async (beforeCallback: () => void = () => {}) => {
      const start = await send({ url: '/api/auth/google/start' });
      const txCookie = [start.headers['set-cookie']].flat().find((c) => c?.startsWith('google_signin='))!.split(';')[0]!;
      const back = new URL((await fetch(String(start.headers.location), { redirect: 'manual' })).headers.get('location')!);
      beforeCallback();
      const callback = await send({ url: `${back.pathname}${back.search}`, cookie: txCookie });
      return { callback, code: back.searchParams.get('code') ?? '', transaction: txCookie.slice(txCookie.indexOf('=') + 1) };
    };

    issuer.setUser(DEFAULT_FAKE_USER);
    const ok = await attempt();
    expect(ok.callback.statusCode).toBe(200);
    const session = ok.callback.cookies.find((c) => c.name === 'sid')!;
    expect((await send({ url: '/api/auth/me', cookie: `sid=${session.value}` })).json().user.email).toBe(DEFAULT_FAKE_USER.email);

    issuer.setFault('wrong-audience');
    const refused = await attempt();
    expect(refused.callback.statusCode).toBe(401);
    issuer.setFault('none');
    // The issuer fails at the token exchange, after the browser came back with a code.
    const down = await attempt(() => issuer.setFault('unavailable'));
    expect(down.callback.statusCode).toBe(502);
    issuer.setFault('none');

    expectLogged(lines, ['Google sign-in refused', 'Google sign-in failed at the issuer']);
    expectNoLeaks(lines, recorded, { SESSION_SECRET, GOOGLE_CLIENT_SECRET });
    expectTokensOnlyWithTheirOwner(lines, recorded);
    // The one-time codes and the sign-in transactions travel in URLs and cookies: never in the log.
    const oneTime = Object.fromEntries(
      [ok, refused, down].flatMap((a, i) => [
        [`code ${i}`, [a.code]],
        [`transaction cookie ${i}`, [a.transaction]],
      ]),
    );
    expect(Object.values(oneTime).every(([value]) => value!.length > 20)).toBe(true);
    expect(leaks(lines.map((text, i) => ({ label: `log line ${i}`, text })), oneTime)).toEqual([]);
  });
});
