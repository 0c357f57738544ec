import { describe, expect, it } from 'vitest';
import { ALL_SOURCES, parameterRule, parameterSchema } from './agent-parameters.ts';
import { defaultAgentConfig, findTemplate } from './agents.ts';

const definitions = (templateId: string) => findTemplate(templateId)!.defaultConfig.parameters;

describe('parameterRule: the hint states the rule the server checks', () => {
  it.each([
    ['crypto-market-monitor', 'token', 'Required, must be 2 to 10 capital letters (e.g. BTC).'],
    ['crypto-market-monitor', 'volatilityThreshold', 'Must be between 1 and 5, a multiple of 0.1 from 1.'],
    ['crypto-market-monitor', 'priceChangeThreshold', 'Must be between 0.1 and 20, a multiple of 0.1 from 0.1.'],
    ['crypto-market-monitor', 'exchanges', 'Choose at least one.'],
    ['stock-market-scanner', 'symbols', 'Required.'],
    ['stock-market-scanner', 'rsiThreshold', 'Must be between 0 and 100, a whole number.'],
    ['stock-market-scanner', 'movingAveragePeriod', 'Must be between 5 and 200, a whole number.'],
  ])('%s %s: %s', (templateId, key, rule) => {
    expect(parameterRule(definitions(templateId)[key]!)).toBe(rule);
  });

  it.each([
    ['stock-market-scanner', 'timeframe'],
    ['stock-market-scanner', 'includeVolume'],
  ])('%s %s: the control allows nothing else, so no rule', (templateId, key) => {
    expect(parameterRule(definitions(templateId)[key]!)).toBeNull();
  });

  it("the hint's words are the server's error for a value that breaks it, which names the field by its label", () => {
    const period = definitions('stock-market-scanner').movingAveragePeriod!;
    const error = parameterSchema(period).safeParse(4).error!.issues[0]!.message;
    expect(error).toBe('Moving average period must be between 5 and 200');
    expect(parameterRule(period)!.toLowerCase()).toContain(error.slice(`${period.label} `.length));
    const token = definitions('crypto-market-monitor').token!;
    const tokenError = parameterSchema(token).safeParse('btc').error!.issues[0]!.message;
    expect(tokenError).toBe('Token must be 2 to 10 capital letters (e.g. BTC)');
    expect(parameterRule(token)).toContain(tokenError.slice(`${token.label} `.length));
  });
});

// Issue 29 item 11: every run of a crypto agent made with the template's defaults said 'Whale
// transaction: not configured' where the server has no on-chain source.
describe('defaults and the sources a server has', () => {
  const crypto = findTemplate('crypto-market-monitor')!;
  it("start on-chain metrics off where no on-chain source is configured, and keep SPEC's default where one is", () => {
    expect(defaultAgentConfig(crypto, 'UTC', { onChain: false }).parameters).toMatchObject({ includeOnChainMetrics: false, walletTracking: false });
    expect(defaultAgentConfig(crypto, 'UTC', { onChain: true }).parameters).toMatchObject({ includeOnChainMetrics: true, walletTracking: false });
    expect(defaultAgentConfig(crypto).parameters).toEqual(defaultAgentConfig(crypto, 'UTC', ALL_SOURCES).parameters);
    // The template itself is SPEC's (section 3: includeOnChainMetrics, boolean, default true).
    expect(crypto.defaultConfig.parameters.includeOnChainMetrics).toMatchObject({ default: true, needs: 'onChain' });
  });

  it('leave every other parameter as the template gives it', () => {
    const stock = findTemplate('stock-market-scanner')!;
    expect(defaultAgentConfig(stock, 'UTC', { onChain: false })).toEqual(defaultAgentConfig(stock));
    const { includeOnChainMetrics: _off, ...rest } = defaultAgentConfig(crypto, 'UTC', { onChain: false }).parameters;
    const { includeOnChainMetrics: _on, ...same } = defaultAgentConfig(crypto).parameters;
    expect(rest).toEqual(same);
  });
});
