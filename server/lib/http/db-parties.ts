import type { FastifyInstance, FastifyRequest } from 'fastify';
import { asParty } from '../fair-queue.ts';

const SESSION_COOKIE = /(?:^|;\s*)(?:__Host-)?sid=([^;]{1,128})/;

/** A session's requests queue together; a visitor without one, by address. */
function partyOf(request: FastifyRequest): string {
  const session = SESSION_COOKIE.exec(request.headers.cookie ?? '')?.[1];
  return session ? `s:${session}` : `a:${request.ip}`;
}

/**
 * PGlite (docs/decisions/0050): the database work of each request waits in its party's queue
 * (server/lib/fair-queue.ts). The party is set first thing and again after the body is read,
 * whose events run outside the request's own async context.
 */
export function registerDbParties(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => asParty(partyOf(request), done));
  app.addHook('preValidation', (request, _reply, done) => asParty(partyOf(request), done));
}
