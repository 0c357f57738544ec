import { isIPv6 } from 'node:net';
import type { Server, ServerOptions } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { HttpLimits } from '../../config.ts';

/**
 * How often Node checks the headers and request timeouts. Its default (30 s) would let a slow
 * client stay that much past them; checking every open connection once a second is cheap.
 */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;
/** At most one warning per cap in this interval: a flood must not flood the log too. */
const WARN_INTERVAL_MS = 10_000;

/**
 * The timeouts as Fastify options (it creates the Node server with them): headers and the
 * whole request must arrive in time, a silent connection is closed, a kept-alive one waits so
 * long for its next request. The request timeout ends when the request has arrived, so long
 * answers (chat streams) are never cut by it; the idle timeout allows a chat's silences.
 */
export function timeoutOptions(limits: HttpLimits): { connectionTimeout: number; keepAliveTimeout: number; requestTimeout: number; http: ServerOptions } {
  return {
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    http: { headersTimeout: limits.headersTimeoutMs, requestTimeout: limits.requestTimeoutMs, connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS },
  };
}

/**
 * Caps open connections in all (Node closes any beyond `maxConnections` as it accepts it) and
 * per peer address, so one client cannot take every socket the process has. A connection over
 * its address's cap is closed at once, before it can send anything. The address is the
 * socket's peer: behind a reverse proxy that is the proxy, which is why the per-address cap is
 * off by default there (config.ts). IPv6 peers are counted per /64, the block one host gets.
 */
export function limitConnections(server: Server, limits: HttpLimits, log: FastifyBaseLogger): void {
  server.maxConnections = limits.maxConnections;
  let lastDropWarning = 0;
  server.on('drop', () => {
    if (Date.now() - lastDropWarning < WARN_INTERVAL_MS) return;
    lastDropWarning = Date.now();
    log.warn({ maxConnections: limits.maxConnections }, 'connection refused: the server holds MAX_CONNECTIONS connections');
  });

  const cap = limits.maxConnectionsPerAddress;
  if (cap === 0) return;
  const open = new Map<string, number>();
  const warned = new Set<string>();
  server.on('connection', (socket) => {
    const client = clientKey(socket.remoteAddress ?? '');
    const count = (open.get(client) ?? 0) + 1;
    if (count > cap) {
      socket.destroy();
      if (!warned.has(client)) {
        warned.add(client);
        log.warn({ client, maxConnectionsPerIp: cap }, 'connection refused: this address holds MAX_CONNECTIONS_PER_IP connections');
      }
      return;
    }
    open.set(client, count);
    socket.once('close', () => {
      const left = (open.get(client) ?? 1) - 1;
      if (left > 0) open.set(client, left);
      else {
        open.delete(client);
        warned.delete(client);
      }
    });
  });
}

/** The unit a per-address cap counts: an IPv4 address (also when IPv4-mapped), or an IPv6 /64. */
export function clientKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const [head = '', tail] = address.split('%')[0]!.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => (Number.parseInt(g, 16) || 0).toString(16))
    .join(':')}::/64`;
}
