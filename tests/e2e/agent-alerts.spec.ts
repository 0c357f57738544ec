import { randomUUID } from 'node:crypto';
import { expect, test, toasts } from './fixtures.ts';
import { openWizardFromTemplates } from './support/agents.ts';
import { expectNoSeriousViolations } from './support/axe.ts';

// Issue 15 items 1-2: each alert shows its unit and what it measures; a message nobody wrote
// follows the type and value; the template's signals are named apart from the alerts.

test.describe('agent alerts', () => {
  test('the wizard explains each alert, keeps default messages in step, and the details say the same', async ({ page, login, admin }, testInfo) => {
    const name = `Alert coins ${randomUUID().slice(0, 6)}`;
    await login(page, admin);
    await page.goto('/agents-console');
    const wizard = await openWizardFromTemplates(page, 'Crypto Market Monitor', name);

    // The parameters tab names the template's signals.
    await wizard.getByRole('tab', { name: 'Parameters' }).click();
    const signals = wizard.getByRole('region', { name: 'Signals' });
    await expect(signals.getByRole('listitem')).toHaveText([/^Price change/, /^Volatility spike/, /^Volume surge/, /^Whale transaction/]);
    await expectNoSeriousViolations(page, testInfo, 'wizard-parameters-signals', '[role="dialog"]');

    // Each alert: its unit beside the value and what it measures under it.
    await wizard.getByRole('tab', { name: 'Notifications' }).click();
    const value = (n: number) => wizard.getByRole('spinbutton', { name: `Threshold ${n} value (%)` });
    const message = (n: number) => wizard.getByRole('textbox', { name: `Threshold ${n} message` });
    await expect(value(1)).toHaveValue('3');
    await expect(message(1)).toHaveValue('Price change above 3%');
    await expect(value(1)).toHaveAccessibleDescription('% How far the close moved over the last candle, up or down, as a % of the close before it. Each value is from 0 to 10,000; each message is required, up to 200 characters.');
    await expect(message(2)).toHaveValue('Volatility above 2% of the price');
    await expect(value(2)).toHaveAccessibleDescription("% of the price The last candle's range (high minus low) as a % of its close. Each value is from 0 to 10,000; each message is required, up to 200 characters.");
    await expect(wizard.getByText("The last candle's range (high minus low) as a % of its close.")).toBeVisible();
    await expect(message(3)).toHaveValue('Volume above 150% of average');

    // Issue 29 item 5: typed through a negative value ('-1' then '2', '-5' then '0.1'), the
    // default message still follows; it stayed at 'Price change above -1%'.
    for (const [first, second] of [
      ['-1', '2'],
      ['-5', '0.1'],
    ]) {
      await value(1).fill('');
      await value(1).pressSequentially(first!);
      await expect(message(1)).toHaveValue(`Price change above ${first}%`);
      await value(1).fill('');
      await value(1).pressSequentially(second!);
      await expect(message(1)).toHaveValue(`Price change above ${second}%`);
    }

    // The default message follows the value and the type...
    await value(1).fill('0.1');
    await expect(message(1)).toHaveValue('Price change above 0.1%');
    await wizard.getByRole('combobox', { name: 'Threshold 3 type' }).selectOption({ label: 'Volume spike' });
    await expect(message(3)).toHaveValue('Volume spike above 150% of average');
    await value(3).fill('1500');
    await expect(message(3)).toHaveValue('Volume spike above 1,500% of average');
    // ...until the user writes their own.
    await message(2).fill('BTC is swinging');
    await value(2).fill('2.5');
    await expect(message(2)).toHaveValue('BTC is swinging');
    await expectNoSeriousViolations(page, testInfo, 'wizard-alerts', '[role="dialog"]');

    await wizard.getByRole('tab', { name: 'Review' }).click();
    await expect(wizard.getByRole('tabpanel')).toContainText('Price change 0.1%, Volatility alert 2.5% of the price, Volume spike 1,500% of average volume');
    await wizard.getByRole('button', { name: 'Create Agent' }).click();
    await expect(toasts(page).getByText('Agent created successfully').last()).toBeVisible();

    // The details' Settings tab: the same units, explanations and messages, the signals apart.
    await page.getByRole('tabpanel').getByRole('listitem', { name }).getByRole('button', { name: 'View Details' }).click();
    const details = page.getByRole('dialog', { name });
    await details.getByRole('tab', { name: 'Settings' }).click();
    const alerts = details.getByRole('region', { name: 'Alert thresholds' }).getByRole('listitem');
    await expect(alerts).toHaveCount(3);
    await expect(alerts.nth(0)).toContainText('Price change0.1%Price change above 0.1%How far the close moved over the last candle');
    await expect(alerts.nth(1)).toContainText("Volatility alert2.5% of the priceBTC is swingingThe last candle's range (high minus low) as a % of its close.");
    await expect(alerts.nth(2)).toContainText('Volume spike1,500% of average volumeVolume spike above 1,500% of average');
    await expect(details.getByRole('region', { name: 'Signals' }).getByRole('listitem')).toHaveCount(4);
    await expectNoSeriousViolations(page, testInfo, 'details-settings-alerts', '[role="dialog"]');
  });
});
