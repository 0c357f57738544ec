import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../lib/api-client.ts';
import { clearChanged, errorLine, errorsUnder, fieldErrors, wizardStepOf } from './field-errors.ts';

const refused = (details: unknown) => new ApiError('400: Invalid request', 400, { error: 'Invalid request', details });

describe('fieldErrors', () => {
  it("keys a 400's details by the configuration's path, first message per field", () => {
    const errors = fieldErrors(
      refused([
        { path: 'config.schedule.daysActive', message: 'Choose at least one of the active days' },
        { path: 'parameters.token', message: 'Token must be 2 to 10 capital letters (e.g. BTC)' },
        { path: 'parameters.token', message: 'second' },
        { path: 'name', message: 'Please provide a name for your agent' },
      ]),
    );
    expect(errors).toEqual({
      'schedule.daysActive': 'Choose at least one of the active days',
      'parameters.token': 'Token must be 2 to 10 capital letters (e.g. BTC)',
      name: 'Please provide a name for your agent',
    });
  });

  it('is null for failures that are not about fields', () => {
    expect(fieldErrors(new ApiError('500: Internal Server Error', 500, { error: 'Internal Server Error' }))).toBeNull();
    expect(fieldErrors(refused([]))).toBeNull();
    expect(fieldErrors(new ApiError('400: Bad', 400, 'text'))).toBeNull();
    expect(fieldErrors(new Error('Request timeout after 30000ms'))).toBeNull();
  });
});

it('wizardStepOf: the tab holding each field; the rest is on Review', () => {
  expect(['schedule.activeHours', 'parameters.token', 'notifications.thresholds.1.value', 'name', 'templateId', '(root)'].map(wizardStepOf)).toEqual([
    'schedule',
    'parameters',
    'notifications',
    'review',
    'review',
    'review',
  ]);
});

it('errorsUnder; errorLine says which item of a list a message is about, and leaves the rest as the server wrote it', () => {
  const errors = { 'schedule.activeHours': 'x', 'schedule.activeHours.start': 'y', 'parameters.token': 'z' };
  expect(errorsUnder(errors, 'schedule').map(([path]) => path)).toEqual(['schedule.activeHours', 'schedule.activeHours.start']);
  expect(errorLine('notifications.thresholds.1.value', 'Value must be a number from 0 to 10,000')).toBe('Threshold 2: Value must be a number from 0 to 10,000');
  expect(errorLine('notifications.channels.0', 'Each channel must be one of your channels')).toBe('Channel 1: Each channel must be one of your channels');
  expect(errorLine('notifications.thresholds', 'Alert thresholds must be at most 20')).toBe('Alert thresholds must be at most 20');
  expect(errorLine('schedule.activeHours', 'The start of the active hours must be before their end')).toBe('The start of the active hours must be before their end');
});

it('clearChanged drops the messages of the fields that changed, and only those', () => {
  const errors = { 'parameters.token': 'bad', 'parameters.exchanges': 'bad too', name: 'blank' };
  const after = clearChanged(errors, 'parameters', { token: 'btc', exchanges: [] }, { token: 'BTC', exchanges: [] });
  expect(after).toEqual({ 'parameters.exchanges': 'bad too', name: 'blank' });
  expect(clearChanged(errors, 'parameters', { token: 'x' }, { token: 'x' })).toBe(errors);
});

it("clearChanged keeps another threshold's message, and the other fields of the one changed", () => {
  const errors = { 'notifications.thresholds.0.value': 'first', 'notifications.thresholds.1.value': 'second', 'notifications.maxPerHour': 'cap' };
  const before = { thresholds: [{ type: 'priceChange', value: -1, message: 'm' }, { type: 'priceChange', value: -2, message: 'n' }], maxPerHour: 0 };
  const after = { ...before, thresholds: [{ ...before.thresholds[0]!, value: 1 }, before.thresholds[1]!] };
  expect(clearChanged(errors, 'notifications', before, after)).toEqual({ 'notifications.thresholds.1.value': 'second', 'notifications.maxPerHour': 'cap' });
});

it('clearChanged drops a message about the whole group once the group changes', () => {
  const errors = { conditions: 'Conditions may read at most 3 timeframes; these read 4 (1 hour, 4 hours, 1 day, 1 week)', name: 'blank' };
  expect(clearChanged(errors, 'conditions', [{ a: 1 }], [{ a: 1 }])).toBe(errors);
  expect(clearChanged(errors, 'conditions', [{ a: 1 }], [{ a: 2 }])).toEqual({ name: 'blank' });
});
