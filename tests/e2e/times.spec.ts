import type { APIRequestContext, Locator, Page } from '@playwright/test';
import { defaultAgentConfig, findTemplate, type TAgent, type TAgentRun } from '../../contracts/agents.ts';
import type { TNotificationList } from '../../contracts/notifications.ts';
import { startFakeExchanges, type ScriptedCandle } from '../fakes/exchanges.ts';
import { expect, gotoPublicPage, test } from './fixtures.ts';
import { expectNoSeriousViolations } from './support/axe.ts';
import { startAppServer } from './support/app-server.ts';
import { ADMIN_EMAIL, ADMIN_NAME } from './support/constants.ts';

// Issue 29 item 7 and an item 11 bullet (docs/decisions/0066): every time on screen is in one
// zone, the Settings zone when set, else the browser's, and named; the bell's alert storm notice
// (written by the server in the owner's zone) agrees with the card beside it. Every date is SPEC's
// 'MMM d, yyyy', articles' on every page. The browser is in New York; Settings says Tokyo.

const HOUR = 3_600_000;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** An instant as read in Tokyo, worked out by hand: Tokyo is UTC+9 all year, with no clock change. */
function tokyo(iso: string | number) {
  const at = new Date(new Date(iso).getTime() + 9 * HOUR);
  const clock = at.toISOString().slice(11, 16);
  const day = `${MONTHS[at.getUTCMonth()]} ${at.getUTCDate()}`;
  return {
    clock: `${clock} GMT+9`,
    dateTime: `${day}, ${at.getUTCFullYear()} ${clock} GMT+9`,
    runTime: `${day}, ${at.toISOString().slice(11, 19)} GMT+9`,
  };
}

const QUIET: ScriptedCandle = { close: 100, high: 100.5, low: 99.5, volume: 1000 };
/** The latest candle 1% up: a price-change alert at 0.5% fires. */
const JUMP = [...Array.from({ length: 20 }, () => QUIET), { close: 101, high: 101.2, low: 100.4, volume: 1000 }];

/** The value beside a term of a description list inside `scope`. */
const termValue = (scope: Locator, term: string): Locator => scope.getByText(term, { exact: true }).locator('xpath=following-sibling::dd');

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

async function signInAdmin(page: Page, url: string) {
  const headers = { origin: url };
  expect((await page.request.post(`${url}/api/auth/local/login`, { data: { email: ADMIN_EMAIL, name: ADMIN_NAME }, headers })).status()).toBe(200);
  return headers;
}

const setZone = async (page: Page, url: string, headers: Record<string, string>, timeZone: string | null) =>
  expect((await page.request.put(`${url}/api/settings`, { headers, data: { alertEmail: null, timeZone } })).status()).toBe(200);

test.describe('times', () => {
  test.use({ timezoneId: 'America/New_York' });

  test("the bell's storm notice, a card and Run History all show Settings' Tokyo times, named, in a New York browser", async ({ page }, testInfo) => {
    test.slow(); // a server process of its own, and its runs
    const exchanges = await startFakeExchanges();
    exchanges.setSeries('BTC', JUMP);
    const server = await startAppServer({ env: { ...exchanges.env, MARKET_DATA: 'live', MARKET_RETRIES: '0' } });
    try {
      const headers = await signInAdmin(page, server.url);
      await setZone(page, server.url, headers, 'Asia/Tokyo');
      // Set up in New York (its hours in New York's zone), one notification an hour at most.
      const base = defaultAgentConfig(findTemplate('crypto-market-monitor')!, 'America/New_York');
      const config = {
        ...base,
        schedule: { ...base.schedule, frequency: 'daily' },
        notifications: { email: false, inApp: true, maxPerHour: 1, thresholds: [{ type: 'priceChange', value: 0.5, message: 'Price moved' }] },
        parameters: { ...base.parameters, token: 'BTC', exchanges: ['Kraken'], timeframe: '1h', includeOnChainMetrics: false, walletTracking: false },
      };
      const name = 'Tokyo desk';
      const created = await page.request.post(`${server.url}/api/agents`, { headers, data: { templateId: 'crypto-market-monitor', name, config } });
      expect(created.status(), await created.text()).toBe(201);
      const { id } = (await created.json()) as TAgent;
      const resumed = await page.request.patch(`${server.url}/api/agents/${id}`, { headers, data: { status: 'running' } });
      const { nextRunAt } = (await resumed.json()) as TAgent;
      expect(nextRunAt).not.toBeNull();

      // An alert on Kraken; then a second market, whose alert within the hour is held under a storm
      // notice. (Runs of one minute share their candles, so a new market, not a new price, makes
      // the second event.)
      const first = await runOnce(page.request, server.url, id, headers);
      expect(first.result!.alerts).toHaveLength(1);
      const twoMarkets = { ...config, parameters: { ...config.parameters, exchanges: ['Kraken', 'Coinbase'] } };
      expect((await page.request.patch(`${server.url}/api/agents/${id}`, { headers, data: { config: twoMarkets } })).status()).toBe(200);
      const held = await runOnce(page.request, server.url, id, headers);
      expect(held.result!.alerts.map((a) => a.market)).toContain('BTC/USD on coinbase');
      let notifications: TNotificationList['notifications'] = [];
      await expect(async () => {
        notifications = ((await (await page.request.get(`${server.url}/api/notifications`)).json()) as TNotificationList).notifications;
        expect(notifications.map((n) => n.kind)).toEqual(['alert-storm', 'alerts']);
      }).toPass({ timeout: 10_000 });
      const storm = notifications[0]!;
      const stormTitle = `${name}: alert storm, notifications paused until ${tokyo(storm.heldUntil!).clock}`;
      expect(storm.title).toBe(stormTitle);

      await page.goto(`${server.url}/agents-console`);
      const card = page.getByRole('tabpanel').getByRole('listitem', { name });
      await expect(termValue(card, 'Next run')).toHaveText(tokyo(nextRunAt!).dateTime);
      await expect(termValue(card, 'Last run')).toHaveText(tokyo((await (await page.request.get(`${server.url}/api/agents/${id}`)).json() as TAgent).lastRun!).dateTime);
      // Nothing in New York's time, nowhere unnamed.
      await expect(card).not.toContainText(/\bE[SD]T\b/);
      await expectNoSeriousViolations(page, testInfo, 'a card in the Settings zone', 'main');

      // The bell: the server's notice and the bell's own time, in the same zone.
      await page.getByRole('button', { name: /^Notifications/ }).click();
      const panel = page.getByRole('dialog', { name: 'Notifications' });
      const item = panel.getByRole('listitem').filter({ has: page.getByRole('link', { name: stormTitle }) });
      await expect(item).toContainText(`Notifications resume at ${tokyo(storm.heldUntil!).clock}.`);
      await expect(item.locator('time')).toHaveAttribute('title', tokyo(storm.createdAt).dateTime);
      await expect(panel).not.toContainText(/\bE[SD]T\b/);

      // Run History, opened from the notice at its run.
      await item.getByRole('link', { name: stormTitle }).click();
      const details = page.getByRole('dialog', { name });
      await expect(details.getByRole('tab', { name: 'Run History' })).toHaveAttribute('aria-selected', 'true');
      const runItem = details.locator('ol > li[aria-current="true"]');
      await expect(runItem).toContainText(`Run #${held.id}`);
      await expect(runItem).toContainText(`Started ${tokyo(held.startTime!).runTime} · Ended ${tokyo(held.endTime!).runTime}`);
      await expect(details.getByRole('tabpanel')).not.toContainText(/\bE[SD]T\b/);

      // The Overview: the same zone; the hours in the zone they were set in, named.
      await details.getByRole('tab', { name: 'Overview' }).click();
      const schedule = details.getByRole('region', { name: 'Schedule' });
      await expect(termValue(schedule, 'Next run')).toHaveText(tokyo(nextRunAt!).dateTime);
      await expect(termValue(schedule, 'Active hours')).toHaveText('00:00 – 23:59 (America/New_York)');
      await expect(termValue(details, 'Status')).toHaveText('Running');
    } finally {
      await server.stop();
      await exchanges.close();
    }
  });

  test("every article date is SPEC's 'MMM d, yyyy' on the landing, /insights, an article page and Admin Articles, on the reader's calendar", async ({ page, openPage }) => {
    test.slow(); // a server process of its own
    // 22:30 on Nov 26 in New York, 12:30 on Nov 27 in Tokyo.
    const title = 'Dated in two zones';
    const server = await startAppServer({
      articles: [{ title, category: 'Automation', excerpt: 'An article written late in the evening.', readTime: '3 min read', createdAt: '2025-11-27T03:30:00Z' }],
    });
    try {
      const datesOn = async (reader: Page): Promise<string[]> => {
        const shown: string[] = [];
        await reader.goto(`${server.url}/`);
        const landingCard = reader.locator('#insights').getByRole('listitem').filter({ hasText: title });
        await expect(landingCard.locator('time')).toHaveText(/^[A-Z][a-z]{2} \d{1,2}, \d{4}$/);
        shown.push((await landingCard.locator('time').textContent())!);
        await gotoPublicPage(reader, `${server.url}/insights`);
        const insightsCard = reader.getByRole('main').getByRole('listitem').filter({ hasText: title });
        await expect(insightsCard.locator('time')).toHaveText(shown[0]!);
        shown.push((await insightsCard.locator('time').textContent())!);
        await insightsCard.getByRole('link', { name: title }).click();
        await expect(reader.getByRole('heading', { level: 1, name: title })).toBeVisible();
        shown.push((await reader.getByRole('article').locator('time').textContent())!);
        return shown;
      };

      // A visitor in New York: the evening's date there, the same on every public page.
      const visitor = await openPage({ timezoneId: 'America/New_York' });
      const visitorDates = await datesOn(visitor);
      expect(visitorDates).toEqual(['Nov 26, 2025', 'Nov 26, 2025', 'Nov 26, 2025']);

      // The admin, whose Settings say Tokyo, in the same New York browser: Tokyo's date everywhere.
      const headers = await signInAdmin(page, server.url);
      await setZone(page, server.url, headers, 'Asia/Tokyo');
      await page.goto(`${server.url}/admin/articles`);
      const row = page.getByRole('table', { name: 'All articles' }).getByRole('row').filter({ hasText: title });
      await expect(row.locator('time')).toHaveText('Nov 27, 2025');
      await gotoPublicPage(page, `${server.url}/insights`);
      await expect(page.getByRole('main').getByRole('listitem').filter({ hasText: title }).locator('time')).toHaveText('Nov 27, 2025');
      await page.getByRole('main').getByRole('link', { name: title }).click();
      await expect(page.getByRole('article').locator('time')).toHaveText('Nov 27, 2025');
    } finally {
      await server.stop();
    }
  });
});
