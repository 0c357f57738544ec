import type { FullConfig } from '@playwright/test';

/**
 * Runs after the web server is up: checks that it is the product we expect to drive (the built
 * client, local sign-in), so a misconfigured run fails here with one clear message instead of
 * in every test.
 */
export default async function globalSetup(config: FullConfig): Promise<void> {
  const baseURL = config.projects[0]?.use.baseURL;
  if (!baseURL) throw new Error('e2e global setup: no baseURL in playwright.config.ts');

  const health = await fetch(new URL('/api/health', baseURL));
  if (!health.ok) throw new Error(`e2e global setup: ${baseURL}/api/health answered ${health.status}`);

  const html = await (await fetch(baseURL)).text();
  // `/` names its built scripts in its one script (vite.config.ts `hydrateAfterPaint`).
  if (!/<script[^>]+type="module"[^>]+(?:src|data-hydrate)="\/assets\//.test(html)) {
    throw new Error('e2e global setup: / does not serve the built client; run `npx vite build` first');
  }
  if (!html.includes('"authProvider":"local"')) {
    throw new Error('e2e global setup: the server does not use local sign-in (AUTH_PROVIDER=local is required)');
  }
}
