import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_TEMPLATES, defaultAgentConfig, findTemplate, type TAgent, type TAgentConfig } from '../../../contracts/agents.ts';
import { agentRuns } from '../../db/schema.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';

const STOCK = 'stock-market-scanner';
const CRYPTO = 'crypto-market-monitor';

/** What the wizard submits when nothing is changed: the template's defaults. */
const defaults = (templateId: string): TAgentConfig => defaultAgentConfig(findTemplate(templateId)!, 'Europe/Paris');

describe('agents API', () => {
  let t: TestApp;
  let admin: string;
  let otherAdmin: string;
  let guest: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { ADMIN_EMAILS: 'admin@example.com,second@example.com' } });
    admin = await t.signIn('admin@example.com', 'Admin');
    otherAdmin = await t.signIn('second@example.com', 'Second');
    guest = await t.signIn('guest@example.com', 'Guest');
  });
  afterAll(async () => t.close());

  const create = (templateId: string, overrides: { name?: string; config?: object; googleId?: string } = {}, cookie = admin) =>
    t.request({ method: 'POST', url: '/api/agents', cookie, payload: { templateId, name: `${templateId} agent`, ...overrides, config: overrides.config ?? defaults(templateId) } });
  const patch = (id: string, payload: object, cookie = admin) => t.request({ method: 'PATCH', url: `/api/agents/${id}`, cookie, payload });
  const read = async (id: string): Promise<TAgent> => (await t.request({ url: `/api/agents/${id}`, cookie: admin })).json();
  const newAgent = async (templateId = STOCK): Promise<TAgent> => (await create(templateId)).json();

  it('lists the templates to any signed-in user', async () => {
    expect((await t.request({ url: '/api/agent-templates' })).statusCode).toBe(401);
    const res = await t.request({ url: '/api/agent-templates', cookie: guest });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(JSON.parse(JSON.stringify(AGENT_TEMPLATES)));
  });

  it('permission matrix: signed out 401, guest 403, owner 2xx, another admin 404, on every agent route', async () => {
    const agent = await newAgent();
    const routes: Array<{ method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; url: string; payload?: object; ok: number; foreign?: boolean }> = [
      { method: 'GET', url: '/api/agents', ok: 200 },
      { method: 'POST', url: '/api/agents', payload: { templateId: STOCK, name: 'Matrix', config: defaults(STOCK) }, ok: 201 },
      { method: 'GET', url: `/api/agents/${agent.id}`, ok: 200, foreign: true },
      { method: 'GET', url: `/api/agents/${agent.id}/runs`, ok: 200, foreign: true },
      { method: 'PATCH', url: `/api/agents/${agent.id}`, payload: { status: 'running' }, ok: 200, foreign: true },
      { method: 'POST', url: `/api/agents/${agent.id}/run`, ok: 202, foreign: true },
      { method: 'DELETE', url: `/api/agents/${agent.id}`, ok: 204, foreign: true },
    ];
    for (const route of routes) {
      const label = `${route.method} ${route.url}`;
      expect((await t.request({ ...route })).statusCode, `${label} signed out`).toBe(401);
      expect((await t.request({ ...route, cookie: guest })).statusCode, `${label} guest`).toBe(403);
      if (route.foreign) {
        const res = await t.request({ ...route, cookie: otherAdmin });
        expect(res.statusCode, `${label} another admin`).toBe(404);
        expect(res.json()).toMatchObject({ error: 'Not Found', message: 'Agent not found' });
      }
    }
    // The other admin's list does not show it; what they tried changed nothing.
    expect((await t.request({ url: '/api/agents', cookie: otherAdmin })).json()).toEqual([]);
    expect(await read(agent.id)).toEqual(agent);
    for (const route of routes) {
      expect((await t.request({ ...route, cookie: admin })).statusCode, `${route.method} ${route.url} owner`).toBe(route.ok);
    }
    expect((await t.request({ url: `/api/agents/${agent.id}`, cookie: admin })).statusCode).toBe(404); // deleted
  });

  it('creates stock and crypto agents from the template defaults, paused with no next run, newest first', async () => {
    const stock = await create(STOCK, { name: '  Stock Market Scanner - S&P 500  ' });
    expect(stock.statusCode).toBe(201);
    expect(stock.json()).toMatchObject({
      name: 'Stock Market Scanner - S&P 500',
      templateId: STOCK,
      status: 'paused',
      nextRunAt: null,
      lastRun: null,
      performance: null,
      config: defaults(STOCK),
    });
    const crypto = await create(CRYPTO);
    expect(crypto.statusCode).toBe(201);
    expect(crypto.json()).toMatchObject({ status: 'paused', nextRunAt: null, config: defaults(CRYPTO) });

    const list: TAgent[] = (await t.request({ url: '/api/agents', cookie: admin })).json();
    expect(list.slice(0, 2).map((a) => a.id)).toEqual([crypto.json().id, stock.json().id]);
  });

  it('resumes with a next run in the future, and pauses with none', async () => {
    const agent = await newAgent(CRYPTO);
    const resumed = await patch(agent.id, { status: 'running' });
    expect(resumed.statusCode).toBe(200);
    expect(resumed.json()).toMatchObject({ status: 'running', name: agent.name });
    const nextRunAt = Date.parse(resumed.json().nextRunAt);
    expect(nextRunAt).toBeGreaterThan(Date.now());
    expect(nextRunAt).toBeLessThanOrEqual(Date.now() + 5 * 60_000); // every 5 minutes, every day
    expect(nextRunAt % (5 * 60_000)).toBe(0);

    // A config change while running reschedules: hourly lands on an hour boundary.
    const config = defaults(CRYPTO);
    config.schedule.frequency = 'hourly';
    const changed = (await patch(agent.id, { config })).json();
    expect(changed).toMatchObject({ status: 'running', config });
    expect(Date.parse(changed.nextRunAt) % 3_600_000).toBe(0);

    const paused = (await patch(agent.id, { status: 'paused', name: 'Renamed' })).json();
    expect(paused).toMatchObject({ status: 'paused', nextRunAt: null, name: 'Renamed' });
  });

  it.each<[string, string, string, unknown, string]>([
    ['number below min', STOCK, 'movingAveragePeriod', 4, 'Moving average period must be between 5 and 200'],
    ['number above max', STOCK, 'movingAveragePeriod', 201, 'Moving average period must be between 5 and 200'],
    ['number off the step', STOCK, 'movingAveragePeriod', 20.5, 'Moving average period must be a whole number'],
    ['slider below 0', STOCK, 'rsiThreshold', -1, 'RSI threshold must be between 0 and 100'],
    ['slider above 100', STOCK, 'rsiThreshold', 101, 'RSI threshold must be between 0 and 100'],
    ['slider off the 0.1 grid', CRYPTO, 'volatilityThreshold', 2.05, 'Volatility threshold must be a multiple of 0.1 from 1'],
    ['select unknown option', STOCK, 'timeframe', '4h', 'Timeframe must be one of 1min, 5min, 15min, 30min, hourly, daily, weekly'],
    ['multi-select unknown option', CRYPTO, 'exchanges', ['Binance', 'Mt. Gox'], "Exchanges must be chosen from Binance, Coinbase, Kraken, FTX, HTX (Huobi), KuCoin, not 'Mt. Gox'"],
    ['multi-select duplicate', CRYPTO, 'exchanges', ['Kraken', 'Kraken'], 'Exchanges list Kraken twice'],
    ['multi-select FTX', CRYPTO, 'exchanges', ['Binance', 'FTX'], 'Exchanges: FTX is closed since 2022'],
    ['boolean as a string', CRYPTO, 'walletTracking', 'false', 'Wallet tracking must be on or off (true or false)'],
    ['lower-case token', CRYPTO, 'token', 'btc', 'Token must be 2 to 10 capital letters (e.g. BTC)'],
    ['one-letter token', CRYPTO, 'token', 'B', 'Token must be 2 to 10 capital letters (e.g. BTC)'],
    ['long token', CRYPTO, 'token', 'TOOLONGTOKEN1', 'Token must be 2 to 10 capital letters (e.g. BTC)'],
    ['unknown parameter', STOCK, 'leverage', 10, "This template has no parameter 'leverage'"],
  ])('refuses %s on create and on update, changing nothing', async (_label, templateId, key, value, message) => {
    const config = defaults(templateId);
    config.parameters[key] = value as never;
    const expected = { error: 'Invalid request', details: [{ path: `parameters.${key}`, message }] };
    const before = (await t.request({ url: '/api/agents', cookie: admin })).json();

    const created = await create(templateId, { config });
    expect(created.statusCode).toBe(400);
    expect(created.json()).toEqual(expected);
    expect((await t.request({ url: '/api/agents', cookie: admin })).json()).toEqual(before);

    const agent = before.find((a: TAgent) => a.templateId === templateId) ?? (await newAgent(templateId));
    const updated = await patch(agent.id, { config, status: 'running' });
    expect(updated.statusCode).toBe(400);
    expect(updated.json()).toEqual(expected);
    expect(await read(agent.id)).toEqual(agent);
  });

  it('accepts the bounds themselves', async () => {
    for (const [templateId, values] of [
      [STOCK, { movingAveragePeriod: 5, rsiThreshold: 0 }],
      [STOCK, { movingAveragePeriod: 200, rsiThreshold: 100 }],
      [CRYPTO, { volatilityThreshold: 2.1, exchanges: ['Huobi'], token: 'ETH', walletTracking: true }],
    ] as const) {
      const config = defaults(templateId);
      Object.assign(config.parameters, values);
      const res = await create(templateId, { config });
      expect(res.statusCode, JSON.stringify(values)).toBe(201);
      expect(res.json().config.parameters).toMatchObject(values);
    }
  });

  it('refuses a missing required parameter, an unknown template, a bad status, a bad time zone and inverted hours', async () => {
    const missing = defaults(STOCK);
    delete missing.parameters.indicators;
    expect((await create(STOCK, { config: missing })).json().details).toEqual([{ path: 'parameters.indicators', message: 'Indicators is required' }]);

    const unknown = await create('forex-bot', { config: defaults(STOCK) });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().details).toEqual([{ path: 'templateId', message: "Template 'forex-bot' does not exist: choose Stock Market Scanner, Crypto Market Monitor or Custom Monitor" }]);

    const zone = defaults(STOCK);
    zone.schedule.timeZone = 'Mars/Olympus_Mons';
    const badZone = await create(STOCK, { config: zone });
    expect(badZone.statusCode).toBe(400);
    expect(badZone.json().details).toEqual([{ path: 'config.schedule.timeZone', message: 'Time zone must be an IANA time zone such as Europe/Paris' }]);

    const hours = defaults(STOCK);
    hours.schedule.activeHours = { start: '16:00', end: '09:30' };
    expect((await create(STOCK, { config: hours })).json().details).toEqual([{ path: 'schedule.activeHours', message: 'The start of the active hours must be before their end' }]);

    const agent = await newAgent();
    const stopped = await patch(agent.id, { status: 'stopped' });
    expect(stopped.statusCode).toBe(400);
    expect(stopped.json().details).toEqual([{ path: 'status', message: "Status must be 'running' or 'paused'" }]);
    expect((await patch(agent.id, {})).statusCode).toBe(400);
    expect((await t.request({ url: '/api/agents/not-a-uuid', cookie: admin })).statusCode).toBe(400);
    expect(await read(agent.id)).toEqual(agent);
  });

  // Issue 29 item 6: a bad token, a bad threshold and notifications per hour 0 got only the
  // notifications' errors (the contract's shape was checked first and stopped there); the token's,
  // the schedule's and the channels' came on the next tries.
  it('answers every refused field at once, on create, on edit and on a test on history, and changes nothing', async () => {
    const config = defaults(CRYPTO) as TAgentConfig & { notifications: { channels?: string[]; maxPerHour?: number } };
    config.parameters.token = 'btc';
    config.notifications.thresholds[1]!.value = -1;
    config.notifications.maxPerHour = 0;
    config.notifications.channels = ['00000000-0000-4000-8000-000000000000'];
    config.schedule.activeHours = { start: '18:00', end: '09:00' };
    const expected = [
      { path: 'config.notifications.thresholds.1.value', message: 'Value must be a number from 0 to 10,000' },
      { path: 'config.notifications.maxPerHour', message: 'Notifications per hour must be at least 1' },
      { path: 'schedule.activeHours', message: 'The start of the active hours must be before their end' },
      { path: 'parameters.token', message: 'Token must be 2 to 10 capital letters (e.g. BTC)' },
      { path: 'config.notifications.channels.0', message: 'Each channel must be one of your channels' },
    ];
    const before = (await t.request({ url: '/api/agents', cookie: admin })).json();

    const created = await create(CRYPTO, { config, name: ' ' });
    expect(created.statusCode).toBe(400);
    expect(created.json().details).toEqual([{ path: 'name', message: 'Please provide a name for your agent' }, ...expected]);
    expect((await t.request({ url: '/api/agents', cookie: admin })).json()).toEqual(before);

    const agent = await newAgent(CRYPTO);
    const edited = await patch(agent.id, { config, status: 'running' });
    expect(edited.statusCode).toBe(400);
    expect(edited.json().details).toEqual(expected);
    expect(await read(agent.id)).toEqual(agent);

    // A test on history checks the configuration the same way (it notifies nobody: no channels).
    const tested = await t.request({ method: 'POST', url: '/api/agents/backtest', cookie: admin, payload: { templateId: CRYPTO, config, candles: 9000 } });
    expect(tested.statusCode).toBe(400);
    expect(tested.json().details).toEqual([
      ...expected.slice(0, 2),
      { path: 'candles', message: 'Candles per market must be at most 5,000' },
      ...expected.slice(2, 4),
    ]);
  });

  it('a field refused by its shape is named once, by its shape, not again by its template', async () => {
    const config = defaults(CRYPTO);
    (config.parameters as Record<string, unknown>).token = { symbol: 'BTC' };
    const res = await create(CRYPTO, { config });
    expect(res.statusCode).toBe(400);
    const details = res.json().details as Array<{ path: string; message: string }>;
    expect(details.filter((d) => d.path.endsWith('parameters.token'))).toHaveLength(1);
    expect(details[0]).toEqual({
      path: 'config.parameters.token',
      message: "A parameter's value must be text (at most 2,000 characters), a number, true or false, or a list of at most 50 texts",
    });
  });

  it("refuses a googleId that is not the session's (local accounts have none), and accepts none or ''", async () => {
    const agent = await newAgent();
    const forbidden = { error: 'Forbidden', message: 'googleId does not match the signed-in user' };
    const attempts = [
      t.request({ url: '/api/agents?googleId=someone', cookie: admin }),
      t.request({ url: `/api/agents/${agent.id}?googleId=someone`, cookie: admin }),
      t.request({ url: `/api/agents/${agent.id}/runs?googleId=someone`, cookie: admin }),
      create(STOCK, { googleId: 'someone' }),
      patch(agent.id, { status: 'running', googleId: 'someone' }),
      t.request({ method: 'POST', url: `/api/agents/${agent.id}/run`, cookie: admin, payload: { googleId: 'someone' } }),
      t.request({ method: 'DELETE', url: `/api/agents/${agent.id}?googleId=someone`, cookie: admin }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual(forbidden);
    }
    expect(await read(agent.id)).toEqual(agent);
    expect((await t.request({ url: `/api/agents/${agent.id}/runs`, cookie: admin })).json()).toEqual([]);
    expect((await t.request({ url: '/api/agents?googleId=', cookie: admin })).statusCode).toBe(200);
    expect((await patch(agent.id, { status: 'running', googleId: '' })).statusCode).toBe(200);
  });

  it('queues a run now (202) and lists runs newest first, 50 by default, up to the limit', async () => {
    const agent = await newAgent();
    const queued = await t.request({ method: 'POST', url: `/api/agents/${agent.id}/run`, cookie: admin });
    expect(queued.statusCode).toBe(202);
    const { runId } = queued.json();
    expect(typeof runId).toBe('number');
    expect((await t.request({ url: `/api/agents/${agent.id}/runs`, cookie: admin })).json()).toEqual([
      expect.objectContaining({ id: runId, status: 'queued', scheduledFor: null, startTime: null, endTime: null, result: null, error: null }),
    ]);

    // 59 finished runs, as the runtime would record them.
    await t.database.db.insert(agentRuns).values(
      Array.from({ length: 59 }, (_, i) => ({
        agentId: agent.id,
        status: i % 2 ? ('success' as const) : ('failure' as const),
        startTime: new Date(Date.UTC(2025, 0, 1, 0, i)),
        endTime: new Date(Date.UTC(2025, 0, 1, 0, i, 3)),
        result: { i },
        error: i % 2 ? null : 'timeout',
      })),
    );
    const runs = (await t.request({ url: `/api/agents/${agent.id}/runs`, cookie: admin })).json();
    expect(runs).toHaveLength(50);
    const ids = runs.map((r: { id: number }) => r.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(runs[0]).toMatchObject({ status: 'failure', result: { i: 58 }, error: 'timeout', startTime: '2025-01-01T00:58:00.000Z', endTime: '2025-01-01T00:58:03.000Z' });

    const three = (await t.request({ url: `/api/agents/${agent.id}/runs?limit=3`, cookie: admin })).json();
    expect(three.map((r: { id: number }) => r.id)).toEqual(ids.slice(0, 3));
    expect((await t.request({ url: `/api/agents/${agent.id}/runs?limit=500`, cookie: admin })).json()).toHaveLength(60);
    for (const limit of ['0', '501', '2.5', 'ten']) {
      expect((await t.request({ url: `/api/agents/${agent.id}/runs?limit=${limit}`, cookie: admin })).statusCode, limit).toBe(400);
    }

    expect((await t.request({ method: 'DELETE', url: `/api/agents/${agent.id}`, cookie: admin })).statusCode).toBe(204);
    expect((await t.request({ url: `/api/agents/${agent.id}/runs`, cookie: admin })).statusCode).toBe(404);
    expect((await t.request({ method: 'POST', url: `/api/agents/${agent.id}/run`, cookie: admin })).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `/api/agents/${agent.id}`, cookie: admin })).statusCode).toBe(404);
  });
});
