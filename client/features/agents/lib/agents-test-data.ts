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
