import { randomUUID } from 'node:crypto';
import { expect, test, toasts } from './fixtures.ts';
import { alertOnAnyMove, eventStreamOpened, openWizardFromTemplates, runNowAndClose, unreadCount, watchForReload } from './support/agents.ts';
import { expectNoSeriousViolations } from './support/axe.ts';

// Issue 17 item 3: the console updates by itself. A run's alert reaches the bell and the run
// reaches its card through the tab's event stream (GET /api/events), with no reload and no
// polling (the bell polls only while the stream is closed, every 30 s: longer than we wait).

test.describe('live console', () => {
  test('a run now fires an alert: the bell count and the card change without reload', async ({ page, login, admin }, testInfo) => {
    test.setTimeout(60_000);
    const name = `Live coins ${randomUUID().slice(0, 6)}`;
    await login(page, admin);
    await page.goto('/agents-console');
    const streamOpened = eventStreamOpened(page);

    // A Crypto Market Monitor whose price-change alert fires on any move (limit 0 %).
    const wizard = await openWizardFromTemplates(page, 'Crypto Market Monitor', name);
    await alertOnAnyMove(wizard);
    await wizard.getByRole('tab', { name: 'Review' }).click();
    await wizard.getByRole('button', { name: 'Create Agent' }).click();
    await expect(toasts(page).getByText('Agent created successfully').last()).toBeVisible();
    await streamOpened;

    const card = page.getByRole('tabpanel').getByRole('listitem', { name });
    await expect(card.getByRole('definition').first()).toHaveText('Never');
    const before = await unreadCount(page);
    const reloaded = watchForReload(page);

    // Run it now from its details, and close them at once: no Run History is open to poll.
    await card.getByRole('button', { name: 'View Details' }).click();
    await runNowAndClose(page, page.getByRole('dialog', { name }));

    // The stream's events: the card shows its last run, the bell counts the alert.
    await expect(card.getByRole('definition').first()).not.toHaveText('Never', { timeout: 20_000 });
    await expect.poll(() => unreadCount(page), { timeout: 20_000 }).toBeGreaterThan(before);
    expect(reloaded()).toBe(false);
    await page.getByRole('button', { name: /Notifications/ }).click();
    await expect(page.getByRole('dialog', { name: 'Notifications' }).getByText(`${name}: `, { exact: false }).first()).toBeVisible();
    await expectNoSeriousViolations(page, testInfo, 'live-bell', '[role="dialog"]');
  });
});
