import type { APIRequestContext, Page } from '@playwright/test';
import { defaultAgentConfig, findTemplate, type TAgentRun } from '../../contracts/agents.ts';
import { MARKET_FAILURES } from '../../contracts/market.ts';
import type { TNotificationList } from '../../contracts/notifications.ts';
import { startFakeExchanges } from '../fakes/exchanges.ts';
import { expect, test } from './fixtures.ts';
import { expectNoSeriousViolations } from './support/axe.ts';
import { startAppServer } from './support/app-server.ts';
import type { BrowserWindow } from './support/browser-types.ts';
import { ADMIN_EMAIL, ADMIN_NAME } from './support/constants.ts';

// Issue 15 items 3 and 8: an agent whose exchange answers errors turns red on its card and its
// owner hears once; a notification opens its agent's Run History at its run.

const KRAKEN_DOWN = `BTC/USD (kraken): ${MARKET_FAILURES.unavailable}`;

/** The app on live market data from the exchanges fake, an admin signed in, and a Kraken agent. */
async function setUp(page: Page, name: string) {
  const exchanges = await startFakeExchanges();
  const server = await startAppServer({ env: { ...exchanges.env, MARKET_DATA: 'live', MARKET_RETRIES: '0' } });
  const headers = { origin: server.url };
  expect((await page.request.post(`${server.url}/api/auth/local/login`, { data: { email: ADMIN_EMAIL, name: ADMIN_NAME }, headers })).status()).toBe(200);
  const base = defaultAgentConfig(findTemplate('crypto-market-monitor')!);
  // In-app only; a price-change alert at 0 % fires on any fresh candle.
  const config = {
    ...base,
    schedule: { ...base.schedule, timeZone: 'UTC' },
    notifications: { email: false, inApp: true, thresholds: [{ type: 'priceChange', value: 0, message: 'Price moved' }] },
    parameters: { ...base.parameters, token: 'BTC', exchanges: ['Kraken'], timeframe: '1h', includeOnChainMetrics: false, walletTracking: false },
  };
  const created = await page.request.post(`${server.url}/api/agents`, { data: { templateId: 'crypto-market-monitor', name, config }, headers });
  expect(created.status()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  return { exchanges, server, id, headers };
}

/** Runs the agent now through the API and waits for the run to finish. */
async function runOnce(request: APIRequestContext, url: string, id: string, headers: Record<string, string>): Promise<TAgentRun> {
  const queued = await request.post(`${url}/api/agents/${id}/run`, { headers });
  expect(queued.status()).toBe(202);
  const { runId } = (await queued.json()) as { runId: number };
  let run: TAgentRun | undefined;
  await expect(async () => {
    const runs = (await (await request.get(`${url}/api/agents/${id}/runs`)).json()) as TAgentRun[];
    run = runs.find((r) => r.id === runId);
    expect(run?.status).toMatch(/^(success|failure)$/);
  }).toPass({ timeout: 20_000 });
  return run!;
}

const notificationsOf = async (request: APIRequestContext, url: string) => ((await (await request.get(`${url}/api/notifications?limit=100`)).json()) as TNotificationList).notifications;

test.describe('agent health', () => {
  test('an agent whose exchange answers errors turns red on its card and notifies once', async ({ page }, testInfo) => {
    test.slow();
    const name = 'Kraken watch';
    const { exchanges, server, id, headers } = await setUp(page, name);
    try {
      exchanges.setFault('kraken', '500');
      const first = await runOnce(page.request, server.url, id, headers);
      expect(first.error).toBe(KRAKEN_DOWN);

      // Red within one run: the card says failing, why, and that no run has succeeded yet.
      await page.goto(`${server.url}/agents-console`);
      await page.getByRole('tab', { name: 'Paused Agents' }).click();
      const card = page.getByRole('tabpanel').getByRole('listitem', { name });
      await expect(card.getByText('Failing', { exact: true })).toBeVisible();
      await expect(card).toContainText(KRAKEN_DOWN);
      await expect(card).toContainText('No successful run yet');
      await page.getByRole('checkbox', { name: 'Only failing agents (1)' }).check();
      await expect(card).toBeVisible();
      await expectNoSeriousViolations(page, testInfo, 'failing-card', 'main');

      // Two more failures: one notification; two more: still one.
      await runOnce(page.request, server.url, id, headers);
      const third = await runOnce(page.request, server.url, id, headers);
      await runOnce(page.request, server.url, id, headers);
      await runOnce(page.request, server.url, id, headers);
      const told = await notificationsOf(page.request, server.url);
      expect(told.map((n) => `${n.kind} ${n.runId}`)).toEqual([`failing ${third.id}`]);

      await page.reload();
      const bell = page.getByRole('button', { name: /^Notifications/ });
      await expect(bell).toHaveAccessibleName('Notifications, 1 unread');
      await bell.click();
      const panel = page.getByRole('dialog', { name: 'Notifications' });
      await expect(panel.getByRole('link', { name: `${name} is failing: ${KRAKEN_DOWN}` })).toBeVisible();
      await expectNoSeriousViolations(page, testInfo, 'failing-notification', '[role="dialog"]');

      // The notification opens the run that told it, failing in red, in Run History.
      await panel.getByRole('link', { name: `${name} is failing: ${KRAKEN_DOWN}` }).click();
      const details = page.getByRole('dialog', { name });
      await expect(details.getByRole('tab', { name: 'Run History' })).toHaveAttribute('aria-selected', 'true');
      const run = details.locator('ol > li[aria-current="true"]');
      await expect(run).toContainText(`Run #${third.id}`);
      // Red: its background's a* (green to red) is well on the red side; slate's is about 0.
      const background = await run.getByText('Failure', { exact: true }).evaluate((el) => (globalThis as unknown as BrowserWindow).getComputedStyle(el).backgroundColor);
      expect(Number(/^lab\([\d.]+ (-?[\d.]+) /.exec(background)?.[1]), background).toBeGreaterThan(5);
      await expect(run).toBeInViewport();
      await expectNoSeriousViolations(page, testInfo, 'failing-run-history', '[role="dialog"]');

      // The Overview says it too.
      await details.getByRole('tab', { name: 'Overview' }).click();
      await expect(details.getByText('Failing', { exact: true })).toBeVisible();
      await expect(details).toContainText(KRAKEN_DOWN);
      // Following the notification read it.
      await page.keyboard.press('Escape');
      await expect(bell).toHaveAccessibleName('Notifications');
    } finally {
      await server.stop();
      await exchanges.close();
    }
  });

  test("a run's notification lists its alerts and opens that run", async ({ page }, testInfo) => {
    test.slow();
    const name = 'Kraken alerts';
    const { exchanges, server, id, headers } = await setUp(page, name);
    try {
      // The first run has no earlier price; the price-change alert fires on the latest candle.
      const run = await runOnce(page.request, server.url, id, headers);
      expect(run.status).toBe('success');
      expect(run.result!.alerts).toHaveLength(1);
      for (let i = 0; i < 3; i++) await runOnce(page.request, server.url, id, headers);
      // Still firing on later runs: one notification, for the run where it started.
      const notifications = await notificationsOf(page.request, server.url);
      expect(notifications.map((n) => `${n.kind} ${n.runId}`)).toEqual([`alerts ${run.id}`]);

      await page.goto(`${server.url}/agents-console`);
      await page.getByRole('button', { name: 'Notifications, 1 unread' }).click();
      const panel = page.getByRole('dialog', { name: 'Notifications' });
      await expect(panel.getByRole('list', { name: 'Alerts' }).getByRole('listitem')).toHaveText([/^Price moved \(BTC\/USD on kraken: /]);
      await expectNoSeriousViolations(page, testInfo, 'alerts-notification', '[role="dialog"]');
      await panel.getByRole('link', { name: `${name}: Price change alert on BTC/USD on kraken` }).click();

      const details = page.getByRole('dialog', { name });
      const shown = details.locator('ol > li[aria-current="true"]');
      await expect(shown).toContainText(`Run #${run.id}`);
      await expect(shown).toContainText('From your notification');
      await expect(shown.getByText('Success', { exact: true })).toBeVisible();
      await expect(shown.getByRole('region', { name: 'Alerts' })).toContainText('Price moved (BTC/USD on kraken: ');
      await expect(page).toHaveURL(`${server.url}/agents-console`);
      await expectNoSeriousViolations(page, testInfo, 'notification-run', '[role="dialog"]');
    } finally {
      await server.stop();
      await exchanges.close();
    }
  });
});
