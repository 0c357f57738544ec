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
    expect(validateAgentConfig('forex-bot', defaults(STOCK))).toEqual([{ path: 'templateId', message: "unknown template 'forex-bot'" }]);
  });

  it.each<[string, string, TParameterValue, string | null]>([
    // number: 5-200, default step 1
    [STOCK, 'movingAveragePeriod', 4, 'must be between 5 and 200'],
    [STOCK, 'movingAveragePeriod', 5, null],
    [STOCK, 'movingAveragePeriod', 200, null],
    [STOCK, 'movingAveragePeriod', 201, 'must be between 5 and 200'],
    [STOCK, 'movingAveragePeriod', 20.5, 'must be a whole number'],
    [STOCK, 'movingAveragePeriod', '20', 'must be a number'],
    // slider: 0-100, default step 1
    [STOCK, 'rsiThreshold', -1, 'must be between 0 and 100'],
    [STOCK, 'rsiThreshold', 0, null],
    [STOCK, 'rsiThreshold', 100, null],
    [STOCK, 'rsiThreshold', 101, 'must be between 0 and 100'],
    // slider 1-5 step 0.1, number 0.1-20 step 0.1: on the grid from the minimum
    [CRYPTO, 'volatilityThreshold', 2.05, 'must be a multiple of 0.1 from 1'],
    [CRYPTO, 'volatilityThreshold', 2.1, null],
    [CRYPTO, 'volatilityThreshold', 5, null],
    [CRYPTO, 'priceChangeThreshold', 0.3, null],
    [CRYPTO, 'priceChangeThreshold', 0.05, 'must be between 0.1 and 20'],
    [CRYPTO, 'priceChangeThreshold', 19.99, 'must be a multiple of 0.1 from 0.1'],
    // select
    [STOCK, 'timeframe', 'hourly', null],
    [STOCK, 'timeframe', '4h', 'must be one of 1min, 5min, 15min, 30min, hourly, daily, weekly'],
    [CRYPTO, 'timeframe', ['1h'], 'must be one of 1min, 5min, 15min, 30min, 1h, 4h, 1d'],
    // multi-select
    [CRYPTO, 'exchanges', ['Huobi', 'KuCoin'], null],
    [CRYPTO, 'exchanges', ['Binance', 'Mt. Gox'], "'Mt. Gox' is not one of Binance, Coinbase, Kraken, FTX, Huobi, KuCoin"],
    [CRYPTO, 'exchanges', ['Binance', 'Binance'], 'lists Binance twice'],
    [CRYPTO, 'exchanges', ['Binance', 'FTX'], 'FTX is closed since 2022'],
    [CRYPTO, 'exchanges', [], 'choose at least one'],
    [CRYPTO, 'exchanges', 'Binance', 'must be a list of Binance, Coinbase, Kraken, FTX, Huobi, KuCoin'],
    // boolean
    [CRYPTO, 'walletTracking', true, null],
    [CRYPTO, 'walletTracking', 'true', 'must be true or false'],
    // string with a pattern, textarea
    [CRYPTO, 'token', 'ETH', null],
    [CRYPTO, 'token', 'btc', 'must be 2 to 10 capital letters (e.g. BTC)'],
    [CRYPTO, 'token', 'B', 'must be 2 to 10 capital letters (e.g. BTC)'],
    [CRYPTO, 'token', 'TOOLONGTOKEN1', 'must be 2 to 10 capital letters (e.g. BTC)'],
    [CRYPTO, 'token', 42, 'must be text'],
    [STOCK, 'symbols', 'x'.repeat(2000), null],
    [STOCK, 'symbols', 'x'.repeat(2001), 'must be at most 2000 characters'],
    [STOCK, 'symbols', '  ', 'is required'],
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
      { path: 'parameters.leverage', message: 'unknown parameter' },
      { path: 'parameters.constructor', message: 'unknown parameter' },
      { path: 'parameters.indicators', message: 'is required' },
    ]);
  });

  it('requires active hours to start before they end, and each day once', () => {
    const config = defaults(STOCK);
    config.schedule.activeHours = { start: '16:00', end: '09:30' };
    config.schedule.daysActive = ['Monday', 'Monday'];
    expect(validateAgentConfig(STOCK, config)).toEqual([
      { path: 'schedule.activeHours', message: 'start must be before end' },
      { path: 'schedule.daysActive', message: 'lists Monday twice' },
    ]);
    config.schedule.activeHours = { start: '09:30', end: '09:30' };
    config.schedule.daysActive = ['Monday'];
    expect(validateAgentConfig(STOCK, config)).toEqual([{ path: 'schedule.activeHours', message: 'start must be before end' }]);
  });
});
