import { DrizzleQueryError } from 'drizzle-orm';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loggerOptions } from './logger.ts';

function logLine(fields: Record<string, unknown>): string {
  const lines: string[] = [];
  pino(loggerOptions('info'), { write: (line: string) => void lines.push(line) }).error(fields, 'failed');
  return lines.join('');
}

describe('the log never holds a failed query’s values', () => {
  const failed = () => new DrizzleQueryError('select * from sessions where token_hash = $1', ['a1b2c3-token-hash', 'ann@example.com'], new Error('connection lost'));

  it('keeps the SQL and the cause, drops the values', () => {
    const line = logLine({ err: failed() });
    expect(line).not.toContain('a1b2c3-token-hash');
    expect(line).not.toContain('ann@example.com');
    const { err } = JSON.parse(line);
    expect(err.query).toBe('select * from sessions where token_hash = $1');
    expect(err.params).toBe('[redacted]');
    expect(err.message).toContain('params: [redacted]');
    expect(err.stack).toContain('connection lost');
  });

  it('also when the failed query is the cause of another error', () => {
    const line = logLine({ err: new Error('could not record alerts', { cause: failed() }) });
    expect(line).toContain('could not record alerts');
    expect(line).not.toContain('a1b2c3-token-hash');
  });

  it('leaves other errors as pino writes them', () => {
    const err = new Error('plain');
    expect(JSON.parse(logLine({ err })).err).toEqual({ type: 'Error', message: 'plain', stack: err.stack });
  });
});
