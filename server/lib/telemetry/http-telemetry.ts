import type { Context, Span } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { httpRequestDuration, httpRequests } from './metrics.ts';
import { failed, startRequestSpan, tracingOn, withContext } from './tracing.ts';

/** What a request matched no route of is counted under (never its URL: one series per path a
 * scanner tries would grow without bound). */
export const UNMATCHED_ROUTE = 'unmatched';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's span while tracing is on (docs/decisions/0091). */
    traced?: { span: Span; context: Context };
  }
}

const routeOf = (request: FastifyRequest) => request.routeOptions.url ?? UNMATCHED_ROUTE;

/**
 * Every request Fastify answers is counted and timed by method, route pattern and status; with
 * tracing on, each is a span its database statements and provider calls nest under. Its context
 * is made active again after the body is read: the body's chunks arrive in the connection's
 * context, not the request's.
 */
export function registerHttpTelemetry(app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    const labels = { method: request.method, route: routeOf(request), status_code: String(reply.statusCode) };
    httpRequests.inc(labels);
    httpRequestDuration.observe(labels, reply.elapsedTime / 1000);
    const traced = request.traced;
    if (!traced) return;
    traced.span.updateName(`${request.method} ${labels.route}`);
    traced.span.setAttributes({ 'http.route': labels.route, 'http.response.status_code': reply.statusCode });
    if (reply.statusCode >= 500) failed(traced.span, new Error(`answered ${reply.statusCode}`));
    traced.span.end();
  });
  if (!tracingOn()) return;
  app.addHook('onRequest', (request, _reply, done) => {
    const traced = startRequestSpan(`${request.method} ${routeOf(request)}`, request.headers, {
      'http.request.method': request.method,
      'url.path': request.url.split('?')[0]!,
      'http.route': routeOf(request),
    });
    if (!traced) return done();
    request.traced = traced;
    withContext(traced.context, done);
  });
  app.addHook('preValidation', (request, _reply, done) => (request.traced ? withContext(request.traced.context, done) : done()));
  // A request that ends without an answer (the client went away) still ends its span.
  app.addHook('onRequestAbort', async (request) => {
    request.traced?.span.setAttribute('http.aborted', true);
    request.traced?.span.end();
  });
}
