import { describe, expect, it } from 'vitest';
import { parameterRule, parameterSchema } from './agent-parameters.ts';
import { findTemplate } from './agents.ts';

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
