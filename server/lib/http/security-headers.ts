import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

/**
 * CSP the built app satisfies: scripts only from our origin (no inline script), styles from
 * our origin plus inline style attributes (Radix and toasts position with them), images also
 * over https (Google profile photos) and data: URIs.
 */
export async function registerSecurityHeaders(app: FastifyInstance, https: boolean): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'https:'],
        fontSrc: ["'self'"],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        ...(https ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    hsts: https ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    // The sign-in popup reports back to its opener, so the opener must stay reachable.
    crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' },
  });
}
