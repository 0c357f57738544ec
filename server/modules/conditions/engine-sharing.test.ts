import { afterAll, describe, expect, it, vi } from 'vitest';
import { ZCondition, type TClause, type TCondition } from '../../../contracts/conditions.ts';
import type { TCandle, TCandleTimeframe } from '../../../contracts/market.ts';
import type * as Indicators from '../market/indicators.ts';

// Counts the indicator computations the engine asks for (the real functions still compute). The
// engine is imported afresh after the mock: files share a worker's module cache (isolate: false).
vi.resetModules();
vi.doMock('../market/indicators.ts', async (importOriginal) => {
  const real = await importOriginal<typeof Indicators>();
  return { ...real, sma: vi.fn(real.sma), macd: vi.fn(real.macd), rsi: vi.fn(real.rsi) };
});
const indicators = await import('../market/indicators.ts');
const { prepareConditions } = await import('./engine.ts');
afterAll(() => {
  vi.doUnmock('../market/indicators.ts');
  vi.resetModules();
});

const HOUR = 3_600_000;
const candles = (count: number, ms: number): TCandle[] =>
  Array.from({ length: count }, (_, i) => ({ time: i * ms, open: 100 + i, high: 101 + i, low: 99 + i, close: 100 + (i % 7), volume: 5 }));
const condition = (n: number, clauses: TClause[]): TCondition =>
  ZCondition.parse({ id: `00000000-0000-4000-8000-00000000000${n}`, when: { kind: 'group', join: 'all', clauses }, trigger: { mode: 'once-per-close' } });

describe('every side is computed once per (operand, timeframe)', () => {
  it('the same SMA(200) on 1 day read by three clauses of two conditions, and two MACD lines, are computed once each', () => {
    const sma200 = { indicator: 'sma', period: 200, timeframe: '1d' } as const;
    const conditions = [
      condition(1, [
        { kind: 'clause', left: { indicator: 'close' }, operator: 'above', right: sma200 },
        { kind: 'clause', left: { indicator: 'close', timeframe: '1d' }, operator: 'crosses-above', right: { period: 200, timeframe: '1d', indicator: 'sma' } },
      ]),
      condition(2, [
        { kind: 'clause', left: sma200, operator: 'rising', candles: 2 },
        { kind: 'clause', left: { indicator: 'macd', line: 'macd', fast: 3, slow: 5, signal: 2 }, operator: 'crosses-above', right: { indicator: 'macd', line: 'signal', fast: 3, slow: 5, signal: 2 } },
        // The same period on the agent's timeframe is another series.
        { kind: 'clause', left: { indicator: 'sma', period: 200 }, operator: 'above', right: { indicator: 'number', value: 0 } },
      ]),
    ];
    const series = new Map<TCandleTimeframe, TCandle[]>([
      ['1h', candles(300 * 24, HOUR)],
      ['1d', candles(300, 24 * HOUR)],
    ]);
    const prepared = prepareConditions(conditions, '1h', series);
    for (let i = 0; i < prepared.candles.length; i++) {
      prepared.met(0, i);
      prepared.met(1, i);
    }
    prepared.outcome(1, prepared.candles.length - 1);
    expect(vi.mocked(indicators.sma).mock.calls.map(([values, period]) => [values.length, period])).toEqual([
      [300, 200],
      [300 * 24, 200],
    ]);
    expect(indicators.macd).toHaveBeenCalledTimes(1);
    expect(indicators.rsi).not.toHaveBeenCalled();
  });
});
