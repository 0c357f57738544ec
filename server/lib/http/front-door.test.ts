import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import { createFrontDoor } from './front-door.ts';

describe('the front door before Fastify', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => app?.close());

  async function start(options: { keepAliveTimeout?: number; requestTimeout?: number; connectionTimeout?: number; maxRequestsPerSocket?: number } = {}) {
    const door = createFrontDoor(pino({ level: 'silent' }));
    app = Fastify({ serverFactory: door.serverFactory, ...options });
    app.get('/kept', async () => 'from fastify');
    app.get('/other', async () => 'other from fastify');
    await app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    return { door, base };
  }

  it('answers what its answer takes, passes the rest to Fastify, and passes everything once closing', async () => {
    const { door, base } = await start();
    const text = async (path: string) => (await fetch(`${base}${path}`)).text();
    expect(await text('/kept')).toBe('from fastify'); // nothing in front yet
    door.use((request, response) => {
      if (request.url !== '/kept') return false;
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('from the door');
      return true;
    });
    expect(await text('/kept')).toBe('from the door');
    expect(await text('/other')).toBe('other from fastify');
    door.close();
    expect(await text('/kept')).toBe('from fastify');
  });

  it('an answer that throws before sending leaves the request to Fastify, and the process up', async () => {
    const { door, base } = await start();
    door.use(() => {
      throw new Error('broken answer');
    });
    expect(await (await fetch(`${base}/kept`)).text()).toBe('from fastify');
  });

  it('gives its server the timeouts Fastify gives the servers it makes', async () => {
    await start({ keepAliveTimeout: 7_000, requestTimeout: 9_000, connectionTimeout: 11_000, maxRequestsPerSocket: 50 });
    const server = app!.server as Server;
    expect(server.keepAliveTimeout).toBe(7_000);
    expect(server.requestTimeout).toBe(9_000);
    expect(server.timeout).toBe(11_000);
    expect(server.maxRequestsPerSocket).toBe(50);
  });
});
