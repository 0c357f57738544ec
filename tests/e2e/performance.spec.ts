import { type Response } from '@playwright/test';
import { expect, test } from './fixtures.ts';

// The landing page's JavaScript budget, measured in the browser: every script the page fetches
// until the network is idle, including chunks imported dynamically at load (which the
// static check in script/check-size.ts cannot see). Same budget: 80 KB gzip.
const BUDGET_BYTES = 80 * 1024;

test('/ loads at most 80 KB of gzip-compressed JavaScript before any interaction', async ({ openPage }) => {
  // A fresh context: empty cache, signed out. Ask for gzip only, the encoding the budget is
  // defined in (the server would otherwise send the smaller brotli files).
  const page = await openPage({ extraHTTPHeaders: { 'accept-encoding': 'gzip' } });
  const scripts: Response[] = [];
  page.on('response', (response) => {
    const type = response.headers()['content-type'] ?? '';
    if (response.request().resourceType() === 'script' || /javascript/.test(type)) scripts.push(response);
  });

  await page.goto('/', { waitUntil: 'networkidle' });
  await expect(page.getByRole('heading', { level: 1, name: 'Automate Your Business Success' })).toBeVisible();

  const rows = await Promise.all(
    scripts.map(async (response) => {
      const sizes = await response.request().sizes();
      const headers = await response.allHeaders();
      return {
        url: new URL(response.url()).pathname,
        encoding: headers['content-encoding'] ?? 'identity',
        bytes: sizes.responseBodySize,
      };
    }),
  );
  const total = rows.reduce((sum, r) => sum + r.bytes, 0);
  console.log(
    `scripts loaded by / (${rows.length}):\n` +
      rows.map((r) => `  ${(r.bytes / 1024).toFixed(1).padStart(7)} KB  ${r.encoding.padEnd(8)} ${r.url}`).join('\n') +
      `\n  ${(total / 1024).toFixed(1).padStart(7)} KB  total (budget ${BUDGET_BYTES / 1024} KB)`,
  );

  expect(rows.length, 'the page loads its entry script').toBeGreaterThan(0);
  for (const r of rows) expect(r.encoding, `${r.url} is served compressed`).toBe('gzip');
  expect(total, `gzip JavaScript loaded by / (${rows.map((r) => r.url).join(', ')})`).toBeLessThanOrEqual(BUDGET_BYTES);
});
