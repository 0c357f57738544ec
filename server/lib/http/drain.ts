import type { FastifyInstance } from 'fastify';

/**
 * Lets a graceful close finish as soon as the requests in flight have. Node's server.close()
 * waits for every connection, and closes only those idle after a request: a connection opened
 * without a request yet (a browser's preconnect, a proxy's spare) would hold the shutdown until
 * its deadline. Once closing has begun, connections without a request in progress are closed, and
 * once no request is in progress, every connection left; answers in flight, streams included, are
 * never cut.
 */
export function drainConnectionsOnClose(app: FastifyInstance): void {
  let inFlight = 0;
  let closing = false;
  const closeIfDrained = () => {
    if (closing && inFlight === 0) app.server.closeAllConnections();
  };
  app.server.on('request', (_request, response) => {
    inFlight++;
    response.once('close', () => {
      inFlight--;
      closeIfDrained();
    });
  });
  // Fastify already answers new requests 503 here, and stops listening right after. A kept-alive
  // connection waiting for its next request is closed now, before it can bring one to answer
  // 503: a proxy in front (nginx) sends that request to another process instead (docs/decisions/0045).
  app.addHook('preClose', async () => {
    closing = true;
    app.server.closeIdleConnections();
    closeIfDrained();
  });
}
