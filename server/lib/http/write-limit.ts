import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.ts';
import { createRateWindow } from '../rate-window.ts';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * At most `perMinute` state-changing requests per signed-in user (DESIGN section 5): a script
 * with a session cannot flood the database with writes, nor the market providers with runs.
 * Keyed by user id, so users behind one address (an office, a proxy) do not share a budget.
 * Registered after the session is read; every write counts, those the route then refuses for
 * bad input included, so a flood of bad requests is bounded too. Routes with a limit of their
 * own opt out (`writeLimit: false`).
 */
export function registerWriteLimit(app: FastifyInstance, perMinute: number, now: () => Date): void {
  const window = createRateWindow(perMinute);
  app.addHook('onRequest', async (request) => {
    const { access, writeLimit } = request.routeOptions.config;
    if (!WRITE_METHODS.has(request.method) || (access !== 'signedIn' && access !== 'admin') || writeLimit === false || !request.user) return;
    const slot = window.take(request.user.id, now().getTime());
    if (!slot.ok) {
      throw new AppError('RATE_LIMITED', `You can make ${perMinute} changes a minute. Try again in ${slot.retryAfterSeconds} s.`, undefined, {
        retryAfterSeconds: slot.retryAfterSeconds,
      });
    }
  });
}
