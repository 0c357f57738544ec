import { FORWARD_HORIZONS, type TBacktestEvent, type TBacktestMarket, type TBacktestResult, type TBacktestRow, type TForwardStats } from '../../../../contracts/backtest.ts';
import type { TAgent, TRunHistoryAnswer } from '../../../../contracts/agents.ts';

/** A running agent whose latest run failed, after an earlier success. */
export const failingAgent = (agent: TAgent, reason = 'BTC/USD (kraken): The data provider is having trouble on its side.'): TAgent => ({
  ...agent,
  health: { state: 'failing', reason, lastSuccessAt: '2025-03-04T08:05:02.000Z' },
});

export const STOCK_AGENT: TAgent = {
  id: '11111111-1111-4111-8111-111111111111',
  name: 'Tech watch',
  templateId: 'stock-market-scanner',
  status: 'running',
  lastRun: '2025-03-04T10:05:00.000Z',
  performance: '+2.5%',
  createdAt: '2025-03-01T09:00:00.000Z',
  nextRunAt: '2025-03-04T11:00:00.000Z',
  health: { state: 'healthy', reason: null, lastSuccessAt: '2025-03-04T10:05:02.000Z' },
  config: {
    schedule: { frequency: 'hourly', daysActive: ['Monday', 'Tuesday'], activeHours: { start: '09:30', end: '16:00' }, timeZone: 'UTC' },
    notifications: { email: true, inApp: false, thresholds: [] },
    parameters: { symbols: 'AAPL', indicators: ['SMA'], timeframe: 'daily', rsiThreshold: 70, movingAveragePeriod: 20, includeVolume: true },
  },
};

export const CRYPTO_AGENT: TAgent = {
  id: '22222222-2222-4222-8222-222222222222',
  name: 'Coins',
  templateId: 'crypto-market-monitor',
  status: 'paused',
  lastRun: null,
  performance: '-1.2%',
  createdAt: '2025-03-02T09:00:00.000Z',
  nextRunAt: null,
  health: { state: 'new', reason: null, lastSuccessAt: null },
  config: {
    schedule: { frequency: '5min', daysActive: ['Monday'], activeHours: { start: '00:00', end: '23:59' }, timeZone: 'UTC' },
    notifications: { email: false, inApp: true, thresholds: [{ type: 'priceChange', value: 3, message: 'Price moved' }] },
    parameters: { token: 'BTC', exchanges: ['Binance'], timeframe: '15min', includeOnChainMetrics: true, volatilityThreshold: 2, priceChangeThreshold: 3, walletTracking: false },
  },
};

/** The runs answer as the server sends it (the first holds a result of an older shape). */
export const RUNS: TRunHistoryAnswer = [
  { id: 7, scheduledFor: null, status: 'success', startTime: '2025-03-04T10:05:00.000Z', endTime: '2025-03-04T10:05:02.345Z', result: { signals: 2 }, error: null, createdAt: '2025-03-04T10:05:00.000Z' },
  { id: 6, scheduledFor: null, status: 'failure', startTime: '2025-03-04T09:05:00.000Z', endTime: '2025-03-04T09:05:01.000Z', result: null, error: 'Exchange timeout', createdAt: '2025-03-04T09:05:00.000Z' },
  { id: 8, scheduledFor: null, status: 'queued', startTime: null, endTime: null, result: null, error: null, createdAt: '2025-03-04T11:05:00.000Z' },
];

const HOUR = 3_600_000;
const BACKTEST_T0 = Date.UTC(2025, 0, 6, 0, 0);
const forward = (average: number | null, median: number | null, shareInDirection: number | null, count = 10): TForwardStats[] =>
  FORWARD_HORIZONS.map((horizon, i) => ({ horizon, count, average: average === null ? null : average * (i + 1), median: median === null ? null : median * (i + 1), shareInDirection }));

/** One row of a test's result: a signal by default ('RSI extreme', fired 12 times). */
export const backtestRow = (overrides: Partial<TBacktestRow> = {}): TBacktestRow => ({
  kind: 'signal',
  key: 'RSI extreme',
  label: 'RSI extreme',
  fired: 12,
  notifications: null,
  forward: forward(1.25, 0.8, 0.75),
  ...overrides,
});

/** A market of a test's result: 100 hourly candles of AAPL from Yahoo, one RSI firing and one alert. */
export function backtestMarket(overrides: Partial<Extract<TBacktestMarket, { ok: true }>> = {}): Extract<TBacktestMarket, { ok: true }> {
  const candles = Array.from({ length: 100 }, (_, i) => ({ time: BACKTEST_T0 + i * HOUR, open: 100 + i, high: 102 + i, low: 99 + i, close: 101 + i, volume: 1000 }));
  return {
    ok: true,
    label: 'AAPL',
    symbol: 'AAPL',
    source: 'yahoo',
    simulated: false,
    timeframe: '1h',
    from: new Date(BACKTEST_T0).toISOString(),
    to: new Date(BACKTEST_T0 + 99 * HOUR).toISOString(),
    evaluated: 100,
    history: { requested: 150, received: 150, cached: 0, short: null },
    rows: [backtestRow(), backtestRow({ kind: 'alert', key: 'threshold-0', label: 'Price change > 5%', fired: 4, notifications: 2, forward: forward(-0.5, -0.25, 0.5) })],
    firings: [
      { key: 'RSI extreme', time: BACKTEST_T0 + 10 * HOUR, price: 111, direction: 'down', detail: 'RSI 74.2 > 70', notified: false, forward: [-1.5, 2, null] },
      { key: 'threshold-0', time: BACKTEST_T0 + 20 * HOUR, price: 121, direction: 'up', detail: 'Big move (AAPL: 5.2% > 5%)', notified: true, forward: [0.25, -3, 4.5] },
    ],
    firingsOmitted: 0,
    chart: {
      candles,
      overlays: {},
      markers: [
        { time: BACKTEST_T0 + 10 * HOUR, rule: 'RSI extreme' },
        { time: BACKTEST_T0 + 20 * HOUR, rule: 'Price change > 5%' },
      ],
    },
    ...overrides,
  };
}

/** A whole test's result over one market (backtestMarket), quiet: no flood, alerts on. */
export function backtestResult(overrides: Partial<TBacktestResult> = {}): TBacktestResult {
  const market = backtestMarket();
  return {
    templateId: 'stock-market-scanner',
    candles: 100,
    simulated: false,
    timeZone: 'UTC',
    channels: { email: true, inApp: false },
    markets: [market],
    notTested: [],
    summary: market.rows,
    notifications: { total: 2, maxPerHour: 12, held: 0, stormNotices: 0, days: 5, perDay: 0.4, worstDay: { date: '2025-01-06', count: 1 }, floodDays: 0 },
    ...overrides,
  };
}

/** A test's answer as the server streams it: one JSON event per line. */
export const ndjson = (events: readonly TBacktestEvent[]) => events.map((event) => `${JSON.stringify(event)}\n`).join('');
