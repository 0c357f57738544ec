import { describe, expect, it } from 'vitest';
import type { TClauseOutcome } from '../../../contracts/condition-outcomes.ts';
import type { TConditionGroup } from '../../../contracts/conditions.ts';
import { metText } from './run-conditions.ts';

const rsiBelow30 = { kind: 'clause' as const, left: { indicator: 'rsi' as const, period: 14 }, operator: 'crosses-below' as const, right: { indicator: 'number' as const, value: 30 } };
const closeAboveEma = {
  kind: 'clause' as const,
  left: { indicator: 'close' as const },
  operator: 'above' as const,
  right: { indicator: 'ema' as const, period: 200, timeframe: '1d' as const },
};
const outcome = (path: string, met: boolean | null, sides: Array<[string, number | null, number | null]>): TClauseOutcome => ({
  path,
  text: '',
  met,
  sides: sides.map(([label, at, before]) => ({ label, at, before })),
});

/** Issue 30 item 4: a met condition in the notification's plain words, with the values that decided. */
describe('metText', () => {
  it("says a crossing in the past with the side's value and the one before, the agent's timeframe named", () => {
    const group: TConditionGroup = { kind: 'group', join: 'all', clauses: [rsiBelow30] };
    expect(metText(group, [outcome('0', true, [['RSI (14)', 29.4, 31.2], ['30', 30, 30]])], '1h')).toBe('RSI (14) on 1 hour crossed below 30 (29.4, before 31.2)');
  });

  it('names both sides when both are read, and says every clause of an all-of', () => {
    const group: TConditionGroup = { kind: 'group', join: 'all', clauses: [rsiBelow30, closeAboveEma] };
    const clauses = [outcome('0', true, [['RSI (14)', 29.4, 31.2], ['30', 30, 30]]), outcome('1', true, [['close', 101.23456789, 100], ['EMA (200) on 1 day', 100.9, 100.8]])];
    expect(metText(group, clauses, '1h')).toBe('RSI (14) on 1 hour crossed below 30 (29.4, before 31.2) and close on 1 hour is above EMA (200) on 1 day (close 101.235, EMA (200) on 1 day 100.9)');
  });

  it('says only the met clauses of an any-of, a group inside in parentheses', () => {
    const group: TConditionGroup = {
      kind: 'group',
      join: 'any',
      clauses: [rsiBelow30, { kind: 'group', join: 'all', clauses: [closeAboveEma, { ...closeAboveEma, operator: 'below', right: { indicator: 'number', value: 120 } }] }],
    };
    const clauses = [outcome('0', false, [['RSI (14)', 45, 44], ['30', 30, 30]]), outcome('1.0', true, [['close', 101, 100], ['EMA (200) on 1 day', 100.9, 100.8]]), outcome('1.1', true, [['close', 101, 100], ['120', 120, 120]])];
    expect(metText(group, clauses, '15m')).toBe('(close on 15 minutes is above EMA (200) on 1 day (close 101, EMA (200) on 1 day 100.9) and close on 15 minutes is below 120 (101))');
  });
});
