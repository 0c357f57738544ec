import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate, type TAgent, type TAgentConfig, type TAgentRun } from '../../../contracts/agents.ts';
import type { TRunResult } from '../../../contracts/market.ts';
import { agentRuns } from '../../db/schema.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { until } from '../../test/until.ts';
import { startWorkers, type Workers } from '../runtime/workers.ts';
import { computeNextRunAt } from './schedule.ts';

// Issue 15 item 4: everything the wizard sets can be changed after creation (decision 0030).
// One PATCH carries the name and the whole configuration; the server checks all of it against
// the template, a refused edit changes nothing, the run history stays, and the next run uses it.

const STOCK = 'stock-market-scanner';
const CRYPTO = 'crypto-market-monitor';
const silent = pino({ level: 'silent' });
const defaults = (templateId: string): TAgentConfig => defaultAgentConfig(findTemplate(templateId)!, 'Europe/Paris');

/** A value for every parameter, each different from its default. */
const EDITED_PARAMETERS: Record<string, TAgentConfig['parameters']> = {
  [STOCK]: { symbols: 'NVDA, TSLA', indicators: ['MACD', 'Stochastic Oscillator'], timeframe: 'hourly', rsiThreshold: 60, movingAveragePeriod: 50, includeVolume: false },
  [CRYPTO]: {
    token: 'ETH',
    exchanges: ['Kraken', 'KuCoin'],
    timeframe: '4h',
    includeOnChainMetrics: false,
    volatilityThreshold: 3.5,
    priceChangeThreshold: 0.5,
    walletTracking: true,
  },
};

function editedConfig(templateId: string): TAgentConfig {
  return {
    schedule: { frequency: 'daily', daysActive: ['Tuesday', 'Saturday'], activeHours: { start: '08:15', end: '18:45' }, timeZone: 'America/New_York' },
    notifications: {
      email: false,
      inApp: false,
      thresholds: [
        { type: 'volumeAlert', value: 250, message: 'My own words' },
        { type: 'volatilityAlert', value: 1.5, message: 'Wild' },
      ],
    },
    parameters: EDITED_PARAMETERS[templateId]!,
  };
}

describe('editing an agent', () => {
  let t: TestApp;
  let admin: string;
  let workers: Workers | null = null;
  beforeAll(async () => {
    t = await createTestApp({ env: { ADMIN_EMAILS: 'admin@example.com', MARKET_DATA: 'simulated', DISPATCH_INTERVAL_MS: '50', DISPATCH_LOOKAHEAD_MS: '0' } });
    admin = await t.signIn('admin@example.com', 'Admin');
  });
  afterEach(async () => {
    await workers?.stop();
    workers = null;
  });
  afterAll(async () => t.close());

  const create = async (templateId: string, config = defaults(templateId)): Promise<TAgent> => {
    const res = await t.request({ method: 'POST', url: '/api/agents', cookie: admin, payload: { templateId, name: `${templateId} to edit`, config } });
    expect(res.statusCode).toBe(201);
    return res.json();
  };
  const patch = (id: string, payload: object) => t.request({ method: 'PATCH', url: `/api/agents/${id}`, cookie: admin, payload });
  const read = async (id: string): Promise<TAgent> => (await t.request({ url: `/api/agents/${id}`, cookie: admin })).json();
  const runsOf = async (id: string): Promise<TAgentRun[]> => (await t.request({ url: `/api/agents/${id}/runs`, cookie: admin })).json();

  it.each([STOCK, CRYPTO])('%s: the name and every setting change in one edit; the run history stays', async (templateId) => {
    const agent = await create(templateId);
    await t.database.db.insert(agentRuns).values({ agentId: agent.id, status: 'success', startTime: new Date(), endTime: new Date(), result: { before: true } });
    const history = await runsOf(agent.id);
    expect(history).toHaveLength(1);
    const before = await read(agent.id); // its health now counts the successful run

    const config = editedConfig(templateId);
    const res = await patch(agent.id, { name: '  Renamed agent  ', config });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ...before, name: 'Renamed agent', config });
    expect(await read(agent.id)).toEqual({ ...before, name: 'Renamed agent', config });
    expect(await runsOf(agent.id)).toEqual(history);
  });

  it.each([STOCK, CRYPTO])('%s: each parameter alone can be changed', async (templateId) => {
    const agent = await create(templateId);
    for (const [key, value] of Object.entries(EDITED_PARAMETERS[templateId]!)) {
      const before = await read(agent.id);
      const config = { ...before.config, parameters: { ...before.config.parameters, [key]: value } };
      const res = await patch(agent.id, { config });
      expect(res.statusCode, key).toBe(200);
      expect(res.json().config.parameters[key], key).toEqual(value);
    }
    expect((await read(agent.id)).config.parameters).toEqual(EDITED_PARAMETERS[templateId]);
  });

  it('an edit applies from the next slot: a slot queued under the old settings is dropped, finished runs stay', async () => {
    const agent = await create(CRYPTO);
    await patch(agent.id, { status: 'running' });
    const slot = new Date(Date.now() + 60_000);
    await t.database.db.insert(agentRuns).values([
      { agentId: agent.id, status: 'success', startTime: new Date(), endTime: new Date(), result: { kept: true } },
      { agentId: agent.id, status: 'queued', scheduledFor: slot },
    ]);
    expect((await runsOf(agent.id)).map((r) => r.status).sort()).toEqual(['queued', 'success']);
    expect((await patch(agent.id, { config: editedConfig(CRYPTO) })).statusCode).toBe(200);
    expect((await runsOf(agent.id)).map((r) => r.status)).toEqual(['success']);
  });

  it('a running agent takes its next run time from the edited schedule', async () => {
    const agent = await create(CRYPTO);
    const running: TAgent = (await patch(agent.id, { status: 'running' })).json();
    expect(running.nextRunAt).not.toBeNull();

    const config = editedConfig(CRYPTO);
    const before = t.now();
    const edited: TAgent = (await patch(agent.id, { config })).json();
    const after = t.now();
    expect(edited.status).toBe('running');
    // Daily on Tuesdays and Saturdays from 08:15 New York time: due at one of those starts.
    const expected = [computeNextRunAt(config.schedule, before)?.toISOString(), computeNextRunAt(config.schedule, after)?.toISOString()];
    expect(expected).toContain(edited.nextRunAt);
    expect(edited.nextRunAt).not.toBe(running.nextRunAt);
    const local = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', weekday: 'long', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(edited.nextRunAt!));
    expect(local).toMatch(/^(Tuesday|Saturday) 08:15$/);

    // A rename alone keeps the slot.
    expect((await patch(agent.id, { name: 'Only renamed' })).json().nextRunAt).toBe(edited.nextRunAt);
  });

  it.each<[string, (config: TAgentConfig) => void, { path: string; message: string }]>([
    ['frequency', (c) => Object.assign(c.schedule, { frequency: 'fortnightly' }), { path: 'config.schedule.frequency', message: 'Frequency must be one of Real-time, Every 5 minutes, Every 15 minutes, Every 30 minutes, Hourly, Daily, Weekly' }],
    ['no active day', (c) => Object.assign(c.schedule, { daysActive: [] }), { path: 'config.schedule.daysActive', message: 'Choose at least one of the active days' }],
    ['a time that is not HH:mm', (c) => Object.assign(c.schedule, { activeHours: { start: '9:30', end: '16:00' } }), { path: 'config.schedule.activeHours.start', message: 'Start of the active hours must be a time such as 09:30' }],
    ['inverted hours', (c) => Object.assign(c.schedule, { activeHours: { start: '16:00', end: '09:30' } }), { path: 'schedule.activeHours', message: 'The start of the active hours must be before their end' }],
    ['email as text', (c) => Object.assign(c.notifications, { email: 'yes' }), { path: 'config.notifications.email', message: 'Invalid input: expected boolean, received string' }],
    ['threshold type', (c) => Object.assign(c.notifications.thresholds[0]!, { type: 'priceDrop' }), { path: 'config.notifications.thresholds.0.type', message: 'Type must be one of Price change, Volume spike, Volatility alert, Volume alert' }],
    ['negative threshold', (c) => Object.assign(c.notifications.thresholds[1]!, { value: -1 }), { path: 'config.notifications.thresholds.1.value', message: 'Value must be a number from 0 to 10,000' }],
    ['blank threshold message', (c) => Object.assign(c.notifications.thresholds[0]!, { message: '   ' }), { path: 'config.notifications.thresholds.0.message', message: 'Message is required' }],
    ['lower-case token', (c) => Object.assign(c.parameters, { token: 'eth' }), { path: 'parameters.token', message: 'Token must be 2 to 10 capital letters (e.g. BTC)' }],
    ['volatility off its grid', (c) => Object.assign(c.parameters, { volatilityThreshold: 6 }), { path: 'parameters.volatilityThreshold', message: 'Volatility threshold must be between 1 and 5' }],
  ])('refuses an edit with a bad %s (400 naming the field) and changes nothing, the name included', async (_label, spoil, detail) => {
    const agent = await create(CRYPTO);
    const running: TAgent = (await patch(agent.id, { status: 'running' })).json();
    const config = defaults(CRYPTO);
    spoil(config);
    const res = await patch(agent.id, { name: 'Should not stick', config });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Invalid request', details: [detail] });
    expect(await read(agent.id)).toEqual(running);
  });

  it('refuses a blank name and changes nothing', async () => {
    const agent = await create(STOCK);
    const res = await patch(agent.id, { name: '  ', config: editedConfig(STOCK) });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Invalid request', details: [{ path: 'name', message: 'Please provide a name for your agent' }] });
    expect(await read(agent.id)).toEqual(agent);
  });

  it("the next run reads the edited symbols and RSI threshold", async () => {
    const agent = await create(STOCK);
    workers = await startWorkers({ config: t.config, database: t.database, jobs: t.jobs, logger: silent, now: t.now });
    const config = defaults(STOCK);
    config.parameters = { ...config.parameters, symbols: 'NVDA, TSLA', rsiThreshold: 60 };
    expect((await patch(agent.id, { config })).statusCode).toBe(200);

    expect((await t.request({ method: 'POST', url: `/api/agents/${agent.id}/run`, cookie: admin })).statusCode).toBe(202);
    const [run] = await until(() => runsOf(agent.id), (runs) => runs[0]?.status === 'success');
    const result = run!.result as TRunResult;
    expect(result.markets.map((m) => m.symbol)).toEqual(['NVDA', 'TSLA']);
    for (const market of result.markets) {
      if (!market.ok) throw new Error(market.error);
      const rsi = market.rules.find((r) => r.name === 'RSI extreme')!;
      expect(rsi.values.threshold).toBe(60);
    }
  });
});
