import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ZAgentIdParams } from '../../../contracts/agents.ts';
import { BACKTEST_CONTENT_TYPE, type TBacktestEvent } from '../../../contracts/backtest.ts';
import { AGENT_OWNER_ROLE } from '../../../contracts/constants.ts';
import { clientGone, openStream } from '../../lib/http/stream.ts';
import { parseInput } from '../../lib/validate.ts';
import type { Caller } from '../agents/agents.service.ts';
import { BACKTEST_FAILED_ERROR, type BacktestJob, type BacktestService } from './backtest.service.ts';

const caller = (request: FastifyRequest): Caller => ({ user: request.user!, googleIds: [] });

/** Progress events of one market closer together than this are dropped (the last one always goes). */
const PROGRESS_INTERVAL_MS = 100;

/**
 * Streams a test's answer as NDJSON: progress while history loads, then the result (or one
 * sentence when it failed after the answer began). The client going away aborts the history
 * loading; nothing is written after that.
 */
async function streamBacktest(request: FastifyRequest, reply: FastifyReply, job: BacktestJob): Promise<void> {
  const signal = clientGone(reply);
  const stream = openStream(reply, `${BACKTEST_CONTENT_TYPE}; charset=utf-8`, { gzip: true });
  const send = (event: TBacktestEvent) => stream.write(`${JSON.stringify(event)}\n`);
  const lastSent = new Map<string, number>();
  try {
    const result = await job.run(signal, (market, loaded, total) => {
      const at = performance.now();
      if (loaded < total && at - (lastSent.get(market) ?? -Infinity) < PROGRESS_INTERVAL_MS) return;
      lastSent.set(market, at);
      void send({ type: 'progress', market, loaded, total });
    });
    if (!signal.aborted) await send({ type: 'result', result });
  } catch (err) {
    if (!signal.aborted) {
      request.log.error({ err }, 'test on history failed');
      await send({ type: 'error', error: BACKTEST_FAILED_ERROR });
    }
  } finally {
    stream.end();
  }
}

/** Test on history (issue 16): admin-only as the agents console is; an agent's test is its owner's only. */
export async function backtestRoutes(app: FastifyInstance, { backtests }: { backtests: BacktestService }): Promise<void> {
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });

  app.post('/api/agents/backtest', { config: { access: AGENT_OWNER_ROLE } }, async (request, reply) => {
    // The body is checked whole by the service: its shape and its template at once.
    await streamBacktest(request, reply, await backtests.forConfig(caller(request), request.body));
  });

  app.post('/api/agents/:id/backtest', { config: { access: AGENT_OWNER_ROLE } }, async (request, reply) => {
    const { id } = parseInput(ZAgentIdParams, request.params);
    await streamBacktest(request, reply, await backtests.forAgent(caller(request), id, request.body));
  });
}
