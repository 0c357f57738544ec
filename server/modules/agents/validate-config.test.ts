import { describe, expect, it } from 'vitest';
import type { TParameterValue } from '../../../contracts/agent-parameters.ts';
import { defaultAgentConfig, findTemplate, type TAgentConfig } from '../../../contracts/agents.ts';
import { CUSTOM_MONITOR, validateAgentConfig, WATCHES_NOTHING, WATCHLIST_REFUSED, WATCHLIST_REQUIRED } from './validate-config.ts';
import { customMonitorConfig, sampleCondition } from '../../test/agent-fixtures.ts';

/** A template's own defaults as a submitted config, as the wizard starts it. */
const defaults = (templateId: string): TAgentConfig => defaultAgentConfig(findTemplate(templateId)!, 'Europe/Paris');

const STOCK = 'stock-market-scanner';
const CRYPTO = 'crypto-market-monitor';

function problemsWith(templateId: string, key: string, value: TParameterValue) {
  const config = defaults(templateId);
  config.parameters[key] = value;
  return validateAgentConfig(templateId, config);
}

describe('validateAgentConfig', () => {
  it('accepts both templates’ defaults', () => {
    expect(validateAgentConfig(STOCK, defaults(STOCK))).toEqual([]);
    expect(validateAgentConfig(CRYPTO, defaults(CRYPTO))).toEqual([]);
  });

  it('refuses an unknown template', () => {
    expect(validateAgentConfig('forex-bot', defaults(STOCK))).toEqual([{ path: 'templateId', message: "Template 'forex-bot' does not exist: choose Stock Market Scanner, Crypto Market Monitor or Custom Monitor" }]);
  });

  it.each<[string, string, TParameterValue, string | null]>([
    // number: 5-200, default step 1
    [STOCK, 'movingAveragePeriod', 4, 'Moving average period must be between 5 and 200'],
    [STOCK, 'movingAveragePeriod', 5, null],
    [STOCK, 'movingAveragePeriod', 200, null],
    [STOCK, 'movingAveragePeriod', 201, 'Moving average period must be between 5 and 200'],
    [STOCK, 'movingAveragePeriod', 20.5, 'Moving average period must be a whole number'],
    [STOCK, 'movingAveragePeriod', '20', 'Moving average period must be a number'],
    // slider: 0-100, default step 1
    [STOCK, 'rsiThreshold', -1, 'RSI threshold must be between 0 and 100'],
    [STOCK, 'rsiThreshold', 0, null],
    [STOCK, 'rsiThreshold', 100, null],
    [STOCK, 'rsiThreshold', 101, 'RSI threshold must be between 0 and 100'],
    // slider 1-5 step 0.1, number 0.1-20 step 0.1: on the grid from the minimum
    [CRYPTO, 'volatilityThreshold', 2.05, 'Volatility threshold must be a multiple of 0.1 from 1'],
    [CRYPTO, 'volatilityThreshold', 2.1, null],
    [CRYPTO, 'volatilityThreshold', 5, null],
    [CRYPTO, 'priceChangeThreshold', 0.3, null],
    [CRYPTO, 'priceChangeThreshold', 0.05, 'Price change threshold (%) must be between 0.1 and 20'],
    [CRYPTO, 'priceChangeThreshold', 19.99, 'Price change threshold (%) must be a multiple of 0.1 from 0.1'],
    // select
    [STOCK, 'timeframe', 'hourly', null],
    [STOCK, 'timeframe', '4h', 'Timeframe must be one of 1min, 5min, 15min, 30min, hourly, daily, weekly'],
    [CRYPTO, 'timeframe', ['1h'], 'Timeframe must be one of 1min, 5min, 15min, 30min, 1h, 4h, 1d'],
    // multi-select
    [CRYPTO, 'exchanges', ['Huobi', 'KuCoin'], null],
    [CRYPTO, 'exchanges', ['Binance', 'Mt. Gox'], "Exchanges must be chosen from Binance, Coinbase, Kraken, FTX, HTX (Huobi), KuCoin, not 'Mt. Gox'"],
    [CRYPTO, 'exchanges', ['Binance', 'Binance'], 'Exchanges list Binance twice'],
    [CRYPTO, 'exchanges', ['Binance', 'FTX'], 'Exchanges: FTX is closed since 2022'],
    [CRYPTO, 'exchanges', [], 'Choose at least one of the exchanges'],
    [CRYPTO, 'exchanges', 'Binance', 'Exchanges must be a list chosen from Binance, Coinbase, Kraken, FTX, HTX (Huobi), KuCoin'],
    // boolean
    [CRYPTO, 'walletTracking', true, null],
    [CRYPTO, 'walletTracking', 'true', 'Wallet tracking must be on or off (true or false)'],
    // string with a pattern, textarea
    [CRYPTO, 'token', 'ETH', null],
    [CRYPTO, 'token', 'btc', 'Token must be 2 to 10 capital letters (e.g. BTC)'],
    [CRYPTO, 'token', 'B', 'Token must be 2 to 10 capital letters (e.g. BTC)'],
    [CRYPTO, 'token', 'TOOLONGTOKEN1', 'Token must be 2 to 10 capital letters (e.g. BTC)'],
    [CRYPTO, 'token', 42, 'Token must be text'],
    [STOCK, 'symbols', 'x'.repeat(2000), null],
    [STOCK, 'symbols', 'x'.repeat(2001), 'Symbols must be at most 2,000 characters'],
    [STOCK, 'symbols', '  ', 'Symbols is required'],
  ])('%s %s = %j -> %s', (templateId, key, value, message) => {
    expect(problemsWith(templateId, key, value)).toEqual(message === null ? [] : [{ path: `parameters.${key}`, message }]);
  });

  it('refuses unknown parameters, including inherited property names, and reports missing required ones', () => {
    const config = defaults(STOCK);
    config.parameters.leverage = 10;
    config.parameters['constructor'] = 'x'; // an Object.prototype name: not a parameter either
    delete config.parameters.indicators;
    delete config.parameters.includeVolume; // optional
    expect(validateAgentConfig(STOCK, config)).toEqual([
      { path: 'parameters.leverage', message: "This template has no parameter 'leverage'" },
      { path: 'parameters.constructor', message: "This template has no parameter 'constructor'" },
      { path: 'parameters.indicators', message: 'Indicators is required' },
    ]);
  });

  it('requires active hours to start before they end, and each day once', () => {
    const config = defaults(STOCK);
    config.schedule.activeHours = { start: '16:00', end: '09:30' };
    config.schedule.daysActive = ['Monday', 'Monday'];
    expect(validateAgentConfig(STOCK, config)).toEqual([
      { path: 'schedule.activeHours', message: 'The start of the active hours must be before their end' },
      { path: 'schedule.daysActive', message: 'Active days list Monday twice' },
    ]);
    config.schedule.activeHours = { start: '09:30', end: '09:30' };
    config.schedule.daysActive = ['Monday'];
    expect(validateAgentConfig(STOCK, config)).toEqual([{ path: 'schedule.activeHours', message: 'The start of the active hours must be before their end' }]);
  });

  describe('conditions and watchlists (issue 30)', () => {
    it('accepts conditions on every template, and a Custom Monitor with its watchlist', () => {
      expect(validateAgentConfig(STOCK, { ...defaults(STOCK), conditions: [sampleCondition()] })).toEqual([]);
      expect(validateAgentConfig(CRYPTO, { ...defaults(CRYPTO), parameters: { ...defaults(CRYPTO).parameters, timeframe: '1h' }, conditions: [sampleCondition()] })).toEqual([]);
      expect(validateAgentConfig(CUSTOM_MONITOR, customMonitorConfig())).toEqual([]);
    });

    it("refuses a side on a timeframe shorter than the agent's, and more than three timeframes, on their paths", () => {
      const condition = sampleCondition();
      const clause = condition.when.clauses[0]!;
      if (clause.kind !== 'clause') throw new Error('the sample starts with a clause');
      condition.when.clauses[0] = { ...clause, left: { indicator: 'rsi', period: 14, timeframe: '1h' } };
      const stock = { ...defaults(STOCK), conditions: [condition] };
      expect(validateAgentConfig(STOCK, stock)).toEqual([{ path: 'conditions.0.when.clauses.0.left.timeframe', message: "A timeframe must be the agent's (1 day) or longer" }]);

      // A daily agent reading 1 day, 1 week (the sample's group) and, by its timeframe, nothing shorter: fine; four timeframes are not.
      const hourly = { ...customMonitorConfig(), parameters: { timeframe: '1h' } };
      const wide = sampleCondition();
      wide.when.clauses.push({ kind: 'clause', left: { indicator: 'close', timeframe: '4h' }, operator: 'above', right: { indicator: 'sma', period: 50, timeframe: '1d' } });
      expect(validateAgentConfig(CUSTOM_MONITOR, { ...hourly, conditions: [wide] })).toEqual([
        { path: 'conditions', message: 'Conditions may read at most 3 timeframes; these read 4 (1 hour, 4 hours, 1 day, 1 week)' },
      ]);
    });

    it('a watchlist is the Custom Monitor’s: refused elsewhere, required there, and it must watch something', () => {
      const watchlist = customMonitorConfig().watchlist;
      expect(validateAgentConfig(STOCK, { ...defaults(STOCK), watchlist })).toEqual([{ path: 'watchlist', message: WATCHLIST_REFUSED }]);
      expect(WATCHLIST_REFUSED).toBe('This template watches its own markets; a watchlist is for the Custom Monitor');
      const { watchlist: _dropped, ...noWatchlist } = customMonitorConfig();
      expect(validateAgentConfig(CUSTOM_MONITOR, noWatchlist)).toEqual([{ path: 'watchlist', message: WATCHLIST_REQUIRED }]);
      expect(validateAgentConfig(CUSTOM_MONITOR, customMonitorConfig([]))).toEqual([{ path: 'conditions', message: WATCHES_NOTHING }]);
      // Thresholds alone are something to watch.
      const alerts = customMonitorConfig([]);
      alerts.notifications.thresholds = [{ type: 'priceChange', value: 3, message: 'Price change above 3%' }];
      expect(validateAgentConfig(CUSTOM_MONITOR, alerts)).toEqual([]);
    });
  });
});
