import { randomUUID } from 'node:crypto';
import type { Locator, Page } from '@playwright/test';
import { defaultAgentConfig, findTemplate } from '../../contracts/agents.ts';
import { MARKET_FAILURES } from '../../contracts/market.ts';
import { startFakeYahoo } from '../fakes/yahoo.ts';
import { expect, test, toasts } from './fixtures.ts';
import { openWizardFromTemplates } from './support/agents.ts';
import { expectNoSeriousViolations } from './support/axe.ts';
import { startAppServer } from './support/app-server.ts';
import { ADMIN_EMAIL, ADMIN_NAME } from './support/constants.ts';

// Issue 6: an agent runs on (simulated) market data; its details show the run's result in words,
// a price chart with the rules that fired, and the alert reaches the header's bell.

const agentCard = (page: Page, name: string): Locator => page.getByRole('tabpanel').getByRole('listitem', { name });

test.describe('agent runtime', () => {
  test('an admin runs a crypto agent now and reads its result, its chart and the alert', async ({ page, login, admin }, testInfo) => {
    // A run on three exchanges, candles to fetch and evaluate, alerts to store.
    test.setTimeout(60_000);
    const name = `Runtime coins ${randomUUID().slice(0, 6)}`;
    await login(page, admin);
    await page.goto('/agents-console');
    await expect(page.getByRole('heading', { name: 'AI Agents Console' })).toBeVisible();

    // Create a Crypto Market Monitor whose price-change alert fires on any move (limit 0 %).
    const wizard = await openWizardFromTemplates(page, 'Crypto Market Monitor', name);
    // This server has no on-chain source (no WHALE_ALERT_API_KEY): on-chain metrics start off.
    await wizard.getByRole('tab', { name: 'Parameters' }).click();
    await expect(wizard.getByRole('switch', { name: /Include on-chain metrics/ })).not.toBeChecked();
    await wizard.getByRole('tab', { name: 'Notifications' }).click();
    await expect(wizard.getByLabel('Threshold 1 type')).toHaveValue('priceChange');
    await wizard.getByLabel('Threshold 1 value (%)').fill('0');
    await wizard.getByLabel('Threshold 1 message').fill('Price moved');
    await wizard.getByRole('tab', { name: 'Review' }).click();
    await wizard.getByRole('button', { name: 'Create Agent' }).click();
    await expect(toasts(page).getByText('Agent created successfully').last()).toBeVisible();

    // Resume it, then run it now from its details.
    await expect(page.getByRole('tab', { name: 'Paused Agents' })).toHaveAttribute('aria-selected', 'true');
    await agentCard(page, name).getByRole('button', { name: 'Resume' }).click();
    await expect(toasts(page).getByText('Agent resumed').last()).toBeVisible();
    await page.getByRole('tab', { name: 'Running Agents' }).click();
    await agentCard(page, name).getByRole('button', { name: 'View Details' }).click();
    const details = page.getByRole('dialog', { name });
    await details.getByRole('button', { name: 'Run now' }).click();
    await expect(toasts(page).getByText('Run queued').last()).toBeVisible();

    // Run History shows the run once done (the live stream's event): no reload.
    await details.getByRole('tab', { name: 'Run History' }).click();
    const run = details.locator('ol > li').filter({ hasText: 'Run now' }).first();
    await expect(run.getByText('Success', { exact: true })).toBeVisible({ timeout: 30_000 });
    await expect(run).toContainText(/Duration: \d+\.\ds/);
    await expect(run.getByText('Simulated data', { exact: true })).toBeVisible();
    await expect(run.getByRole('region', { name: 'Alerts' }).getByText(/Price moved \(BTC\/\w+ on \w+: /).first()).toBeVisible();
    const market = run.getByRole('region', { name: /^BTC\/\w+ · binance · 15m$/ });
    await expect(market.getByRole('table', { name: /^Indicators of BTC/ }).getByRole('rowheader', { name: 'RSI 14' })).toBeVisible();
    const rules = market.getByRole('list', { name: /^Signals for / });
    await expect(rules.getByRole('listitem').filter({ hasText: 'Price change' })).toContainText(/(Fired|Not fired|Insufficient data)Price change/);
    // Issue 29 item 11: no 'Whale transaction: not configured' on every run of a default agent.
    await expect(rules.getByRole('listitem').filter({ hasText: 'Price change' })).toHaveCount(1);
    await expect(rules.getByRole('listitem').filter({ hasText: 'Whale transaction' })).toHaveCount(0);
    await run.getByText('Show raw JSON').click();
    await expect(run.locator('details pre')).toContainText('"templateId": "crypto-market-monitor"');
    await expectNoSeriousViolations(page, testInfo, 'run-history', '[role="dialog"]');

    // The chart: candles drawn on a canvas, one market at a time.
    await details.getByRole('tab', { name: 'Chart' }).click();
    const chart = details.getByRole('img', { name: /^Price and volume chart of BTC\/\w+ on binance, \d+ candles, \d+ signal markers?, \d+ alert markers?$/ });
    await expect(chart).toBeVisible();
    await expect(chart.locator('canvas').first()).toBeVisible();
    const select = details.getByRole('combobox', { name: 'Market' });
    await select.selectOption({ label: (await select.locator('option', { hasText: 'kraken' }).textContent())! });
    await expect(details.getByRole('img', { name: /^Price and volume chart of BTC\/\w+ on kraken, / }).locator('canvas').first()).toBeVisible();
    await expectNoSeriousViolations(page, testInfo, 'run-chart', '[role="dialog"]');
    await page.keyboard.press('Escape');
    await expect(details).toBeHidden();

    // The alert reaches the header's bell: refreshed by the live stream's event (or when the
    // dialog saw the run finish; the bell polls every 30 s only while the stream is closed).
    await expect(page.getByRole('button', { name: /Notifications/ })).toHaveAccessibleName(/[1-9]\d* unread/, { timeout: 35_000 });
  });

  test("a provider's own words never reach Run History: the failure shows its sentence", async ({ page }, testInfo) => {
    test.slow();
    // Live market data from a Yahoo that answers in its real error format with words of its own.
    const canary = '7QX-canary';
    const yahoo = await startFakeYahoo();
    yahoo.setErrorText(`No data found for NOPE, call our desk about ticket ${canary}`);
    const server = await startAppServer({ env: { MARKET_DATA: 'live', YAHOO_BASE_URL: yahoo.baseUrl, MARKET_RETRIES: '0' } });
    try {
      const origin = { origin: server.url };
      expect((await page.request.post(`${server.url}/api/auth/local/login`, { data: { email: ADMIN_EMAIL, name: ADMIN_NAME }, headers: origin })).status()).toBe(200);
      const name = 'Delisted watch';
      const base = defaultAgentConfig(findTemplate('stock-market-scanner')!);
      const config = { ...base, notifications: { ...base.notifications, email: false }, parameters: { ...base.parameters, symbols: 'NOPE' } };
      const created = await page.request.post(`${server.url}/api/agents`, { data: { templateId: 'stock-market-scanner', name, config }, headers: origin });
      expect(created.status()).toBe(201);
      const { id } = (await created.json()) as { id: string };
      expect((await page.request.post(`${server.url}/api/agents/${id}/run`, { headers: origin })).status()).toBe(202);

      await page.goto(`${server.url}/agents-console`);
      await page.getByRole('tab', { name: 'Paused Agents' }).click();
      await agentCard(page, name).getByRole('button', { name: 'View Details' }).click();
      const details = page.getByRole('dialog', { name });
      await details.getByRole('tab', { name: 'Run History' }).click();
      const run = details.locator('ol > li').first();
      await expect(run.getByText('Failure', { exact: true })).toBeVisible({ timeout: 30_000 });
      await expect(run.getByRole('region', { name: 'NOPE · yahoo' })).toContainText(`Could not read this market: ${MARKET_FAILURES['unknown-symbol']}`);
      await expect(run).toContainText(`NOPE (yahoo): ${MARKET_FAILURES['unknown-symbol']}`);
      await run.getByText('Show raw JSON').click();
      await expect(run.locator('details pre')).toContainText('"failure": "unknown-symbol"');
      await expect(page.locator('body')).not.toContainText(canary);
      expect(yahoo.requests().filter((r) => r.path === '/v8/finance/chart/NOPE').length, 'Yahoo was asked').toBeGreaterThan(0);
      await expectNoSeriousViolations(page, testInfo, 'run-history-failure', '[role="dialog"]');
    } finally {
      await server.stop();
      await yahoo.close();
    }
  });
});
