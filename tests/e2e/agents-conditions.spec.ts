import { randomUUID } from 'node:crypto';
import type { Locator } from '@playwright/test';
import { expect, test, toasts } from './fixtures.ts';
import { openWizardFromTemplates } from './support/agents.ts';
import { expectNoSeriousViolations } from './support/axe.ts';

// Issue 30 items 3 and 4: an admin builds a Custom Monitor's watchlist and a condition of their
// own in the wizard, reads it in plain words, sees a bad value refused on its field, saves, and
// finds the condition in the details.

const DIALOG = '[role="dialog"]';
const select = (scope: Locator, name: string) => scope.getByRole('combobox', { name, exact: true });
const number = (scope: Locator, name: string) => scope.getByRole('spinbutton', { name, exact: true });

test.describe('conditions of your own', () => {
  test('an admin creates a Custom Monitor with a two-clause condition through the builder and finds it in the details', async ({ page, login, admin }, testInfo) => {
    const name = `Watch ${randomUUID().slice(0, 6)}`;
    await login(page, admin);
    await page.goto('/agents-console');
    const wizard = await openWizardFromTemplates(page, 'Custom Monitor', name);
    await wizard.getByRole('tab', { name: 'Parameters' }).click();

    // The watchlist: the template's two markets, and one more pasted.
    await expect(wizard.getByRole('textbox', { name: 'Market 1: symbol' })).toHaveValue('AAPL');
    await wizard.getByRole('textbox', { name: 'Add several at once' }).fill('MSFT, ETH/USDT on kraken');
    await wizard.getByRole('button', { name: 'Add these markets' }).click();
    await expect(wizard.getByRole('group', { name: 'Watchlist' }).getByRole('status')).toHaveText('2 markets added.');
    await expect(select(wizard, 'Market 4: exchange')).toHaveValue('kraken');

    // A condition of two clauses: RSI (14) crosses below 30, and close is above EMA (200) on 1 day.
    await wizard.getByRole('button', { name: 'Add condition' }).click();
    const condition = wizard.getByRole('group', { name: 'Condition 1', exact: true });
    await condition.getByRole('textbox', { name: 'Condition 1: name (optional)' }).fill('Dip in an uptrend');
    await condition.getByRole('button', { name: 'Condition 1: add clause' }).click();
    await select(condition, 'Clause 2: left side').selectOption({ label: 'close' });
    await select(condition, 'Clause 2: operator').selectOption({ label: 'is above' });
    await select(condition, 'Clause 2: right side').selectOption({ label: 'EMA' });
    await number(condition, 'Clause 2: right period').fill('200');
    await select(condition, 'Clause 2: right timeframe').selectOption({ label: '1 day' });
    await expect(condition.getByText('RSI (14) crosses below 30 and close is above EMA (200) on 1 day', { exact: true })).toBeVisible();
    await condition.getByRole('spinbutton', { name: 'Condition 1: cooldown' }).fill('30');

    // A value the contract refuses is said on its field as it is typed, and goes once fixed.
    const period = number(condition, 'Clause 1: left period');
    await period.fill('1');
    await expect(period).toHaveAttribute('aria-invalid', 'true');
    await expect(period).toHaveAccessibleDescription('RSI period must be a whole number from 2 to 500');
    await expectNoSeriousViolations(page, testInfo, 'conditions builder with an error', DIALOG);
    await period.fill('14');
    await expect(period).not.toHaveAttribute('aria-invalid');

    await wizard.getByRole('tab', { name: 'Review' }).click();
    const review = wizard.getByRole('list', { name: 'Conditions' });
    await expect(review).toContainText('Dip in an uptrend');
    await expect(review).toContainText('Once per candle close, at most every 30 minutes');
    await wizard.getByRole('button', { name: 'Create Agent' }).click();
    await expect(toasts(page).getByText('Agent created successfully').last()).toBeVisible();

    await page.getByRole('tabpanel').getByRole('listitem', { name }).getByRole('button', { name: 'View Details' }).click();
    const details = page.getByRole('dialog', { name });
    const conditions = details.getByRole('region', { name: 'Conditions' });
    await expect(conditions.getByText('Dip in an uptrend')).toBeVisible();
    await expect(conditions.getByText('RSI (14) crosses below 30 and close is above EMA (200) on 1 day')).toBeVisible();
    await expect(conditions.getByText('Once per candle close, at most every 30 minutes')).toBeVisible();
    await expect(details.getByRole('list', { name: 'Markets watched' })).toContainText('ETH/USDT on kraken');

    // Edited in the details with the same builder, and saved.
    await conditions.getByRole('button', { name: 'Edit conditions' }).click();
    await select(conditions, 'Clause 1: operator').selectOption({ label: 'is below' });
    await expectNoSeriousViolations(page, testInfo, 'conditions builder in the details', DIALOG);
    await conditions.getByRole('button', { name: 'Save' }).click();
    await expect(toasts(page).getByText('Agent updated successfully').last()).toBeVisible();
    await expect(conditions.getByText('RSI (14) is below 30 and close is above EMA (200) on 1 day')).toBeVisible();
  });
});
