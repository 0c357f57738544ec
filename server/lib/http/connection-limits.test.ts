import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { HttpLimits } from '../../config.ts';
import { clientKey, limitConnections } from './connection-limits.ts';

const LIMITS: HttpLimits = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, idleTimeoutMs: 120_000, keepAliveTimeoutMs: 72_000, maxConnections: 1_000, maxConnectionsPerAddress: 0 };

describe('limitConnections', () => {
  let server: Server;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  async function listen(limits: Partial<HttpLimits>): Promise<number> {
    server = createServer((_req, res) => res.end('ok'));
    limitConnections(server, { ...LIMITS, ...limits }, pino({ level: 'silent' }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as { port: number }).port;
  }

  /** Opens `count` connections from `from`; resolves with how many the server closed by itself within a second. */
  async function open(port: number, count: number, from: string): Promise<number> {
    let closed = 0;
    await Promise.all(
      Array.from({ length: count }, () => {
        const socket = connect({ port, host: '127.0.0.1', localAddress: from });
        sockets.push(socket);
        socket.on('error', () => {});
        socket.on('close', () => closed++);
        return new Promise((resolve) => socket.once('connect', resolve));
      }),
    );
    await new Promise((r) => setTimeout(r, 1_000));
    return closed;
  }

  it('closes connections of an address over its cap at once; other addresses are unaffected', async () => {
    const port = await listen({ maxConnectionsPerAddress: 5 });
    expect(await open(port, 8, '127.0.0.1')).toBe(3);
    expect(await open(port, 5, '127.0.0.2')).toBe(0);
    // Closing one frees a place for the address.
    sockets[0]!.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect(await open(port, 1, '127.0.0.1')).toBe(0);
  });

  it('closes connections over the total at once, whoever opens them; 0 per address is no cap', async () => {
    const port = await listen({ maxConnections: 6, maxConnectionsPerAddress: 0 });
    expect(await open(port, 4, '127.0.0.1')).toBe(0);
    expect(await open(port, 4, '127.0.0.3')).toBe(2);
  });
});

describe('clientKey', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:203.0.113.9', '203.0.113.9'],
    ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002::1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
  ])('counts %s as %s', (address, key) => {
    expect(clientKey(address)).toBe(key);
  });
});
