import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from './db-errors.ts';

describe('isDatabaseUnavailable', () => {
  it.each([
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
    Object.assign(new Error('connection failure'), { code: '08006' }),
    new Error('Connection terminated unexpectedly'),
    new Error('Cannot use a pool after calling end on the pool'),
    new Error('PGlite is closed'),
    new Error('Failed query: select 1', { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) }),
  ])('recognises %s', (err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it.each([
    Object.assign(new Error('duplicate key value'), { code: '23505' }),
    Object.assign(new Error('syntax error'), { code: '42601' }),
    new Error('something else'),
    null,
    'text',
  ])('does not mistake %s for an outage', (err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });
});
