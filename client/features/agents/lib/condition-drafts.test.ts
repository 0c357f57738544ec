import { describe, expect, it } from 'vitest';
import type { TCondition } from '../../../../contracts/conditions.ts';
import { agentTimeframeOf, conditionErrorLine, conditionProblems, newClause, newCondition, operandFor, withOperator } from './condition-drafts.ts';

describe('condition drafts', () => {
  it("reads the agent's timeframe from its template's parameter", () => {
    expect(agentTimeframeOf({ timeframe: 'hourly' })).toBe('1h');
    expect(agentTimeframeOf({ timeframe: '15min' })).toBe('15m');
    expect(agentTimeframeOf({ timeframe: '1w' })).toBe('1w');
    expect(agentTimeframeOf({})).toBe('1h');
  });

  it('keeps a side\'s parameters within its indicator and its timeframe across any', () => {
    expect(operandFor('bollinger:lower', { indicator: 'bollinger', band: 'upper', period: 10, k: 3, timeframe: '1d' })).toEqual({ indicator: 'bollinger', band: 'lower', period: 10, k: 3, timeframe: '1d' });
    expect(operandFor('sma', { indicator: 'ema', period: 50, timeframe: '4h' })).toEqual({ indicator: 'sma', period: 20, timeframe: '4h' });
    expect(operandFor('number', { indicator: 'number', value: 7 })).toEqual({ indicator: 'number', value: 7 });
    expect(operandFor('stochastic:d', undefined)).toEqual({ indicator: 'stochastic', line: 'd', k: 14, d: 3 });
  });

  it('drops what an operator does not read (the contract refuses it)', () => {
    expect(withOperator({ ...newClause(), operator: 'between', lower: { indicator: 'number', value: 20 }, upper: { indicator: 'number', value: 80 }, right: undefined }, 'falls-by')).toEqual({
      kind: 'clause',
      left: { indicator: 'rsi', period: 14 },
      operator: 'falls-by',
      percent: 5,
      candles: 3,
    });
  });

  it("puts the contract's messages on the field a person typed in", () => {
    const condition = newCondition();
    condition.when.clauses = [newClause(), { kind: 'group', join: 'any', clauses: [newClause(), { ...newClause(), right: { indicator: 'sma', period: 1 } }] }];
    condition.trigger.cooldownMinutes = 0.5;
    const problems = conditionProblems([condition]);
    expect(problems).toEqual({
      'conditions.0.when.clauses.1.clauses.1.right.period': 'SMA period must be a whole number from 2 to 500',
      'conditions.0.trigger.cooldownMinutes': 'Cooldown must be a whole number from 0 to 10,080',
    });
    const emptied = { ...newCondition(), when: { kind: 'group', join: 'all', clauses: [{ ...newClause(), right: { indicator: 'number', value: Number.NaN } }] } } as TCondition;
    expect(Object.keys(conditionProblems([emptied]))).toEqual(['conditions.0.when.clauses.0.right.value']);
    expect(conditionProblems([newCondition()])).toEqual({});
  });

  it("checks the timeframes against the agent's when it knows it: none shorter, at most three", () => {
    const condition = newCondition();
    condition.when.clauses = [{ ...newClause(), left: { indicator: 'rsi', period: 14, timeframe: '15m' } }];
    expect(conditionProblems([condition], '1h')).toEqual({ 'conditions.0.when.clauses.0.left.timeframe': "A timeframe must be the agent's (1 hour) or longer" });
    expect(conditionProblems([condition], '15m')).toEqual({});
    // The agent's own counts when a side reads it.
    condition.when.clauses = [
      newClause(),
      { ...newClause(), left: { indicator: 'rsi', period: 14, timeframe: '4h' } },
      { ...newClause(), left: { indicator: 'close', timeframe: '1d' }, operator: 'above', right: { indicator: 'sma', period: 20, timeframe: '1w' } },
    ];
    expect(conditionProblems([condition], '1h')).toEqual({ conditions: 'Conditions may read at most 3 timeframes; these read 4 (1 hour, 4 hours, 1 day, 1 week)' });
  });

  it('names the condition and the clause, numbered through its group, in a list of problems', () => {
    const condition = newCondition();
    condition.when.clauses = [newClause(), { kind: 'group', join: 'any', clauses: [newClause(), newClause()] }, newClause()];
    const conditions = [newCondition(), condition];
    expect(conditionErrorLine('conditions.1.when.clauses.1.clauses.1.right.period', 'm', conditions)).toBe('Condition 2, clause 3: m');
    expect(conditionErrorLine('conditions.1.when.clauses.2.operator', 'm', conditions)).toBe('Condition 2, clause 4: m');
    expect(conditionErrorLine('conditions.0.trigger.mode', 'm', conditions)).toBe('Condition 1: m');
    expect(conditionErrorLine('conditions', 'm', conditions)).toBe('m');
  });
});
