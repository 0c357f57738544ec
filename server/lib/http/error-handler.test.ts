import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { DEADLOCK_DETECTED } from '../db-errors.ts';
import { registerErrorHandler } from './error-handler.ts';

describe('the error handler', () => {
  it("answers a transaction PostgreSQL aborted to break a deadlock with 503 and Retry-After, never 500 (issue 29)", async () => {
    const app = Fastify({ logger: false });
    registerErrorHandler(app);
    // As drizzle throws it: its own error, with the driver's (and its SQLSTATE) as the cause.
    app.delete('/api/x', async () => {
      throw new Error('Failed query: update "agents" …', { cause: Object.assign(new Error('deadlock detected'), { code: DEADLOCK_DETECTED }) });
    });
    const res = await app.inject({ method: 'DELETE', url: '/api/x' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.json()).toMatchObject({ message: 'The server was busy with the same records; please try again.' });
    expect(res.body).not.toContain('agents');
    await app.close();
  });
});
