import { randomUUID } from 'node:crypto';
import { defaultAgentConfig, findTemplate, type TAgent, type TAgentRun } from '../../contracts/agents.ts';
import { expect, test } from './fixtures.ts';
import { expectNoSeriousViolations } from './support/axe.ts';

// Issue 15 item 9: the chart a trader expects: volume in a pane under the price, the template's
// signals and the user's alerts marked, and a larger, full-width view reachable from the details.

test.describe('agent chart', () => {
  test('shows volume under the price with signal and alert markers, and opens a full-width view', async ({ page, login, owner, baseURL }, testInfo) => {
    test.setTimeout(60_000);
    await login(page, owner);
    const name = `Chart coins ${randomUUID().slice(0, 6)}`;
    const base = defaultAgentConfig(findTemplate('crypto-market-monitor')!);
    // One exchange; an alert on any price move, so the run has one to mark.
    const config = {
      ...base,
      notifications: { email: false, inApp: true, thresholds: [{ type: 'priceChange', value: 0, message: 'Any price move' }] },
      parameters: { ...base.parameters, exchanges: ['Binance'], includeOnChainMetrics: false },
    };
    const origin = { origin: new URL(baseURL!).origin };
    const created = await page.request.post('/api/agents', { headers: origin, data: { templateId: 'crypto-market-monitor', name, config } });
    expect(created.status()).toBe(201);
    const { id } = (await created.json()) as TAgent;
    expect((await page.request.post(`/api/agents/${id}/run`, { headers: origin })).status()).toBe(202);
    await expect
      .poll(async () => ((await (await page.request.get(`/api/agents/${id}/runs`)).json()) as TAgentRun[])[0]?.status, { timeout: 30_000 })
      .toBe('success');

    await page.goto('/agents-console');
    await page.getByRole('tab', { name: 'Paused Agents' }).click();
    await page.getByRole('tabpanel').getByRole('listitem', { name }).getByRole('button', { name: 'View Details' }).click();
    const details = page.getByRole('dialog', { name });
    await details.getByRole('tab', { name: 'Chart' }).click();

    const chart = details.getByRole('img', { name: /^Price and volume chart of BTC\/\w+ on binance, \d+ candles, \d+ signal markers?, 1 alert marker$/ });
    await expect(chart).toBeVisible();
    // Two panes (price, then volume) drawn on canvases: lightweight-charts lays each pane out as
    // a table row with its own canvases, the time axis below them.
    await expect(chart.locator('canvas').first()).toBeVisible();
    const paneRows = chart.locator('table > tr', { has: page.locator('canvas') });
    await expect.poll(() => paneRows.count()).toBeGreaterThanOrEqual(3); // price, volume, time axis
    const legend = details.getByRole('list', { name: 'Legend' });
    await expect(legend).toContainText('Volume (pane below)');
    await expect(legend).toContainText('Alert: Any price move');
    await expect(details.getByText(/candles of BTC\/\w+ on binance from .*; last close [\d,.]+, volume [\d,.]+\. .*Alerts on the last candle: Any price move/)).toBeVisible();
    await expectNoSeriousViolations(page, testInfo, 'chart with volume and markers', '[role="dialog"]');

    // The larger view: the same chart across the window, here a 1280 x 800 laptop's.
    // Measured now: once the larger view opens, the details are hidden from the accessibility tree.
    const small = (await chart.boundingBox())!;
    await page.setViewportSize({ width: 1280, height: 800 });
    await details.getByRole('button', { name: 'Larger view' }).click();
    const large = page.getByRole('dialog', { name: /^Chart of BTC\/\w+ on binance$/ });
    await expect(large).toBeVisible();
    const largeChart = large.getByRole('img', { name: /^Price and volume chart of BTC\/\w+ on binance, / });
    await expect(largeChart.locator('canvas').first()).toBeVisible();
    const largeBox = (await largeChart.boundingBox())!;
    const viewport = page.viewportSize()!;
    expect(largeBox.width).toBeGreaterThan(viewport.width * 0.85);
    expect(largeBox.width).toBeGreaterThan(small.width * 1.3);
    expect(largeBox.height).toBeGreaterThan(small.height);
    // Issue 29 item 11: where the chart is from is said once (it was said twice), and the volume
    // pane is in full view with nothing to scroll (it was cut off at 1280 x 800).
    await expect(large.getByText(/From run #\d+/)).toHaveCount(1);
    const largePanes = largeChart.locator('table > tr', { has: page.locator('canvas') });
    await expect.poll(() => largePanes.count()).toBeGreaterThanOrEqual(3); // price, volume, time axis
    const volumePane = (await largePanes.nth(1).boundingBox())!;
    const timeAxis = (await largePanes.nth(2).boundingBox())!;
    expect(volumePane.height).toBeGreaterThan(40);
    expect(timeAxis.y + timeAxis.height).toBeLessThanOrEqual(largeBox.y + largeBox.height + 1);
    const dialogBox = (await large.boundingBox())!;
    expect(largeBox.y + largeBox.height).toBeLessThanOrEqual(Math.min(viewport.height, dialogBox.y + dialogBox.height));
    expect(await large.evaluate((dialog) => dialog.scrollHeight - dialog.clientHeight)).toBeLessThanOrEqual(1);
    await expectNoSeriousViolations(page, testInfo, 'chart, full-width view', '[role="dialog"]:last-of-type');

    // Escape closes the larger view only; the details stay where they were.
    await page.keyboard.press('Escape');
    await expect(large).toBeHidden();
    await expect(details.getByRole('tab', { name: 'Chart' })).toHaveAttribute('aria-selected', 'true');
    await expect(details.getByRole('button', { name: 'Larger view' })).toBeFocused();
  });
});
