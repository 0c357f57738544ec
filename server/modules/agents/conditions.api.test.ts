import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate, type TAgent } from '../../../contracts/agents.ts';
import type { TConditionState } from '../../../contracts/conditions.ts';
import { conditionControls, conditionStates } from '../../db/schema.ts';
import { customMonitorConfig, sampleCondition } from '../../test/agent-fixtures.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { nextNineOClock, SNOOZE_PAST, SNOOZE_TOO_FAR } from './condition-states.service.ts';
import { WATCHLIST_REFUSED } from './validate-config.ts';

const OWNER = 'owner@example.com';
const HOUR = 3_600_000;

/** Issue 30: conditions and watchlists checked on save, and the owner's snooze and re-arm. */
describe('conditions on the API', () => {
  let t: TestApp;
  let cookie: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { ADMIN_EMAILS: OWNER, MARKET_DATA: 'simulated' } });
    cookie = await t.signIn(OWNER, 'Owner');
  });
  afterAll(async () => t?.close());

  const agentCount = async () => (await t.request({ url: '/api/agents', cookie })).json<TAgent[]>().length;
  const create = async (config = customMonitorConfig()): Promise<TAgent> => {
    const res = await t.request({ method: 'POST', url: '/api/agents', cookie, payload: { templateId: 'custom-monitor', name: 'Monitor', config } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<TAgent>();
  };

  it('a configuration beyond the rules is a 400 naming every refused field at once, and changes nothing', async () => {
    const before = await agentCount();
    const bad = sampleCondition();
    const clause = bad.when.clauses[0]!;
    if (clause.kind !== 'clause') throw new Error('the sample starts with a clause');
    // RSI (1): a period under 2, on the right side of the second clause.
    bad.when.clauses[1] = { kind: 'clause', left: { indicator: 'close' }, operator: 'below', right: { indicator: 'rsi', period: 1 } };
    const shorter = sampleCondition();
    shorter.when.clauses[0] = { ...clause, left: { indicator: 'rsi', period: 14, timeframe: '1h' } };
    const stock = defaultAgentConfig(findTemplate('stock-market-scanner')!);
    const res = await t.request({
      method: 'POST',
      url: '/api/agents',
      cookie,
      payload: { templateId: 'stock-market-scanner', name: 'Scanner', config: { ...stock, parameters: { ...stock.parameters, movingAveragePeriod: 4 }, conditions: [bad], watchlist: customMonitorConfig().watchlist } },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ details: Array<{ path: string; message: string }> }>().details).toEqual([
      { path: 'config.conditions.0.when.clauses.1.right.period', message: 'RSI period must be a whole number from 2 to 500' },
      { path: 'parameters.movingAveragePeriod', message: 'Moving average period must be between 5 and 200' },
      { path: 'watchlist', message: WATCHLIST_REFUSED },
    ]);

    // The rules that need the agent's timeframe, on their clause's field.
    const tooShort = await t.request({ method: 'POST', url: '/api/agents', cookie, payload: { templateId: 'stock-market-scanner', name: 'Scanner', config: { ...stock, conditions: [shorter] } } });
    expect(tooShort.statusCode).toBe(400);
    expect(tooShort.json<{ details: unknown }>().details).toEqual([{ path: 'conditions.0.when.clauses.0.left.timeframe', message: "A timeframe must be the agent's (1 day) or longer" }]);
    expect(await agentCount()).toBe(before);
  });

  it('snoozes a condition for a preset or until a chosen time within 30 days, and unsnoozes it', async () => {
    const condition = sampleCondition();
    const agent = await create(customMonitorConfig([condition]));
    const url = `/api/agents/${agent.id}/conditions/${condition.id}/snooze`;

    const hour = await t.request({ method: 'POST', url, cookie, payload: { preset: '1h' } });
    expect(hour.statusCode, hour.body).toBe(200);
    const snoozedFor = Date.parse(hour.json<TConditionState>().snoozedUntil!) - t.now().getTime();
    expect(snoozedFor).toBeGreaterThan(0.9 * HOUR);
    expect(snoozedFor).toBeLessThanOrEqual(HOUR);

    // 'tomorrow': the next 09:00 on the owner's clock (Settings), named by its zone.
    expect((await t.request({ method: 'PUT', url: '/api/settings', cookie, payload: { alertEmail: null, timeZone: 'Asia/Tokyo' } })).statusCode).toBe(200);
    const tomorrow = (await t.request({ method: 'POST', url, cookie, payload: { preset: 'tomorrow' } })).json<TConditionState>();
    const nine = new Date(tomorrow.snoozedUntil!);
    expect(new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Tokyo', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(nine)).toBe('09:00');
    expect(nine.getTime() - t.now().getTime()).toBeGreaterThan(0);
    expect(nine.getTime() - t.now().getTime()).toBeLessThanOrEqual(24 * HOUR);

    const until = new Date(t.now().getTime() + 3 * 24 * HOUR).toISOString();
    expect((await t.request({ method: 'POST', url, cookie, payload: { until } })).json<TConditionState>().snoozedUntil).toBe(until);
    const states = (await t.request({ url: `/api/agents/${agent.id}/conditions/state`, cookie })).json<TConditionState[]>();
    expect(states).toEqual([{ conditionId: condition.id, disarmed: false, snoozedUntil: until, lastNotifiedAt: null }]);

    const unsnoozed = await t.request({ method: 'DELETE', url, cookie });
    expect(unsnoozed.json<TConditionState>()).toEqual({ conditionId: condition.id, disarmed: false, snoozedUntil: null, lastNotifiedAt: null });
  });

  it('refuses a time in the past or more than 30 days ahead, a condition the agent does not have, and changes nothing', async () => {
    const condition = sampleCondition();
    const agent = await create(customMonitorConfig([condition]));
    const url = `/api/agents/${agent.id}/conditions/${condition.id}/snooze`;
    const past = await t.request({ method: 'POST', url, cookie, payload: { until: new Date(t.now().getTime() - 60_000).toISOString() } });
    expect(past.statusCode).toBe(400);
    expect(past.json<{ details: unknown }>().details).toEqual([{ path: 'until', message: SNOOZE_PAST }]);
    const far = await t.request({ method: 'POST', url, cookie, payload: { until: new Date(t.now().getTime() + 31 * 24 * HOUR).toISOString() } });
    expect(far.json<{ details: unknown }>().details).toEqual([{ path: 'until', message: SNOOZE_TOO_FAR }]);
    const odd = await t.request({ method: 'POST', url, cookie, payload: { preset: '2h' } });
    expect(odd.statusCode).toBe(400);
    const unknown = await t.request({ method: 'POST', url: `/api/agents/${agent.id}/conditions/${sampleCondition().id}/rearm`, cookie });
    expect(unknown.statusCode).toBe(404);
    expect(await t.database.db.select().from(conditionControls).where(eq(conditionControls.agentId, agent.id))).toEqual([]);
  });

  it('re-arms a disarmed condition; a condition taken out of the config, and the agent deleted, take their state with them', async () => {
    const kept = sampleCondition();
    const dropped = sampleCondition();
    const agent = await create(customMonitorConfig([kept, dropped]));
    // What a run of an 'only once' condition leaves (the runtime's tests make it for real).
    await t.database.db.insert(conditionControls).values([
      { agentId: agent.id, conditionId: kept.id, disarmed: true },
      { agentId: agent.id, conditionId: dropped.id, disarmed: true },
    ]);
    await t.database.db.insert(conditionStates).values([
      { agentId: agent.id, conditionId: kept.id, market: 'AAPL', lastNotifiedAt: t.now(), lastNotifiedCandle: 1 },
      { agentId: agent.id, conditionId: dropped.id, market: 'AAPL', lastNotifiedAt: t.now(), lastNotifiedCandle: 1 },
    ]);
    const rearmed = await t.request({ method: 'POST', url: `/api/agents/${agent.id}/conditions/${kept.id}/rearm`, cookie });
    expect(rearmed.json<TConditionState>()).toMatchObject({ conditionId: kept.id, disarmed: false, lastNotifiedAt: expect.any(String) });

    const patched = await t.request({ method: 'PATCH', url: `/api/agents/${agent.id}`, cookie, payload: { config: customMonitorConfig([kept]) } });
    expect(patched.statusCode, patched.body).toBe(200);
    const left = await t.database.db.select().from(conditionStates).where(eq(conditionStates.agentId, agent.id));
    expect(left.map((r) => r.conditionId)).toEqual([kept.id]);
    expect((await t.database.db.select().from(conditionControls).where(eq(conditionControls.agentId, agent.id))).map((r) => r.conditionId)).toEqual([kept.id]);

    expect((await t.request({ method: 'DELETE', url: `/api/agents/${agent.id}`, cookie })).statusCode).toBe(204);
    expect(await t.database.db.select().from(conditionStates).where(eq(conditionStates.agentId, agent.id))).toEqual([]);
    expect(await t.database.db.select().from(conditionControls).where(eq(conditionControls.agentId, agent.id))).toEqual([]);
  });
});

describe('nextNineOClock', () => {
  it('is the next 09:00 on the zone’s clock, this morning before 09:00, across a clock change', () => {
    expect(nextNineOClock(new Date('2026-11-28T05:00:00Z'), 'Europe/Paris').toISOString()).toBe('2026-11-28T08:00:00.000Z');
    expect(nextNineOClock(new Date('2026-11-28T09:00:00Z'), 'Europe/Paris').toISOString()).toBe('2026-11-29T08:00:00.000Z');
    // Paris moves its clocks on March 29, 2026: 09:00 is 07:00 UTC after, 08:00 before.
    expect(nextNineOClock(new Date('2026-03-28T12:00:00Z'), 'Europe/Paris').toISOString()).toBe('2026-03-29T07:00:00.000Z');
    expect(nextNineOClock(new Date('2026-11-28T05:00:00Z'), 'UTC').toISOString()).toBe('2026-11-28T09:00:00.000Z');
  });
});
