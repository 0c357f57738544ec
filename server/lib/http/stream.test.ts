import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { clientGone } from './stream.ts';

describe('clientGone', () => {
  const apps: FastifyInstance[] = [];
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
  });

  /**
   * A route that waits (as for the database) until released before it asks whether its client is
   * still there; `seen` is what the signal said when it was made, and whether it fired.
   */
  async function ask() {
    const app = Fastify();
    apps.push(app);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let waiting!: (held: { socketClosed: Promise<void> }) => void;
    const inHandler = new Promise<{ socketClosed: Promise<void> }>((resolve) => (waiting = resolve));
    let result!: (seen: { atOnce: boolean; fired: boolean }) => void;
    const seen = new Promise<{ atOnce: boolean; fired: boolean }>((resolve) => (result = resolve));
    app.post('/answer', async (request, reply) => {
      waiting({ socketClosed: new Promise<void>((resolve) => request.raw.socket.once('close', () => resolve())) });
      await released;
      const signal = clientGone(reply);
      const atOnce = signal.aborted;
      if (!atOnce) reply.raw.once('close', () => result({ atOnce, fired: signal.aborted }));
      else result({ atOnce, fired: true });
      await new Promise<void>((resolve) => setImmediate(resolve));
      return reply.status(204).send();
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    const request = http.request({ port, host: '127.0.0.1', method: 'POST', path: '/answer', headers: { 'content-type': 'application/json' } });
    request.on('error', () => {});
    request.on('response', (res) => res.resume());
    request.end('{}');
    const { socketClosed } = await inHandler;
    return { request, release, socketClosed, seen };
  }

  it('is aborted at once when the client left while the handler was still waiting', async () => {
    const { request, release, socketClosed, seen } = await ask();
    request.destroy();
    await socketClosed; // the server saw the client go before the handler asked
    release();
    expect(await seen).toEqual({ atOnce: true, fired: true });
  });

  it('is not aborted for a client still there, nor when the answer ends normally', async () => {
    const { release, seen } = await ask();
    release();
    expect(await seen).toEqual({ atOnce: false, fired: false });
  });
});
