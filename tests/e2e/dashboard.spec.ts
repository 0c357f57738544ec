import { type Locator, type Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';

// SPEC section 2, "Dashboard (/dashboard)".
const GATED_ASSISTANTS = [
  { title: 'GPT', path: '/chat-console' },
  { title: 'Claude', path: '/claude-chat' },
  { title: 'Gemini', path: '/gemini-chat' },
  { title: 'Grok', path: '/grok-chat' },
] as const;
const OPEN_ASSISTANTS = ['DeepSeek', 'Llama'] as const;
// SPEC's two agents and the Custom Monitor (issue 30, decision 0074).
const AGENTS = ['Stock Trader', 'Crypto Trader', 'Custom Monitor'] as const;
const ACTION = /^(Start Chat|Request Access|Launch Agent)$/;

/** One dashboard card: the smallest element holding the card's title and its action button. */
function card(page: Page, title: string): Locator {
  const titleText = page.getByRole('heading', { name: title, exact: true }).or(page.getByText(title, { exact: true }));
  const action = page.getByRole('button', { name: ACTION }).or(page.getByRole('link', { name: ACTION }));
  return page.getByRole('main').locator('*').filter({ has: titleText }).filter({ has: action }).last();
}

/** A card action, whether built as a button or as a link. */
function action(scope: Locator | Page, name: string): Locator {
  return scope.getByRole('button', { name, exact: true }).or(scope.getByRole('link', { name, exact: true }));
}

async function openDashboard(page: Page): Promise<void> {
  await page.goto('/dashboard');
  await expect(page.getByRole('heading', { name: 'AI Assistants' })).toBeVisible();
}

test.describe('dashboard', () => {
  test('greets the signed-in user and has the two sections', async ({ page, login, guest }) => {
    await login(page, guest);
    await openDashboard(page);
    await expect(page.getByText(`Welcome, ${guest.name}!`, { exact: true })).toBeVisible();
    await expect(page.getByText(`You're logged in as ${guest.email}`)).toBeVisible();
    await expect(page.getByRole('heading', { name: 'AI Agents' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Settings' })).toBeVisible();

    // Refresh reloads the page.
    const reloaded = page.waitForEvent('load');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await reloaded;
    await expect(page.getByRole('heading', { name: 'AI Assistants' })).toBeVisible();
  });

  test('admin: every assistant and agent is enabled and leads to its screen', async ({ page, login, admin }) => {
    await login(page, admin);
    await openDashboard(page);

    await expect(page.getByText('Enabled', { exact: true })).toHaveCount(4);
    await expect(page.getByText('Requires Admin', { exact: true })).toHaveCount(0);
    await expect(action(page, 'Request Access')).toHaveCount(0);

    for (const { title, path } of GATED_ASSISTANTS) {
      const c = card(page, title);
      await expect(c.getByText('Enabled', { exact: true }), `${title} badge`).toBeVisible();
      await action(c, 'Start Chat').click();
      await expect(page, `${title}'s Start Chat`).toHaveURL(new RegExp(`${path}$`));
      await openDashboard(page);
    }
    for (const title of OPEN_ASSISTANTS) {
      await expect(action(card(page, title), 'Start Chat'), `${title} Start Chat`).toBeVisible();
    }

    for (const title of AGENTS) {
      const c = card(page, title);
      await expect(c.getByText('Admin Access', { exact: true }), `${title} badge`).toBeVisible();
      await action(c, 'Launch Agent').click();
      await expect(page, `${title}'s Launch Agent`).toHaveURL(/\/agents-console$/);
      await openDashboard(page);
    }

    await action(page, 'Manage Agents').click();
    await expect(page).toHaveURL(/\/agents-console$/);
  });

  test('guest: gated assistants and agents ask for admin access', async ({ page, login, guest }) => {
    await login(page, guest);
    await openDashboard(page);

    await expect(page.getByText('Enabled', { exact: true })).toHaveCount(0);
    await expect(page.getByText('Admin Access', { exact: true })).toHaveCount(0);
    await expect(page.getByText('Requires Admin', { exact: true })).toHaveCount(GATED_ASSISTANTS.length + AGENTS.length);
    await expect(action(page, 'Launch Agent')).toHaveCount(0);
    await expect(action(page, 'Manage Agents')).toHaveCount(0);

    for (const title of [...GATED_ASSISTANTS.map((a) => a.title), ...AGENTS]) {
      const c = card(page, title);
      await expect(c.getByText('Requires Admin', { exact: true }), `${title} badge`).toBeVisible();
      await expect(action(c, 'Request Access'), `${title} Request Access`).toBeVisible();
      await expect(action(c, 'Start Chat'), `${title} has no Start Chat`).toHaveCount(0);
    }
    // DeepSeek and Llama are not gated.
    for (const title of OPEN_ASSISTANTS) {
      await expect(action(card(page, title), 'Start Chat'), `${title} Start Chat`).toBeVisible();
    }
  });

  test('guest: Request Access opens "Admin Access Required", closed by I Understand and by Escape', async ({ page, login, guest }) => {
    await login(page, guest);
    await openDashboard(page);
    const trigger = action(card(page, 'GPT'), 'Request Access');
    const dialog = page.getByRole('dialog', { name: 'Admin Access Required' });

    await trigger.click();
    await expect(dialog).toBeVisible();
    await expect(dialog.getByText('Why is this restricted?')).toBeVisible();
    await expect(dialog).toContainText(/administrator/i);
    await expect(dialog).toContainText(/Current role:\s*guest/);
    await dialog.getByRole('button', { name: 'I Understand' }).click();
    await expect(dialog).toBeHidden();

    // Keyboard only: open with Enter, close with Escape; focus returns to the trigger.
    await trigger.focus();
    await page.keyboard.press('Enter');
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole('button', { name: 'I Understand' })).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(trigger).toBeFocused();

    // The agents' Request Access opens the same dialog.
    await action(card(page, 'Stock Trader'), 'Request Access').click();
    await expect(dialog).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
  });
});
