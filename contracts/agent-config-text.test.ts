import { describe, expect, it } from 'vitest';
import { configDifferences, configLines, configLineText, daysText, scheduleText } from './agent-config-text.ts';
import { defaultAgentConfig, findTemplate, type TAgentConfig } from './agents.ts';

const monitor = (): TAgentConfig => ({
  ...defaultAgentConfig(findTemplate('custom-monitor')!, 'Europe/Paris'),
  parameters: { timeframe: '1h' },
  watchlist: [
    { kind: 'stock', symbol: 'AAPL' },
    { kind: 'crypto', symbol: 'BTC/USDT', exchange: 'kraken' },
  ],
  conditions: [
    {
      id: '11111111-1111-4111-8111-111111111111',
      name: 'Oversold',
      when: { kind: 'group', join: 'all', clauses: [{ kind: 'clause', left: { indicator: 'rsi', period: 14 }, operator: 'crosses-below', right: { indicator: 'number', value: 30 } }] },
      trigger: { mode: 'once-per-close', cooldownMinutes: 60 },
    },
  ],
});

describe('an agent’s configuration in plain words', () => {
  it('days and schedules read as a person says them', () => {
    expect(daysText(['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'])).toBe('Monday to Friday');
    expect(daysText(['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'])).toBe('Every day');
    expect(daysText(['Wednesday', 'Monday'])).toBe('Monday, Wednesday');
    expect(scheduleText({ frequency: 'hourly', daysActive: ['Monday'], activeHours: { start: '09:30', end: '16:00' }, timeZone: 'America/New_York' })).toBe('Hourly, Monday, 09:30 – 16:00 (America/New_York)');
  });

  it('a line per field in the wizard’s names: template, schedule, parameters, watchlist, conditions, alerts, notifications', () => {
    const lines = configLines('custom-monitor', monitor()).map(configLineText);
    expect(lines[0]).toBe('Template: Custom Monitor');
    expect(lines).toContain('Watchlist: AAPL, BTC/USDT on kraken');
    expect(lines).toContain('Condition 1: Oversold: RSI (14) on 1 hour crosses below 30 (Once per candle close, at most every 1 hour)');
    expect(lines.at(-1)).toMatch(/^Notifications: .*at most 12 per hour$/);
  });

  it('differences name each changed field with its words before and after', () => {
    const before = { name: 'Watch', templateId: 'custom-monitor', config: monitor() };
    const after = { name: 'Watch 2', templateId: 'custom-monitor', config: { ...monitor(), watchlist: [{ kind: 'stock' as const, symbol: 'MSFT' }] } };
    expect(configDifferences(before, after)).toEqual([
      { field: 'Name', before: 'Watch', after: 'Watch 2' },
      { field: 'Watchlist', before: 'AAPL, BTC/USDT on kraken', after: 'MSFT' },
    ]);
    expect(configDifferences(before, before)).toEqual([]);
  });
});
