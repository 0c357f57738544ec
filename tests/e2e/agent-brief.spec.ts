import { randomUUID } from 'node:crypto';
import { expect, test, toasts } from './fixtures.ts';
import { alertOnAnyMove, eventStreamOpened, openWizardFromTemplates, runNowAndClose, unreadCount, watchForReload } from './support/agents.ts';
import { expectNoSeriousViolations } from './support/axe.ts';

// Issue 17 item 5: "Explain alerts". An agent explains its alerts with a chat assistant (the
// fake AI provider here, answering 'Reply to: <prompt>'); when a run raises an alert, the bell
// shows it and then its brief, attributed, through the live stream: no reload.

test.describe('explain alerts', () => {
  test('an agent that explains its alerts: the bell shows the alert, then its brief by the chosen assistant', async ({ page, login, admin }, testInfo) => {
    test.setTimeout(90_000);
    const name = `Brief coins ${randomUUID().slice(0, 6)}`;
    await login(page, admin);
    await page.goto('/agents-console');
    const streamOpened = eventStreamOpened(page);

    // A Crypto Market Monitor whose price change alert fires on any move (limit 0 %), explained by DeepSeek.
    const wizard = await openWizardFromTemplates(page, 'Crypto Market Monitor', name);
    await alertOnAnyMove(wizard);
    const explain = wizard.getByRole('checkbox', { name: 'Explain alerts' });
    await expect(explain).toHaveAccessibleDescription(/counts against your daily AI budget/);
    await explain.check();
    const assistant = wizard.getByRole('combobox', { name: 'Assistant' });
    // Gemini has no key in the journeys' server: offered, and marked.
    await expect(assistant.getByRole('option', { name: 'Gemini (not configured)' })).toHaveCount(1);
    await assistant.selectOption({ label: 'DeepSeek' });
    await expect(wizard.getByRole('combobox', { name: 'Model' })).toHaveValue('deepseek-chat');
    await expectNoSeriousViolations(page, testInfo, 'wizard-explain-alerts', '[role="dialog"]');
    await wizard.getByRole('tab', { name: 'Review' }).click();
    await expect(wizard.getByRole('tabpanel')).toContainText('Explain alertsOn: DeepSeek (DeepSeek V3)');
    await wizard.getByRole('button', { name: 'Create Agent' }).click();
    await expect(toasts(page).getByText('Agent created successfully').last()).toBeVisible();
    await streamOpened;

    const card = page.getByRole('tabpanel').getByRole('listitem', { name });
    const before = await unreadCount(page);
    const reloaded = watchForReload(page);

    // Its Settings say who explains its alerts; then run it now.
    await card.getByRole('button', { name: 'View Details' }).click();
    const details = page.getByRole('dialog', { name });
    await details.getByRole('tab', { name: 'Settings' }).click();
    await expect(details.getByRole('tabpanel')).toContainText('Explain alertsOn: DeepSeek (DeepSeek V3)');
    await details.getByRole('tab', { name: 'Overview' }).click();
    await runNowAndClose(page, details);

    // The alert reaches the bell, then its brief, each by the stream's events.
    await expect.poll(() => unreadCount(page), { timeout: 20_000 }).toBeGreaterThan(before);
    await page.getByRole('button', { name: /Notifications/ }).click();
    const bell = page.getByRole('dialog', { name: 'Notifications' });
    const item = bell.getByRole('listitem').filter({ hasText: `${name}: ` }).first();
    await expect(item).toBeVisible();
    await expect(item.getByRole('list', { name: 'Alerts' })).toContainText('Price moved');
    const brief = item.getByRole('group', { name: 'Brief' });
    await expect(brief).toContainText('Brief by DeepSeek (DeepSeek V3)');
    await expect(brief).toContainText(`Reply to: The alert of the agent "${name}"`, { timeout: 20_000 });
    expect(reloaded()).toBe(false);
    await expectNoSeriousViolations(page, testInfo, 'bell-brief', '[role="dialog"]');
  });
});
