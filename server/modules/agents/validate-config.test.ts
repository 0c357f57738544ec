import { describe, expect, it } from 'vitest';
import type { TParameterValue } from '../../../contracts/agent-parameters.ts';
import { defaultAgentConfig, findTemplate, type TAgentConfig } from '../../../contracts/agents.ts';
import { validateAgentConfig } from './validate-config.ts';

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
    expect(validateAgentConfig('forex-bot', defaults(STOCK))).toEqual([{ path: 'templateId', message: "Template 'forex-bot' does not exist: choose Stock Market Scanner or Crypto Market Monitor" }]);
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
});
