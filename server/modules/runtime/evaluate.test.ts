import { describe, expect, it } from 'vitest';
import { AGENT_TEMPLATES, defaultAgentConfig, type TAgentConfig, type TAgentTemplate } from '../../../contracts/agents.ts';
import { MARKET_FAILURES, type TCandle } from '../../../contracts/market.ts';
import { AVERAGE_WINDOW, CHART_CANDLES, evaluateMarket, performanceSince } from './evaluate.ts';
import { planRun } from './run-plan.ts';

const MINUTE = 60_000;
const stockTemplate = AGENT_TEMPLATES[0]!;
const cryptoTemplate = AGENT_TEMPLATES[1]!;

/** A run's plan for the template's defaults with `parameters` and `thresholds` changed. */
function planOf(template: TAgentTemplate, parameters: TAgentConfig['parameters'] = {}, thresholds?: TAgentConfig['notifications']['thresholds']) {
  const defaults = defaultAgentConfig(template);
  return planRun(template.id, {
    ...defaults,
    notifications: { ...defaults.notifications, thresholds: thresholds ?? defaults.notifications.thresholds },
    parameters: { ...defaults.parameters, ...parameters },
  });
}

/** Candles from closes; range 1% of the close and volume 1000 unless given. */
function candles(closes: number[], overrides: Partial<Record<number, Partial<TCandle>>> = {}): TCandle[] {
  return closes.map((close, i) => ({ time: i * MINUTE, open: close, high: close * 1.005, low: close * 0.995, close, volume: 1000, ...overrides[i] }));
}

const rule = (result: ReturnType<typeof evaluateMarket>, name: string) => result.rules.find((r) => r.name === name)!;

describe('stock rules', () => {
  it('RSI extreme fires above the threshold: a steady rise has RSI 100', () => {
    const closes = Array.from({ length: 40 }, (_, i) => 100 + i);
    const result = evaluateMarket({ plan: planOf(stockTemplate, { rsiThreshold: 70 }), market: 'AAPL', candles: candles(closes), onChain: { configured: false } });
    expect(rule(result, 'RSI extreme')).toMatchObject({ status: 'evaluated', fired: true, values: { rsi: 100, threshold: 70 } });
    expect(result.indicators['RSI 14']).toBe(100);
  });

  it('RSI extreme fires below 100 minus the threshold and not in between', () => {
    const falling = Array.from({ length: 40 }, (_, i) => 200 - i);
    const down = evaluateMarket({ plan: planOf(stockTemplate, { rsiThreshold: 70 }), market: 'X', candles: candles(falling), onChain: { configured: false } });
    expect(rule(down, 'RSI extreme')).toMatchObject({ fired: true, values: { rsi: 0 } });
    // Alternating +1/-1: Wilder's averages of gains and losses stay close, RSI near 50.
    const zigzag = Array.from({ length: 41 }, (_, i) => 100 + (i % 2));
    const flat = evaluateMarket({ plan: planOf(stockTemplate, { rsiThreshold: 70 }), market: 'X', candles: candles(zigzag), onChain: { configured: false } });
    expect(rule(flat, 'RSI extreme').fired).toBe(false);
    expect(rule(flat, 'RSI extreme').values.rsi).toBeGreaterThan(40);
    expect(rule(flat, 'RSI extreme').values.rsi).toBeLessThan(60);
  });

  it('on flat prices RSI is undefined and no rule fires', () => {
    const result = evaluateMarket({ plan: planOf(stockTemplate), market: 'X', candles: candles(Array(40).fill(50)), onChain: { configured: false } });
    expect(rule(result, 'RSI extreme')).toMatchObject({ status: 'insufficient data', fired: false, values: { rsi: null } });
    expect(result.rules.every((r) => !r.fired)).toBe(true);
    expect(result.indicators['RSI 14']).toBeNull();
  });

  it('moving average crossover fires only on the candle that crosses above', () => {
    // 24 closes at 100, then 90 (below the 5-candle SMA of 98), then 110 (above the SMA of 100).
    const closes = [...Array(24).fill(100), 90, 110];
    const result = evaluateMarket({ plan: planOf(stockTemplate, { movingAveragePeriod: 5 }), market: 'X', candles: candles(closes), onChain: { configured: false } });
    // SMA5 at the last candle: (100+100+100+90+110)/5 = 100; previous: (100*4+90)/5 = 98.
    expect(rule(result, 'Moving average crossover')).toMatchObject({ fired: true, values: { close: 110, ma: 100, previousClose: 90, previousMa: 98, period: 5 } });
    const after = evaluateMarket({ plan: planOf(stockTemplate, { movingAveragePeriod: 5 }), market: 'X', candles: candles([...closes, 111]), onChain: { configured: false } });
    expect(rule(after, 'Moving average crossover').fired).toBe(false);
    expect(result.chart.markers).toContainEqual({ time: 25 * MINUTE, rule: 'Moving average crossover' });
  });

  it('volume spike compares with twice the average of the previous 20 candles', () => {
    const closes = Array(30).fill(100).map((c, i) => c + (i % 2));
    const spike = evaluateMarket({ plan: planOf(stockTemplate), market: 'X', candles: candles(closes, { 29: { volume: 2001 } }), onChain: { configured: false } });
    expect(rule(spike, 'Volume spike')).toMatchObject({ fired: true, values: { volume: 2001, averageVolume: 1000, factor: 2 } });
    const exact = evaluateMarket({ plan: planOf(stockTemplate), market: 'X', candles: candles(closes, { 29: { volume: 2000 } }), onChain: { configured: false } });
    expect(rule(exact, 'Volume spike').fired).toBe(false);
    const off = evaluateMarket({ plan: planOf(stockTemplate, { includeVolume: false }), market: 'X', candles: candles(closes), onChain: { configured: false } });
    expect(off.rules.map((r) => r.name)).not.toContain('Volume spike');
  });

  it('computes the chosen indicators and overlays them on the last 60 candles', () => {
    const closes = Array.from({ length: 150 }, (_, i) => 100 + Math.sin(i / 5) * 10);
    const result = evaluateMarket({
      plan: planOf(stockTemplate, { indicators: ['SMA', 'EMA', 'MACD', 'Bollinger Bands', 'Stochastic Oscillator'], movingAveragePeriod: 10 }),
      market: 'X',
      candles: candles(closes),
      onChain: { configured: false },
    });
    const sma10 = closes.slice(-10).reduce((a, b) => a + b, 0) / 10;
    expect(result.indicators['SMA 10']).toBeCloseTo(sma10, 9);
    expect(Object.keys(result.indicators)).toEqual(
      expect.arrayContaining(['EMA 10', 'MACD', 'MACD signal', 'MACD histogram', 'Bollinger upper', 'Bollinger middle', 'Bollinger lower', '%K', '%D', 'RSI 14']),
    );
    expect(result.chart.candles).toHaveLength(CHART_CANDLES);
    expect(result.chart.overlays['SMA 10']).toHaveLength(CHART_CANDLES);
    expect(result.chart.overlays['SMA 10']!.at(-1)).toBeCloseTo(sma10, 5);
    expect(Object.keys(result.chart.overlays)).toEqual(['SMA 10', 'EMA 10', 'Bollinger upper', 'Bollinger middle', 'Bollinger lower']);
  });
});

describe('crypto rules', () => {
  const steady = Array.from({ length: 30 }, (_, i) => 100 + (i % 2) * 0.1);

  it('price change fires when the last candle moves more than the threshold either way', () => {
    const up = evaluateMarket({ plan: planOf(cryptoTemplate, { priceChangeThreshold: 3 }), market: 'BTC/USDT on binance', candles: candles([...steady, 104]), onChain: { configured: false } });
    // 104 / 100.1 - 1 = 3.896%
    expect(rule(up, 'Price change')).toMatchObject({ fired: true });
    expect(rule(up, 'Price change').values.percentChange).toBeCloseTo(3.8961, 3);
    const down = evaluateMarket({ plan: planOf(cryptoTemplate, { priceChangeThreshold: 3 }), market: 'X', candles: candles([...steady, 97]), onChain: { configured: false } });
    expect(rule(down, 'Price change').fired).toBe(true);
    const small = evaluateMarket({ plan: planOf(cryptoTemplate, { priceChangeThreshold: 3 }), market: 'X', candles: candles([...steady, 101]), onChain: { configured: false } });
    expect(rule(small, 'Price change').fired).toBe(false);
  });

  it('volatility spike compares the candle range with the average range times the threshold', () => {
    // Every candle spans 1% (0.995-1.005 of the close); the last spans 2.5%.
    const wide = candles([...steady, 100], { [steady.length]: { high: 101.25, low: 98.75 } });
    const result = evaluateMarket({ plan: planOf(cryptoTemplate, { volatilityThreshold: 2 }), market: 'X', candles: wide, onChain: { configured: false } });
    expect(rule(result, 'Volatility spike').fired).toBe(true);
    expect(rule(result, 'Volatility spike').values.volatility).toBeCloseTo(2.5, 9);
    expect(rule(result, 'Volatility spike').values.averageVolatility).toBeCloseTo(1, 9);
    const calm = evaluateMarket({ plan: planOf(cryptoTemplate, { volatilityThreshold: 3 }), market: 'X', candles: wide, onChain: { configured: false } });
    expect(rule(calm, 'Volatility spike').fired).toBe(false);
  });

  it('volume surge fires above 1.5 times the average', () => {
    const result = evaluateMarket({ plan: planOf(cryptoTemplate), market: 'X', candles: candles(steady, { [steady.length - 1]: { volume: 1501 } }), onChain: { configured: false } });
    expect(rule(result, 'Volume surge')).toMatchObject({ fired: true, values: { volume: 1501, averageVolume: 1000, factor: 1.5 } });
  });

  it('on-chain rules say not configured without a source, never invented data', () => {
    const result = evaluateMarket({ plan: planOf(cryptoTemplate, { walletTracking: true }), market: 'X', candles: candles(steady), onChain: { configured: false } });
    expect(rule(result, 'Whale transaction')).toMatchObject({ status: 'not configured', fired: false, values: {} });
    expect(rule(result, 'Wallet tracking')).toMatchObject({ status: 'not configured', fired: false });
    expect(rule(result, 'Whale transaction').detail).toContain('not configured');
  });

  it('a failed on-chain source shows its kind\'s sentence, never what the provider said', () => {
    const onChain = { configured: true, ok: false, failure: 'rate-limited', cause: { providerMessage: 'usage limit reached 7QX-canary' } } as const;
    const result = evaluateMarket({ plan: planOf(cryptoTemplate), market: 'X', candles: candles(steady), onChain });
    expect(rule(result, 'Whale transaction')).toMatchObject({ status: 'insufficient data', fired: false, detail: `on-chain source failed: ${MARKET_FAILURES['rate-limited']}` });
    expect(JSON.stringify(result)).not.toContain('7QX-canary');
  });

  it('whale transaction fires when the source reports transfers', () => {
    const tx = { hash: 'h', blockchain: 'bitcoin', symbol: 'btc', amount: 50, amountUsd: 3_000_000, from: 'unknown', to: 'binance', time: new Date(0).toISOString() };
    const result = evaluateMarket({ plan: planOf(cryptoTemplate), market: 'X', candles: candles(steady), onChain: { configured: true, ok: true, transactions: [tx] } });
    expect(rule(result, 'Whale transaction')).toMatchObject({ status: 'evaluated', fired: true, values: { transactions: 1, largestUsd: 3_000_000 } });
  });
});

describe('notification thresholds', () => {
  const steady = Array.from({ length: 30 }, () => 100);

  it('measure each threshold as contracts define it: value and limit in the same unit', () => {
    const thresholds = [
      { type: 'priceChange' as const, value: 5, message: 'Moved' },
      { type: 'volumeSpike' as const, value: 200, message: 'Spike' },
      { type: 'volatilityAlert' as const, value: 2, message: 'Wild' },
      { type: 'volumeAlert' as const, value: 150, message: 'Busy' },
    ];
    const last = steady.length;
    const result = evaluateMarket({
      plan: planOf(cryptoTemplate, {}, thresholds),
      market: 'BTC/USDT on binance',
      candles: candles([...steady, 106], { [last]: { volume: 1600, high: 106 * 1.005, low: 106 * 0.995 } }),
      onChain: { configured: false },
    });
    const byType = Object.fromEntries(result.thresholds.map((t) => [t.thresholdType, t]));
    // 100 -> 106: 6% against 5%.
    expect(byType.priceChange).toMatchObject({ firing: true, value: 6, limit: 5 });
    expect(byType.priceChange!.message).toBe('Moved (BTC/USDT on binance: 6% > 5%, up from 100.00 to 106.00)');
    // Volume 1600 against the average 1000 of the 20 before: 160% of average.
    expect(byType.volumeSpike).toMatchObject({ firing: false, value: 160, limit: 200 });
    expect(byType.volumeAlert).toMatchObject({ firing: true, value: 160, limit: 150 });
    expect(byType.volumeAlert!.message).toBe('Busy (BTC/USDT on binance: 160% > 150% of average volume, volume 1.6K against an average of 1K)');
    // Range 106 x 1% = 1.06 on a close of 106: 1% of the price against 2%.
    expect(byType.volatilityAlert).toMatchObject({ firing: false, value: 1, limit: 2 });
  });

  it('needs the averaging window before volume thresholds can fire', () => {
    const result = evaluateMarket({ plan: planOf(cryptoTemplate), market: 'X', candles: candles(steady.slice(0, AVERAGE_WINDOW)), onChain: { configured: false } });
    expect(result.thresholds.map((t) => t.thresholdType)).toEqual(['priceChange', 'volatilityAlert']);
  });
});

describe('the recent moves a run records (what a brief compares with)', () => {
  it('puts the latest candle beside the averages of the 20 before it', () => {
    // Closes alternate 100 and 101 for 22 candles (each change ±1 against its previous close),
    // then 103.02: +2% on 101. Volumes 1000 except 2500 on the latest; ranges 1% of the close.
    const closes = [...Array.from({ length: 22 }, (_, i) => (i % 2 === 0 ? 100 : 101)), 103.02];
    const series = candles(closes, { 22: { volume: 2500, high: 104.02, low: 102.02 } });
    const { recent } = evaluateMarket({ plan: planOf(cryptoTemplate), market: 'X', candles: series, onChain: { configured: false } });
    // The 20 changes before the latest: 10 of +1% and 10 of -0.990099%; mean size 0.995.
    expect(recent).toEqual({
      window: AVERAGE_WINDOW,
      changePercent: 2,
      averageAbsChangePercent: 0.995,
      volume: 2500,
      averageVolume: 1000,
      rangePercent: 1.9414,
      averageRangePercent: 1,
    });
  });

  it('says null where the history is too short for an average, never a made-up number', () => {
    const { recent } = evaluateMarket({ plan: planOf(cryptoTemplate), market: 'X', candles: candles([100, 101, 102]), onChain: { configured: false } });
    expect(recent).toEqual({ window: AVERAGE_WINDOW, changePercent: 0.9901, averageAbsChangePercent: null, volume: 1000, averageVolume: null, rangePercent: 1, averageRangePercent: null });
  });
});

describe('performanceSince', () => {
  it('is the signed mean percent change of the prices both runs saw', () => {
    const before = new Map([['yahoo:AAPL', 100], ['yahoo:MSFT', 200]]);
    expect(performanceSince(before, new Map([['yahoo:AAPL', 101], ['yahoo:MSFT', 204]]))).toBe('+1.5%');
    expect(performanceSince(before, new Map([['yahoo:AAPL', 98.8]]))).toBe('-1.2%');
    expect(performanceSince(before, new Map([['yahoo:AAPL', 100]]))).toBe('0.0%');
    expect(performanceSince(before, new Map([['yahoo:TSLA', 100]]))).toBeNull();
  });
});
