import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_TEMPLATES, defaultAgentConfig, type TAgentConfig } from '../../../contracts/agents.ts';
import type { TCandle } from '../../../contracts/market.ts';
import { mulberry32 } from '../../../tests/support/seeded-random.ts';
import { agents, alertStates } from '../../db/schema.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { evaluateMarket } from '../runtime/evaluate.ts';
import { planRun } from '../runtime/run-plan.ts';
import { runBacktest } from './backtest-engine.ts';

/**
 * The notifications a test on history counts are those the live alert states make: each candle's
 * conditions (the live evaluation on the series cut there) go through the notifications'
 * applyAlerts on a real database, as a run hands them over, and every notification it creates
 * must be one the test counted, with the same alerts.
 */

const MARKET = 'BTC/USDT on binance';
const ZERO_CLOSE = 60;
const template = AGENT_TEMPLATES[1]!;

function plan() {
  const defaults = defaultAgentConfig(template);
  const thresholds: TAgentConfig['notifications']['thresholds'] = [
    { type: 'priceChange', value: 1, message: 'alert 0' },
    { type: 'volumeAlert', value: 130, message: 'alert 1' },
    { type: 'priceChange', value: 2, message: 'alert 2' },
    { type: 'volatilityAlert', value: 2, message: 'alert 3' },
    { type: 'volumeSpike', value: 200, message: 'alert 4' },
  ];
  return planRun(template.id, { ...defaults, notifications: { ...defaults.notifications, thresholds }, parameters: { ...defaults.parameters, includeOnChainMetrics: false } });
}

function series(seed: number, length: number): TCandle[] {
  const rand = mulberry32(seed);
  let price = 100;
  return Array.from({ length }, (_, i) => {
    const open = price;
    price *= 1 + (rand() - 0.5) * 0.05;
    const spread = price * rand() * 0.03;
    // Zero-volume stretches leave the volume alerts unmeasured: their state must stay.
    const volume = i % 40 >= 15 && i % 40 < 37 ? 0 : Math.round(1000 * (0.5 + rand() * (rand() < 0.2 ? 3 : 1)));
    const time = Date.UTC(2024, 0, 1) + i * 3_600_000;
    // A candle that closes at 0 between two wide ones: its range, and the next candle's change,
    // cannot be measured, so the volatility alert's event goes on through it (no new notification).
    if (i === ZERO_CLOSE) return { time, open: 0, high: 0, low: 0, close: 0, volume };
    if (i === ZERO_CLOSE - 1 || i === ZERO_CLOSE + 1) return { time, open, high: price * 1.03, low: price * 0.97, close: price, volume };
    return { time, open, high: Math.max(open, price) + spread, low: Math.min(open, price) - spread, close: price, volume };
  });
}

describe('a test on history counts the notifications the live alert states make', () => {
  let t: TestApp;
  let ownerId: string;

  beforeAll(async () => {
    t = await createTestApp();
    const cookie = await t.signIn('ada@example.com');
    ownerId = ((await t.request({ url: '/api/auth/me', cookie })).json() as { user: { id: string } }).user.id;
  });
  afterAll(() => t.close());

  it.each([1, 2, 3])('seed %i', async (seed) => {
    const runPlan = plan();
    const candles = series(seed, 120);
    const [agent] = await t.database.db
      .insert(agents)
      // Applied here within one real hour: the per-hour cap (tested on its own) is lifted, so
      // what is compared is the alert states.
      .values({ ownerId, templateId: template.id, name: `seed ${seed}`, status: 'running', config: { notifications: { maxPerHour: 1000 } } as TAgentConfig })
      .returning({ id: agents.id });
    const agentId = agent!.id;

    const live: Array<{ time: number; alerts: string[] }> = [];
    for (let i = 1; i < candles.length; i++) {
      const { thresholds } = evaluateMarket({ plan: runPlan, market: MARKET, candles: candles.slice(0, i + 1), onChain: { configured: false } });
      // As a run: the alert states read when it starts, then raiseAlerts' hand-over.
      const rows = await t.database.db.select({ market: alertStates.market, type: alertStates.thresholdType }).from(alertStates).where(eq(alertStates.agentId, agentId));
      const active = new Set(rows.map((r) => `${r.market}|${r.type}`));
      const conditions = thresholds.filter((c) => c.firing || active.has(`${MARKET}|${c.thresholdType}`)).map((c) => ({ ...c, market: MARKET }));
      if (conditions.length === 0) continue;
      const { created } = await t.app.notifications.applyAlerts({ userId: ownerId, agentId, agentName: 'x', runId: null, emailEnabled: false, inAppEnabled: true, conditions });
      for (const n of created) live.push({ time: candles[i]!.time, alerts: n.alerts.map((a) => a.message) });
    }

    const result = runBacktest({
      templateId: template.id,
      plan: runPlan,
      candles: candles.length,
      timeZone: 'UTC',
      channels: { email: false, inApp: true },
      maxPerHour: 1000,
      markets: [{ label: MARKET, symbol: 'BTC/USDT', source: 'binance', timeframe: '1h', simulated: false, candles, history: { requested: 120, received: 120, cached: 0, short: null } }],
    });
    const m = result.markets[0]!;
    if (!m.ok) throw new Error(m.error);
    const ours = [...new Set(m.firings.filter((f) => f.notified).map((f) => f.time))].map((time) => ({
      time,
      alerts: m.firings.filter((f) => f.time === time && f.notified).map((f) => f.detail),
    }));
    // Sorted alike: applyAlerts lists a run's alerts by type, the result by threshold.
    const sorted = (list: typeof ours) => list.map((n) => ({ time: n.time, alerts: [...n.alerts].sort() }));
    expect(sorted(ours)).toEqual(sorted(live));
    expect(result.notifications.total).toBe(live.length);
    expect(live.length).toBeGreaterThan(5);
    // Some alert kept firing without notifying again: the once-per-event rule was exercised,
    // across the candle that could not be measured too.
    expect(m.firings.some((f) => f.key.startsWith('threshold-') && !f.notified)).toBe(true);
    expect(m.firings.find((f) => f.key === 'threshold-3' && f.time === candles[ZERO_CLOSE + 1]!.time)).toMatchObject({ notified: false });
  });
});
