import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BRIEF_MODEL_RULE, BRIEF_PROVIDER_RULE, defaultAgentConfig, findTemplate, type TAgent, type TAgentConfig, type TAgentRun, type TAlertBriefChoice } from '../../../contracts/agents.ts';
import type { TChannelDelivery, TCreatedChannel } from '../../../contracts/channels.ts';
import type { TChatUsageReport } from '../../../contracts/chat.ts';
import type { TMarketResult } from '../../../contracts/market.ts';
import { BRIEF_FAILURES, briefTimeoutError, type TNotification, type TNotificationList } from '../../../contracts/notifications.ts';
import { startFakeAiProviders, type FakeAiProviders } from '../../../tests/fakes/ai-providers.ts';
import { startChannelReceivers, type ChannelReceipt, type ChannelReceivers } from '../../../tests/fakes/channel-receivers.ts';
import { startFakeExchanges, type FakeExchanges, type ScriptedCandle } from '../../../tests/fakes/exchanges.ts';
import { startSmtpCatcher, type SmtpCatcher } from '../../../tests/fakes/smtp-catcher.ts';
import { notifications } from '../../db/schema.ts';
import { listenLocally, openEvents, type ReceivedEvent } from '../../test/event-stream-client.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { startTestWorkers } from '../../test/test-workers.ts';
import { until } from '../../test/until.ts';
import type { Workers } from '../runtime/workers.ts';
import { BRIEF_SYSTEM_PROMPT, type BriefFacts } from './alert-brief.ts';

/**
 * "Explain alerts" (issue 17 item 5, docs/decisions/0044): a brief of each alert notification,
 * written by the owner's chosen assistant from the run's recorded numbers only, attributed,
 * counted against the owner's chat budget, never delaying or failing the alert.
 */

const OWNER = 'brief-owner@example.com';
const OTHER_ADMIN = 'brief-other@example.com';
const crypto = findTemplate('crypto-market-monitor')!;
const DEEPSEEK: TAlertBriefChoice = { provider: 'deepseek', model: 'deepseek-chat' };

/** A crypto monitor on Binance alone whose price change alert fires above 0.5%. */
function briefConfig(brief: TAlertBriefChoice | undefined, channels: string[] = []): TAgentConfig {
  const defaults = defaultAgentConfig(crypto);
  return {
    ...defaults,
    notifications: {
      email: true,
      inApp: true,
      thresholds: [{ type: 'priceChange', value: 0.5, message: 'Price change above 0.5%' }],
      channels,
      ...(brief ? { brief } : {}),
    },
    parameters: { ...defaults.parameters, token: 'BTC', exchanges: ['Binance'], timeframe: '1min', includeOnChainMetrics: false, priceChangeThreshold: 3 },
  };
}

async function signedIn(t: TestApp, email: string) {
  const cookie = await t.signIn(email);
  const id = (await t.request({ url: '/api/auth/me', cookie })).json<{ user: { id: string } }>().user.id;
  return { cookie, id };
}

const notificationOf = async (t: TestApp, cookie: string, id: string): Promise<TNotification> =>
  (await t.request({ url: '/api/notifications', cookie })).json<TNotificationList>().notifications.find((n) => n.id === id)!;

const settled = (t: TestApp, cookie: string, id: string, done: (n: TNotification) => boolean = (n) => n.brief?.status !== 'pending', timeoutMs = 15_000) =>
  until(() => notificationOf(t, cookie, id), done, timeoutMs);

const webhookBodies = (fake: ChannelReceivers, name: string) =>
  fake.receipts.filter((r: ChannelReceipt) => r.kind === 'webhook' && r.name === name).map((r) => r.body as { event: string; notification: { id: string; brief: unknown } });

/** The email with this subject, once it came: tests find theirs by subject, whatever else arrived. */
const emailTitled = (smtp: SmtpCatcher, subject: string, timeoutMs = 15_000) => until(async () => smtp.messages().find((m) => m.subject === subject), (m) => m !== undefined, timeoutMs).then((m) => m!);

/** Hand-worked (as in runtime-thresholds): 20 quiet candles at 100, then a close at 100.6 (+0.6%) on volume 3125. */
const QUIET: ScriptedCandle = { close: 100, high: 100.5, low: 99.5, volume: 1000 };
const SERIES: ScriptedCandle[] = [...Array.from({ length: 20 }, () => QUIET), { close: 100.6, high: 102.6, low: 100.1, volume: 3125 }];

describe('a run that raises an alert, with Explain alerts on', () => {
  let exchanges: FakeExchanges;
  let ai: FakeAiProviders;
  let smtp: SmtpCatcher;
  let receivers: ChannelReceivers;
  let t: TestApp;
  let workers: Workers;

  beforeAll(async () => {
    [exchanges, ai, smtp, receivers] = await Promise.all([startFakeExchanges(), startFakeAiProviders(), startSmtpCatcher(), startChannelReceivers()]);
    exchanges.setSeries('BTC', SERIES);
    t = await createTestApp({
      env: {
        ...exchanges.env,
        ...ai.env,
        ADMIN_EMAILS: OWNER,
        MARKET_DATA: 'live',
        DISPATCH_INTERVAL_MS: '50',
        DISPATCH_LOOKAHEAD_MS: '0',
        SMTP_URL: smtp.url,
        OUTBOUND_ALLOW_LOOPBACK: 'true',
        OUTBOUND_CA_FILE: receivers.caFile,
        ALERT_BRIEF_WAIT_SECONDS: '3',
      },
    });
    // The worker's own services, on the job queue: the brief, the release and the deliveries are pg-boss jobs.
    workers = await startTestWorkers(t);
  });
  afterAll(async () => {
    await workers?.stop();
    await t?.close();
    await Promise.all([exchanges?.close(), ai?.close(), smtp?.close(), receivers?.close()]);
  });

  it('writes the brief from the recorded numbers, attributes it, counts it, and sends it with the alert', async () => {
    const owner = await signedIn(t, OWNER);
    const hook = (await t.request({ method: 'POST', url: '/api/channels', cookie: owner.cookie, payload: { kind: 'webhook', name: 'Desk', url: `${receivers.origin}/webhook/brief-desk` } })).json<TCreatedChannel>();
    receivers.setWebhookSecret('brief-desk', hook.signingSecret!);
    const created = await t.request({ method: 'POST', url: '/api/agents', cookie: owner.cookie, payload: { templateId: crypto.id, name: 'BTC brief', config: briefConfig(DEEPSEEK, [hook.id]) } });
    expect(created.statusCode).toBe(201);
    const agent = created.json<TAgent>();
    expect(agent.config.notifications.brief).toEqual(DEEPSEEK);

    expect((await t.request({ method: 'POST', url: `/api/agents/${agent.id}/run`, cookie: owner.cookie })).statusCode).toBe(202);
    const [run] = await until(
      async () => (await t.request({ url: `/api/agents/${agent.id}/runs`, cookie: owner.cookie })).json<TAgentRun[]>(),
      (runs) => runs[0]?.status === 'success' || runs[0]?.status === 'failure',
      15_000,
    );
    expect(run!.status).toBe('success');
    const result = run!.result!;
    const market = result.markets[0]!;
    if (!market.ok) throw new Error(market.error);
    // The run records the recent averages the brief compares the move with.
    expect(market.recent).toEqual({ window: 20, changePercent: 0.6, averageAbsChangePercent: 0, volume: 3125, averageVolume: 1000, rangePercent: 2.4851, averageRangePercent: 1 });

    const [first] = await until(
      async () => (await t.request({ url: '/api/notifications', cookie: owner.cookie })).json<TNotificationList>().notifications,
      (list) => list.length > 0 && list[0]!.brief?.status === 'ready',
      15_000,
    );
    const notification = first!;
    // The fake answers 'Reply to: <the prompt>': the brief is that answer, trimmed and bounded.
    expect(notification.brief).toEqual({ status: 'ready', text: expect.stringMatching(/^Reply to: The alert of the agent "BTC brief"/), provider: 'deepseek', model: 'deepseek-chat', error: null });

    // One call, with the instruction and the run's numbers as it recorded them.
    const [call, ...more] = ai.requests();
    expect(more).toEqual([]);
    expect(call).toMatchObject({ provider: 'deepseek', model: 'deepseek-chat', stream: false, system: BRIEF_SYSTEM_PROMPT });
    expect(call!.system).toMatch(/Use only the numbers in the message/);
    expect(call!.system).toMatch(/Do not invent/);
    expect(call!.maxOutputTokens).toBeLessThanOrEqual(200);
    // The facts are the last line, as JSON: the recorded alerts and the alerted market's numbers, as recorded.
    const facts = JSON.parse(call!.prompt.split('\n').at(-1)!) as BriefFacts;
    expect(facts.agentName).toBe('BTC brief');
    expect(facts.alerts).toEqual(result.alerts.map((alert) => ({ ...alert, unit: '%', measures: expect.stringContaining('close') })));
    expect(facts.markets).toEqual([
      {
        market: 'BTC/USDT on binance',
        simulated: false,
        timeframe: market.timeframe,
        candleTime: market.candleTime,
        price: market.price,
        recent: market.recent,
        indicators: market.indicators,
        signals: market.rules.map(({ name, status, fired, values, detail }) => ({ name, status, fired, values, detail })),
      },
    ]);
    // Numbers as the run wrote them, not rounded or reformatted.
    for (const text of ['"value":0.6', '"limit":0.5', '"averageVolume":1000', '"volume":3125', `"price":${market.price}`]) expect(call!.prompt).toContain(text);

    // Counted as the owner's AI usage, apart from chat messages.
    const usage = (await t.request({ url: '/api/admin/usage?days=1', cookie: owner.cookie })).json<TChatUsageReport>();
    expect(usage.rows).toEqual([expect.objectContaining({ provider: 'deepseek', model: 'deepseek-chat', purpose: 'alert-brief', requests: 1, failed: 0, inputTokens: expect.any(Number), outputTokens: expect.any(Number) })]);
    expect(usage.rows[0]!.inputTokens).toBeGreaterThan(100);

    // The brief came within the grace: the email and the webhook carry it, attributed; nothing follows.
    const email = await emailTitled(smtp, notification.title);
    expect(email.text).toContain("Brief by DeepSeek (DeepSeek V3), from the run's recorded numbers:");
    expect(email.text).toContain(notification.brief!.text!.slice(0, 60));
    const [body] = await until(
      async () => webhookBodies(receivers, 'brief-desk'),
      (bodies) => bodies.length > 0,
    );
    expect(body).toMatchObject({ event: 'notification', notification: { id: notification.id, brief: notification.brief } });
    const after = await settled(t, owner.cookie, notification.id, (n) => n.emailStatus === 'sent' && n.deliveries.every((d) => d.status === 'sent'));
    expect(after.deliveries.map((d) => d.event)).toEqual(['notification']);
    expect(smtp.messages()).toHaveLength(1);
  });

  it('a brief slower than the grace follows the alert, through the job queue', async () => {
    const owner = await signedIn(t, OWNER);
    const hook = (await t.request({ method: 'POST', url: '/api/channels', cookie: owner.cookie, payload: { kind: 'webhook', name: 'Late', url: `${receivers.origin}/webhook/brief-late` } })).json<TCreatedChannel>();
    receivers.setWebhookSecret('brief-late', hook.signingSecret!);
    const agent = (await t.request({ method: 'POST', url: '/api/agents', cookie: owner.cookie, payload: { templateId: crypto.id, name: 'BTC late brief', config: briefConfig(DEEPSEEK, [hook.id]) } })).json<TAgent>();
    ai.setLatency(6_000);
    try {
      expect((await t.request({ method: 'POST', url: `/api/agents/${agent.id}/run`, cookie: owner.cookie })).statusCode).toBe(202);
      const title = (await until(
        async () => (await t.request({ url: '/api/notifications', cookie: owner.cookie })).json<TNotificationList>().notifications.find((n) => n.agentId === agent.id),
        (n) => n !== undefined,
        15_000,
      ))!.title;
      expect((await emailTitled(smtp, title)).text).not.toContain('Brief by');
      expect((await emailTitled(smtp, `Brief: ${title}`, 20_000)).text).toContain('Brief by DeepSeek (DeepSeek V3)');
      const bodies = await until(async () => webhookBodies(receivers, 'brief-late'), (b) => b.length === 2, 15_000);
      expect(bodies.map((b) => [b.event, (b.notification.brief as { status: string }).status])).toEqual([
        ['notification', 'pending'],
        ['notification.brief', 'ready'],
      ]);
    } finally {
      ai.setLatency(0);
    }
  });
});

/** A notification of the owner's agent as a run that crossed its threshold makes it, with a brief. */
function alertInput(t: TestApp, owner: { id: string }, agent: TAgent, brief: TAlertBriefChoice | null, market = 'BTC/USDT on binance') {
  const recorded: TMarketResult = {
    ok: true,
    symbol: 'BTC/USDT',
    source: 'binance',
    simulated: false,
    timeframe: '1m',
    price: 100.6,
    candleTime: '2026-11-27T10:00:00.000Z',
    indicators: { 'RSI 14': 71.25, 'SMA 20': 100.03 },
    rules: [{ name: 'Price change', status: 'evaluated', fired: false, values: { percentChange: 0.6, threshold: 3 }, detail: 'change +0.60% <= 3% in size' }],
    chart: { candles: [], overlays: {}, markers: [] },
    recent: { window: 20, changePercent: 0.6, averageAbsChangePercent: 0.05, volume: 3125, averageVolume: 1000, rangePercent: 2.4851, averageRangePercent: 1 },
  };
  return t.app.notifications.applyAlerts({
    userId: owner.id,
    agentId: agent.id,
    agentName: agent.name,
    runId: null,
    emailEnabled: true,
    inAppEnabled: true,
    channelIds: agent.config.notifications.channels ?? [],
    conditions: [{ market, thresholdType: 'priceChange', firing: true, value: 0.6, limit: 0.5, message: `Price change above 0.5% (${market}: 0.6% > 0.5%, up from 100.00 to 100.60)` }],
    brief,
    recorded: [{ market, result: recorded }],
  });
}

describe('the brief never delays or fails the alert', () => {
  let ai: FakeAiProviders;
  let smtp: SmtpCatcher;
  let receivers: ChannelReceivers;
  let t: TestApp;
  let owner: { cookie: string; id: string };
  let hookId: string;
  let n = 0;

  beforeAll(async () => {
    [ai, smtp, receivers] = await Promise.all([startFakeAiProviders(), startSmtpCatcher(), startChannelReceivers()]);
    t = await createTestApp({
      env: {
        ...ai.env,
        // No key for Grok: its briefs fail as its chat does.
        XAI_API_KEY: '',
        ADMIN_EMAILS: `${OWNER},${OTHER_ADMIN}`,
        SMTP_URL: smtp.url,
        OUTBOUND_ALLOW_LOOPBACK: 'true',
        OUTBOUND_CA_FILE: receivers.caFile,
        ALERT_BRIEF_WAIT_SECONDS: '1',
        ALERT_BRIEF_TIMEOUT_SECONDS: '8',
      },
    });
    owner = await signedIn(t, OWNER);
    const hook = (await t.request({ method: 'POST', url: '/api/channels', cookie: owner.cookie, payload: { kind: 'webhook', name: 'Desk', url: `${receivers.origin}/webhook/slow-desk` } })).json<TCreatedChannel>();
    receivers.setWebhookSecret('slow-desk', hook.signingSecret!);
    hookId = hook.id;
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([ai?.close(), smtp?.close(), receivers?.close()]);
  });
  afterEach(async () => {
    ai.reset();
    smtp.reset();
    receivers.receipts.length = 0;
    await t.database.db.delete(notifications);
  });

  /** A new agent of the owner's (its alert states start empty), explaining alerts with `brief`. */
  const agentWith = async (brief: TAlertBriefChoice | undefined, channels: string[] = []) => {
    const res = await t.request({ method: 'POST', url: '/api/agents', cookie: owner.cookie, payload: { templateId: crypto.id, name: `Brief agent ${++n}`, config: briefConfig(brief, channels) } });
    expect(res.statusCode).toBe(201);
    return res.json<TAgent>();
  };
  const alertWith = async (brief: TAlertBriefChoice, channels: string[] = []) => {
    const agent = await agentWith(brief, channels);
    const { created } = await alertInput(t, owner, agent, brief);
    return created[0]!;
  };
  /** The alert went out, whatever became of its brief. */
  const expectAlertDelivered = async (notification: TNotification) => {
    await emailTitled(smtp, notification.title);
    expect((await settled(t, owner.cookie, notification.id, (x) => x.emailStatus === 'sent')).emailStatus).toBe('sent');
  };

  it('shows the notification at once, pending, and writes nothing when the agent does not explain alerts', async () => {
    const agent = await agentWith(undefined);
    const { created } = await alertInput(t, owner, agent, null);
    expect(created[0]!.brief).toBeNull();
    await expectAlertDelivered(created[0]!);
    expect(ai.requests()).toEqual([]);
  });

  it("tells the owner's open consoles when the brief lands, so the bell updates without reload", async () => {
    const stream = await openEvents(await listenLocally(t.app), owner.cookie);
    try {
      const notification = await alertWith(DEEPSEEK);
      const about = (action: string) => (e: ReceivedEvent) => e.event === 'notification' && (e.data as { action: string; notificationId: string }).action === action && (e.data as { notificationId: string }).notificationId === notification.id;
      await stream.next(about('created'));
      await stream.next(about('updated'));
      expect((await notificationOf(t, owner.cookie, notification.id)).brief?.status).toBe('ready');
      await expectAlertDelivered(notification);
    } finally {
      stream.close();
      await stream.closed;
    }
  });

  it('slow assistant (beyond the grace, within the timeout): the alert goes without it, then the brief follows', async () => {
    ai.setLatency(4_000);
    const notification = await alertWith(DEEPSEEK, [hookId]);
    expect(notification.brief).toEqual({ status: 'pending', text: null, provider: 'deepseek', model: 'deepseek-chat', error: null });
    expect(notification.deliveries).toEqual([expect.objectContaining({ event: 'notification', status: 'pending' })]);

    // The grace (1 s) ends first: the email and the webhook go without the brief.
    expect((await emailTitled(smtp, notification.title)).text).not.toContain('Brief by');
    const [first] = await until(async () => webhookBodies(receivers, 'slow-desk'), (b) => b.length > 0);
    expect(first).toMatchObject({ event: 'notification', notification: { brief: { status: 'pending', text: null, provider: 'deepseek', model: 'deepseek-chat', error: null } } });

    // Then the brief: the notification shows it, and it follows by email and to the channel.
    const done = await settled(t, owner.cookie, notification.id);
    expect(done.brief).toMatchObject({ status: 'ready', text: expect.stringMatching(/^Reply to: /), provider: 'deepseek', model: 'deepseek-chat', error: null });
    expect((await emailTitled(smtp, `Brief: ${notification.title}`)).text).toContain("Brief by DeepSeek (DeepSeek V3), from the run's recorded numbers:");
    const [, second] = await until(async () => webhookBodies(receivers, 'slow-desk'), (b) => b.length > 1);
    expect(second).toMatchObject({ event: 'notification.brief', notification: { id: notification.id, brief: done.brief } });
    const recorded = await settled(t, owner.cookie, notification.id, (x) => x.deliveries.length === 2 && x.deliveries.every((d: TChannelDelivery) => d.status === 'sent'));
    expect(recorded.deliveries.map((d) => [d.event, d.status])).toEqual([
      ['notification', 'sent'],
      ['notification.brief', 'sent'],
    ]);
    expect(ai.requests()).toHaveLength(1);
  });

  it('slower than its timeout: the brief fails as too long, the alert went out', async () => {
    ai.setFault('deepseek', 'hang');
    const other = await createTestApp({ env: { ...ai.env, ADMIN_EMAILS: OWNER, SMTP_URL: smtp.url, ALERT_BRIEF_WAIT_SECONDS: '1', ALERT_BRIEF_TIMEOUT_SECONDS: '1' } });
    try {
      const me = await signedIn(other, OWNER);
      const res = await other.request({ method: 'POST', url: '/api/agents', cookie: me.cookie, payload: { templateId: crypto.id, name: 'Hung brief', config: briefConfig(DEEPSEEK) } });
      const { created } = await alertInput(other, me, res.json<TAgent>(), DEEPSEEK);
      const done = await settled(other, me.cookie, created[0]!.id);
      expect(done.brief).toEqual({ status: 'failed', text: null, provider: 'deepseek', model: 'deepseek-chat', error: briefTimeoutError('deepseek', 1) });
      expect(done.brief!.error).toMatch(/took too long/);
      expect((await emailTitled(smtp, created[0]!.title)).text).not.toContain('Brief by');
    } finally {
      await other.close();
    }
  });

  it.each([
    ['500', 'DeepSeek is unavailable right now'],
    ['401', 'The DeepSeek API key was rejected'],
  ] as const)('failing assistant (%s): the brief fails with our sentence, never the provider’s words', async (fault, sentence) => {
    ai.setFault('deepseek', fault, 'PROVIDER-SECRET-WORDS');
    const notification = await alertWith(DEEPSEEK);
    const done = await settled(t, owner.cookie, notification.id);
    expect(done.brief).toEqual({ status: 'failed', text: null, provider: 'deepseek', model: 'deepseek-chat', error: sentence });
    expect(JSON.stringify(done)).not.toContain('PROVIDER-SECRET-WORDS');
    await expectAlertDelivered(notification);
    expect(smtp.messages().filter((m) => m.subject.includes(notification.title))).toHaveLength(1);
  });

  // Issue 29: a brief cut at its 200-token limit read as whole, and one only thought was "empty".
  it('a brief its assistant cut at the length limit says so at its end; one it only thought says why there is none', async () => {
    ai.setEnding('deepseek', 'length');
    const cut = await settled(t, owner.cookie, (await alertWith(DEEPSEEK)).id);
    expect(cut.brief).toMatchObject({ status: 'ready', text: expect.stringMatching(/^Reply to: .+… \(cut short: the brief reached its length limit\)$/) });
    ai.setEnding('deepseek', 'thinking');
    const thought = await settled(t, owner.cookie, (await alertWith(DEEPSEEK)).id);
    expect(thought.brief).toMatchObject({
      status: 'failed',
      text: null,
      error: 'The assistant used the whole length of a brief thinking and wrote none. A model that does not reason first suits briefs better.',
    });
    expect(ai.requests().map((r) => r.maxOutputTokens)).toEqual([200, 200]);
  });

  it('over budget: no call, the brief fails with the budget sentence, the alert goes', async () => {
    const tight = await createTestApp({ env: { ...ai.env, ADMIN_EMAILS: OWNER, SMTP_URL: smtp.url, CHAT_DAILY_TOKEN_BUDGET: '100' } });
    try {
      const me = await signedIn(tight, OWNER);
      const res = await tight.request({ method: 'POST', url: '/api/agents', cookie: me.cookie, payload: { templateId: crypto.id, name: 'Thrifty', config: briefConfig(DEEPSEEK) } });
      const { created } = await alertInput(tight, me, res.json<TAgent>(), DEEPSEEK);
      const done = await settled(tight, me.cookie, created[0]!.id);
      expect(done.brief).toMatchObject({ status: 'failed', error: BRIEF_FAILURES.budget });
      expect(ai.requests()).toEqual([]);
      await emailTitled(smtp, created[0]!.title);
      // The refusal is in the usage report, as a chat's is.
      const usage = (await tight.request({ url: '/api/admin/usage?days=1', cookie: me.cookie })).json<TChatUsageReport>();
      expect(usage.rows).toEqual([expect.objectContaining({ purpose: 'alert-brief', requests: 1, failed: 1, inputTokens: 0, outputTokens: 0 })]);
    } finally {
      await tight.close();
    }
  });

  it('an owner who lost the role for the assistant gets a failed brief, not a call', async () => {
    const notificationAgent = await agentWith({ provider: 'openai', model: 'gpt-4o' });
    const other = await signedIn(t, OTHER_ADMIN);
    expect((await t.request({ method: 'PATCH', url: `/api/users/${owner.id}`, cookie: other.cookie, payload: { role: 'guest' } })).statusCode).toBe(200);
    try {
      const { created } = await alertInput(t, owner, notificationAgent, { provider: 'openai', model: 'gpt-4o' });
      const done = await settled(t, owner.cookie, created[0]!.id);
      expect(done.brief).toMatchObject({ status: 'failed', error: BRIEF_FAILURES['not-allowed'] });
      expect(ai.requests()).toEqual([]);
      await expectAlertDelivered(created[0]!);
    } finally {
      await t.request({ method: 'PATCH', url: `/api/users/${owner.id}`, cookie: other.cookie, payload: { role: 'admin' } });
    }
  });

  it('a brief job run again (its worker died mid-call) records it interrupted, without a second call, and the alert goes', async () => {
    ai.setFault('deepseek', 'hang');
    const notification = await alertWith(DEEPSEEK);
    await until(async () => ai.requests().length, (count) => count === 1);
    await t.app.notifications.writeBrief(notification.id, { agentName: 'x', alerts: [], alertsLeftOut: 0, markets: [], marketsLeftOut: 0 }, { number: 2 });
    expect((await notificationOf(t, owner.cookie, notification.id)).brief).toMatchObject({ status: 'failed', error: BRIEF_FAILURES.interrupted });
    await expectAlertDelivered(notification);
    expect(ai.requests()).toHaveLength(1);
    ai.setFault('deepseek', 'none');
  });

  it('an assistant without its key, or a model no longer offered, fails the brief with its sentence', async () => {
    const keyless = await alertWith({ provider: 'grok', model: 'grok-4' });
    expect((await settled(t, owner.cookie, keyless.id)).brief).toMatchObject({ status: 'failed', error: 'API key not configured: xAI API key is not configured. Please contact the administrator.' });
    const agent = await agentWith(DEEPSEEK);
    const { created } = await alertInput(t, owner, agent, { provider: 'llama', model: 'a-model-taken-away' }, 'ETH/USDT on binance');
    expect((await settled(t, owner.cookie, created[0]!.id)).brief).toMatchObject({ status: 'failed', error: BRIEF_FAILURES['model-unavailable'] });
    expect(ai.requests()).toEqual([]);
  });
});

describe('choosing the assistant', () => {
  let ai: FakeAiProviders;
  let t: TestApp;
  let owner: { cookie: string; id: string };
  beforeAll(async () => {
    ai = await startFakeAiProviders();
    t = await createTestApp({ env: { ...ai.env, ADMIN_EMAILS: OWNER } });
    owner = await signedIn(t, OWNER);
  });
  afterAll(async () => {
    await t?.close();
    await ai?.close();
  });

  const save = (brief: unknown) => t.request({ method: 'POST', url: '/api/agents', cookie: owner.cookie, payload: { templateId: crypto.id, name: 'Chooser', config: { ...briefConfig(undefined), notifications: { ...briefConfig(undefined).notifications, brief } } } });

  it.each([
    [{ provider: 'mistral', model: 'x' }, 'config.notifications.brief.provider', BRIEF_PROVIDER_RULE],
    [{ provider: 'openai', model: 'gpt-9' }, 'config.notifications.brief.model', BRIEF_MODEL_RULE],
    [{ provider: 'grok', model: 'grok-2-image-1212' }, 'config.notifications.brief.model', BRIEF_MODEL_RULE],
    [{ provider: 'openai', model: '' }, 'config.notifications.brief.model', BRIEF_MODEL_RULE],
    [{ provider: 'openai' }, 'config.notifications.brief.model', BRIEF_MODEL_RULE],
  ])('refuses %j with 400 on the field, and saves nothing', async (brief, path, message) => {
    const res = await save(brief);
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([{ path, message }]);
    expect((await t.request({ url: '/api/agents', cookie: owner.cookie })).json<TAgent[]>()).toEqual([]);
  });

  it('saves a choice the owner may use, keyed or not, and turning it off removes it', async () => {
    const res = await save(DEEPSEEK);
    expect(res.statusCode).toBe(201);
    const agent = res.json<TAgent>();
    expect(agent.config.notifications.brief).toEqual(DEEPSEEK);
    const off = await t.request({ method: 'PATCH', url: `/api/agents/${agent.id}`, cookie: owner.cookie, payload: { config: briefConfig(undefined) } });
    expect(off.statusCode).toBe(200);
    expect(off.json<TAgent>().config.notifications.brief).toBeUndefined();
    const edit = await t.request({ method: 'PATCH', url: `/api/agents/${agent.id}`, cookie: owner.cookie, payload: { config: briefConfig({ provider: 'llama', model: 'not-served' }) } });
    expect(edit.statusCode).toBe(400);
    expect(edit.json().details).toEqual([{ path: 'config.notifications.brief.model', message: BRIEF_MODEL_RULE }]);
  });
});
