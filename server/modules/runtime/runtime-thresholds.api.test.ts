import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate, type TAgent, type TAgentConfig, type TAgentRun, type TThreshold } from '../../../contracts/agents.ts';
import type { TNotificationList } from '../../../contracts/notifications.ts';
import { startFakeExchanges, type FakeExchanges, type ScriptedCandle } from '../../../tests/fakes/exchanges.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { startTestWorkers } from '../../test/test-workers.ts';
import { until } from '../../test/until.ts';
import type { Workers } from './workers.ts';

const MARKET = 'BTC/USDT on binance';

/**
 * Hand-worked: 20 candles (and every older one) closing at 100 with range 1 and volume 1000,
 * then the current candle closing at 100.6 with high 102.6, low 100.1 and volume 3125.
 * - price change: 100 -> 100.6 is 0.6%;
 * - volume: 3125 against the average 1000 of the 20 before is 312.5% of average;
 * - volatility: range 102.6 - 100.1 = 2.5 on a close of 100.6 is 2.485...%, shown 2.49%.
 */
const QUIET: ScriptedCandle = { close: 100, high: 100.5, low: 99.5, volume: 1000 };
const SERIES: ScriptedCandle[] = [...Array.from({ length: 20 }, () => QUIET), { close: 100.6, high: 102.6, low: 100.1, volume: 3125 }];

const THRESHOLDS: TThreshold[] = [
  { type: 'priceChange', value: 0.5, message: 'Price change above 0.5%' },
  { type: 'volumeSpike', value: 300, message: 'Volume spike above 300% of average' },
  { type: 'volumeAlert', value: 400, message: 'Volume above 400% of average' },
  { type: 'volatilityAlert', value: 2, message: 'Volatility above 2% of the price' },
];

function config(): TAgentConfig {
  const defaults = defaultAgentConfig(findTemplate('crypto-market-monitor')!);
  return {
    ...defaults,
    notifications: { email: false, inApp: true, thresholds: THRESHOLDS },
    // The template's own signal for price change stays at 3%: the signal and the alert differ on purpose.
    parameters: { ...defaults.parameters, token: 'BTC', exchanges: ['Binance'], timeframe: '1min', includeOnChainMetrics: false, priceChangeThreshold: 3 },
  };
}

/** Issue 15 item 1: each threshold type measured as contracts define it, limit and value in one unit. */
describe('alerts measured on a hand-worked series', () => {
  let exchanges: FakeExchanges;
  let t: TestApp;
  let workers: Workers;

  beforeAll(async () => {
    exchanges = await startFakeExchanges();
    exchanges.setSeries('BTC', SERIES);
    t = await createTestApp({ env: { ...exchanges.env, MARKET_DATA: 'live', DISPATCH_INTERVAL_MS: '50', DISPATCH_LOOKAHEAD_MS: '0' } });
    workers = await startTestWorkers(t);
  });
  afterAll(async () => {
    await workers?.stop();
    await t?.close();
    await exchanges?.close();
  });

  it('fires exactly the thresholds the numbers pass, and says both numbers in the alert', async () => {
    const cookie = await t.signIn('trader@example.com', 'Trader');
    const created = await t.request({ method: 'POST', url: '/api/agents', cookie, payload: { templateId: 'crypto-market-monitor', name: 'BTC watch', config: config() } });
    expect(created.statusCode).toBe(201);
    const agent = created.json<TAgent>();
    expect((await t.request({ method: 'POST', url: `/api/agents/${agent.id}/run`, cookie })).statusCode).toBe(202);
    const [run] = await until(
      async () => (await t.request({ url: `/api/agents/${agent.id}/runs`, cookie })).json<TAgentRun[]>(),
      (runs) => runs[0]?.status === 'success' || runs[0]?.status === 'failure',
      15_000,
    );
    expect(run!.status).toBe('success');
    const result = run!.result!;

    expect(result.alerts).toEqual([
      { market: MARKET, threshold: 'priceChange', value: 0.6, limit: 0.5, message: 'Price change above 0.5% (BTC/USDT on binance: 0.6% > 0.5%, up from 100.00 to 100.60)' },
      {
        market: MARKET,
        threshold: 'volumeSpike',
        value: 312.5,
        limit: 300,
        message: 'Volume spike above 300% of average (BTC/USDT on binance: 312.5% > 300% of average volume, volume 3.1K against an average of 1K)',
      },
      {
        market: MARKET,
        threshold: 'volatilityAlert',
        value: 2.4851,
        limit: 2,
        message: 'Volatility above 2% of the price (BTC/USDT on binance: 2.49% > 2% of the price, range 2.50 on a close of 100.60)',
      },
    ]);
    // volumeAlert at 400% did not fire: 312.5% is below it.

    // The template's price change signal (3%) is its own thing and did not fire on 0.6%.
    const market = result.markets[0]!;
    if (!market.ok) throw new Error(market.error);
    expect(market.rules.find((r) => r.name === 'Price change')).toMatchObject({ fired: false, values: { percentChange: 0.6, threshold: 3 } });

    // The notifications carry the same texts: the limit the user configured, never another one.
    const list = await until(
      async () => (await t.request({ url: '/api/notifications', cookie })).json<TNotificationList>(),
      (l) => l.notifications.length > 0,
    );
    const text = list.notifications.map((n) => n.message).join('\n');
    for (const alert of result.alerts) expect(text).toContain(alert.message);
    expect(text).not.toContain('400%');
  });
});
