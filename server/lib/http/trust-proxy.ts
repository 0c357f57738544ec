import type { TrustProxy } from '../../config.ts';

/**
 * Fastify's `trustProxy` for TRUST_PROXY (docs/decisions/0045). A hop count becomes a function:
 * Fastify's own number means "trust nothing" (it cannot tell a proxy from a client that wrote
 * the header), and its `true` trusts every hop, so the left-most X-Forwarded-For entry, which
 * the client writes, would be taken as its address. Counting hops from our peer takes the
 * address the nearest proxies appended; the app must then be reachable only through them
 * (HOST=127.0.0.1 behind nginx on the same host).
 */
export function fastifyTrustProxy(trust: TrustProxy): false | string[] | ((address: string, hop: number) => boolean) {
  if (trust === false) return false;
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return trust;
}
