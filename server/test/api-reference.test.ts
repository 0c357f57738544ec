import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { createTestApp } from './test-app.ts';

/** A route table row of docs/reference/api.md: `| GET | `/api/x` | signedIn | ... |`. */
const ROW = /^\| (GET|POST|PUT|PATCH|DELETE) \| `([^`]+)` \| (public|signedIn|admin) \|/gm;

/**
 * docs/reference/api.md lists every /api route the server registers, with the access it declares:
 * a route added without a row fails this, as does a row for a route that is gone or whose access
 * changed. The Google and OpenID Connect routes exist only with their provider, and the passkey
 * routes only without one, so the routes are gathered from an app of each kind.
 */
describe('the HTTP API reference (docs/reference/api.md)', () => {
  it('has a row for every registered /api route with its access, and no row for a route that is not', async () => {
    const registered = new Set<string>();
    const setups: Record<string, string>[] = [
      {},
      { AUTH_PROVIDER: 'google', GOOGLE_CLIENT_ID: 'reference-client', GOOGLE_CLIENT_SECRET: 'reference-secret' },
      { AUTH_PROVIDER: 'oidc', OIDC_ISSUER_URL: 'http://127.0.0.1:9/', OIDC_CLIENT_ID: 'reference-client', OIDC_CLIENT_SECRET: 'reference-secret' },
    ];
    for (const env of setups) {
      const t = await createTestApp({ env });
      try {
        for (const route of t.app.apiRoutes) if (route.method !== 'HEAD') registered.add(`${route.method} ${route.url} ${route.access}`);
      } finally {
        await t.close();
      }
    }
    const doc = await readFile(new URL('../../docs/reference/api.md', import.meta.url), 'utf8');
    const documented = [...doc.matchAll(ROW)].map(([, method, url, access]) => `${method} ${url} ${access}`);
    expect(new Set(documented).size, 'a route documented twice').toBe(documented.length);
    expect([...registered].filter((route) => !documented.includes(route)), 'registered but missing from the reference (or with another access)').toEqual([]);
    expect(documented.filter((route) => !registered.has(route)), 'documented but not registered').toEqual([]);
    expect(registered.size).toBeGreaterThan(90);
  });
});
