import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';

/**
 * CSP the built app satisfies: scripts only from our origin (no inline script), styles from
 * our origin plus inline style attributes (Radix and toasts position with them), images also
 * over https (Google profile photos) and data: URIs.
 */
function helmetOptions(https: boolean): Parameters<typeof helmet>[0] {
  return {
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
    strictTransportSecurity: https ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    // The sign-in popup reports back to its opener, so the opener must stay reachable.
    crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' },
  };
}

/** The headers helmet would set, computed once: they do not depend on the request. */
function securityHeaders(https: boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string | number) => void (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  let done = false;
  helmet(helmetOptions(https))({} as IncomingMessage, response as unknown as ServerResponse, () => (done = true));
  if (!done) throw new Error('helmet did not finish synchronously');
  return headers;
}

/**
 * Sets helmet's headers on every response. @fastify/helmet would rebuild them per request
 * (about a tenth of the CPU of a cached API read); ours are static, so they are built once.
 * A route may still replace one (the Google sign-in result page sets its own CSP).
 */
export function registerSecurityHeaders(app: FastifyInstance, https: boolean): void {
  const headers = securityHeaders(https);
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
}

/** A module script written into a page (no `src`) and its text, as the browser hashes it. */
const INLINE_MODULE_SCRIPT = /<script type="module"(?![^>]*\ssrc=)[^>]*>([\s\S]+?)<\/script>/g;

/**
 * The CSP sources that allow each module script written into a page by its SHA-256: the
 * public pages' boot script (client/site-boot.ts, written in at build time), so their CSP
 * still allows no other inline script.
 */
export function inlineScriptSources(html: string): string[] {
  return [...html.matchAll(INLINE_MODULE_SCRIPT)].map(([, text]) => `'sha256-${createHash('sha256').update(text!).digest('base64')}'`);
}

/** `csp` with `sources` added to its script-src. */
export function allowScripts(csp: string, sources: string[]): string {
  if (sources.length === 0) return csp;
  return csp.replace(/(^|;)(\s*)script-src ([^;]*)/, (_match, start: string, space: string, list: string) => `${start}${space}script-src ${list} ${sources.join(' ')}`);
}
