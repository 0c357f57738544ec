import { randomUUID } from 'node:crypto';
import type { Locator, Page } from '@playwright/test';
import { defaultAgentConfig, findTemplate, type TAgent } from '../../contracts/agents.ts';
import { expect, test, toasts } from './fixtures.ts';
import { openWizardFromTemplates } from './support/agents.ts';
import { expectNoSeriousViolations } from './support/axe.ts';

// Issue 16: an admin judges a configuration on history before relying on it, from the wizard
// (the draft as it stands) and from an existing agent's details. The e2e server runs on
// simulated market data (MARKET_DATA=simulated), so every test's result is marked as such.

const DIALOG = '[role="dialog"]';

/** Runs the test in `panel` and returns the result, once it is there. */
async function runTest(panel: Locator): Promise<Locator> {
  await panel.getByRole('button', { name: 'Test on history' }).click();
  const result = panel.getByRole('region', { name: 'Test result' });
  await expect(result).toBeVisible({ timeout: 20_000 });
  return result;
}

/** The number in the Fired column of a signal's line in the result's first (summary) table. */
async function fired(result: Locator, signal: string): Promise<number> {
  const line = result.getByRole('table').first().getByRole('row', { name: new RegExp(`^${signal} \\(signal\\)`) });
  return Number((await line.getByRole('cell').first().textContent())!.replace(/,/g, ''));
}

async function openDetails(page: Page, name: string): Promise<Locator> {
  await page.goto('/agents-console');
  await page.getByRole('tab', { name: 'Paused Agents' }).click();
  await page.getByRole('tabpanel').getByRole('listitem', { name }).getByRole('button', { name: 'View Details' }).click();
  return page.getByRole('dialog', { name });
}

test.describe('test on history', () => {
  test('from the wizard: test the draft, change the RSI threshold, test again, see the counts change, create the agent', async ({ page, login, owner }, testInfo) => {
    test.setTimeout(90_000);
    await login(page, owner);
    await page.goto('/agents-console');
    const name = `History scan ${randomUUID().slice(0, 6)}`;
    const wizard = await openWizardFromTemplates(page, 'Stock Market Scanner', name);

    await wizard.getByRole('tab', { name: 'Review' }).click();
    const panel = wizard.getByRole('region', { name: 'Test on history' });
    const candles = panel.getByRole('spinbutton', { name: 'Candles per market' });
    await expect(candles).toHaveValue('500');
    await expect(candles).toHaveAccessibleDescription(/^A whole number from 50 to 5,000/);
    await candles.fill('200');
    let result = await runTest(panel);
    await expect(result.getByRole('heading', { name: /Result on history/ })).toContainText('Simulated data');
    await expect(result.getByText('Candles', { exact: true }).locator('xpath=following-sibling::dd')).toContainText('200 candles per market');
    const before = await fired(result, 'RSI extreme');
    await expectNoSeriousViolations(page, testInfo, 'wizard test result', DIALOG);

    // A lower threshold: RSI above 55 or below 45 fires on every candle 70/30 did, and more.
    await wizard.getByRole('tab', { name: 'Parameters' }).click();
    const rsi = wizard.getByRole('slider', { name: /RSI threshold/ });
    await rsi.focus();
    for (let i = 0; i < 15; i++) await page.keyboard.press('ArrowLeft');
    await expect(rsi).toHaveAttribute('aria-valuenow', '55');
    await wizard.getByRole('tab', { name: 'Review' }).click();
    await panel.getByRole('spinbutton', { name: 'Candles per market' }).fill('200');
    result = await runTest(panel);
    const after = await fired(result, 'RSI extreme');
    expect(after).toBeGreaterThan(before);

    // The firings of a market, unfolded with the keyboard, read as a table.
    const market = result.getByRole('region', { name: /^Market / }).first();
    await market.getByText(/^Firings on .* \(\d+\)$/).focus();
    await page.keyboard.press('Enter');
    await expect(market.getByRole('table', { name: /^Firings on .*, oldest first$/ }).getByRole('row').nth(1)).toBeVisible();

    await wizard.getByRole('button', { name: 'Create Agent' }).click();
    await expect(toasts(page).getByText('Agent created successfully').last()).toBeVisible();
    await expect(wizard).toBeHidden();
  });

  test("from an agent's details: test its saved settings, then with an unsaved edit", async ({ page, login, owner, baseURL }, testInfo) => {
    test.setTimeout(90_000);
    await login(page, owner);
    const name = `History coins ${randomUUID().slice(0, 6)}`;
    const base = defaultAgentConfig(findTemplate('crypto-market-monitor')!);
    const config = { ...base, parameters: { ...base.parameters, exchanges: ['Binance'], includeOnChainMetrics: false } };
    const created = await page.request.post('/api/agents', { headers: { origin: new URL(baseURL!).origin }, data: { templateId: 'crypto-market-monitor', name, config } });
    expect(created.status()).toBe(201);
    expect(((await created.json()) as TAgent).status).toBe('paused');

    const details = await openDetails(page, name);
    await details.getByRole('tab', { name: 'Test on history' }).click();
    await expect(details.getByText('Tests the saved settings.')).toBeVisible();
    const panel = details.getByRole('region', { name: 'Test on history' });
    await panel.getByRole('spinbutton', { name: 'Candles per market' }).fill('100');
    let result = await runTest(panel);
    await expect(result.getByRole('img', { name: /^Price and volume chart of BTC\/\w+ on binance, 100 candles, / })).toBeVisible();
    const saved = await fired(result, 'Price change');
    await expectNoSeriousViolations(page, testInfo, 'details test result', DIALOG);

    // An unsaved, lower price-change threshold is tested as it stands, and nothing is saved.
    await details.getByRole('tab', { name: 'Overview' }).click();
    await details.getByRole('button', { name: 'Edit parameters' }).click();
    const threshold = details.getByRole('spinbutton', { name: /Price change threshold/ });
    await threshold.fill('0.5');
    await details.getByRole('tab', { name: 'Test on history' }).click();
    await expect(details.getByText('Tests the saved settings with your unsaved edits to Parameters.')).toBeVisible();
    await panel.getByRole('spinbutton', { name: 'Candles per market' }).fill('100');
    result = await runTest(panel);
    expect(await fired(result, 'Price change')).toBeGreaterThan(saved);
    const stored = (await (await page.request.get(`/api/agents/${((await created.json()) as TAgent).id}`)).json()) as TAgent;
    expect(stored.config.parameters.priceChangeThreshold).toBe(base.parameters.priceChangeThreshold);
  });
});
