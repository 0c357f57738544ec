import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../lib/api-client.ts';
import { clearChanged, errorsUnder, fieldErrors, fieldLabel, wizardStepOf } from './field-errors.ts';

const refused = (details: unknown) => new ApiError('400: Invalid request', 400, { error: 'Invalid request', details });

describe('fieldErrors', () => {
  it("keys a 400's details by the configuration's path, first message per field", () => {
    const errors = fieldErrors(
      refused([
        { path: 'config.schedule.daysActive', message: 'choose at least one day' },
        { path: 'parameters.token', message: 'must be 2 to 10 capital letters (e.g. BTC)' },
        { path: 'parameters.token', message: 'second' },
        { path: 'name', message: 'Please provide a name for your agent' },
      ]),
    );
    expect(errors).toEqual({
      'schedule.daysActive': 'choose at least one day',
      'parameters.token': 'must be 2 to 10 capital letters (e.g. BTC)',
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

it('errorsUnder and fieldLabel', () => {
  const errors = { 'schedule.activeHours': 'start must be before end', 'schedule.activeHours.start': 'must be a time HH:mm', 'parameters.token': 'x' };
  expect(errorsUnder(errors, 'schedule').map(([path]) => path)).toEqual(['schedule.activeHours', 'schedule.activeHours.start']);
  expect(fieldLabel('schedule.activeHours.start')).toBe('Active hours');
  expect(fieldLabel('notifications.thresholds.1.value')).toBe('Threshold 2 value');
  expect(fieldLabel('notifications.thresholds')).toBe('Alert thresholds');
  expect(fieldLabel('notifications.inApp')).toBe('In-app notifications');
  expect(fieldLabel('parameters.rsiThreshold')).toBe('RSI threshold');
  expect(fieldLabel('parameters.notATemplateKey')).toBe('parameters.notATemplateKey');
  expect(fieldLabel('candles')).toBe('Candles per market');
});

it('clearChanged drops the messages of the fields that changed, and only those', () => {
  const errors = { 'parameters.token': 'bad', 'parameters.exchanges': 'bad too', name: 'blank' };
  const after = clearChanged(errors, 'parameters', { token: 'btc', exchanges: [] }, { token: 'BTC', exchanges: [] });
  expect(after).toEqual({ 'parameters.exchanges': 'bad too', name: 'blank' });
  expect(clearChanged(errors, 'parameters', { token: 'x' }, { token: 'x' })).toBe(errors);
});
