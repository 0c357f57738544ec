import AxeBuilder from '@axe-core/playwright';
import { type Page, type TestInfo } from '@playwright/test';
import { expect, test, toasts, waitForAnimations } from './fixtures.ts';
import type { BrowserWindow } from './support/browser-types.ts';

const scrollTo = (top: number) => (globalThis as unknown as BrowserWindow).scrollTo({ top, behavior: 'instant' });

// No axe violation of impact serious or critical on the main screens.
const BLOCKING = new Set(['serious', 'critical']);

async function expectNoSeriousViolations(page: Page, testInfo: TestInfo, label: string, only?: string): Promise<void> {
  // Animated-in content is checked in its final state (mid-fade text fails contrast).
  await waitForAnimations(page);
  const axe = new AxeBuilder({ page });
  const results = await (only ? axe.include(only) : axe).analyze();
  const blocking = results.violations.filter((v) => BLOCKING.has(v.impact ?? ''));
  const report = blocking
    .map(
      (v) =>
        `[${v.impact}] ${v.id}: ${v.help} (${v.helpUrl})\n` +
        v.nodes.map((n) => `    ${n.target.join(' ')}\n      ${n.failureSummary?.replace(/\n/g, '\n      ')}`).join('\n'),
    )
    .join('\n');
  await testInfo.attach(`axe-${label}.json`, { body: JSON.stringify(results.violations, null, 2), contentType: 'application/json' });
  if (report) console.log(`axe violations on ${label}:\n${report}`);
  const minor = results.violations.filter((v) => !BLOCKING.has(v.impact ?? ''));
  if (minor.length > 0) console.log(`axe on ${label}: minor/moderate (not failing): ${minor.map((v) => `${v.id} [${v.impact}]`).join(', ')}`);
  expect(results.passes.length, `axe checked something on ${label}`).toBeGreaterThan(0);
  expect(blocking.length, `serious/critical axe violations on ${label}:\n${report}`).toBe(0);
}

/** Scrolls through the page so everything that animates in on view has appeared. */
async function revealAll(page: Page): Promise<void> {
  const height = await page.evaluate(() => (globalThis as unknown as BrowserWindow).document.documentElement.scrollHeight);
  for (let y = 0; y <= height; y += 400) {
    await page.evaluate(scrollTo, y);
    await page.waitForTimeout(50);
  }
  await waitForAnimations(page);
  await page.evaluate(scrollTo, 0);
}

test.describe('accessibility (axe)', () => {
  test('landing page', async ({ page }, testInfo) => {
    await page.goto('/');
    await expect(page.getByRole('heading', { level: 1, name: 'Automate Your Business Success' })).toBeVisible();
    await expect(page.locator('#insights')).toBeAttached();
    await revealAll(page);
    await expectNoSeriousViolations(page, testInfo, 'landing');
  });

  test('dashboard as admin', async ({ page, login, admin }, testInfo) => {
    await login(page, admin);
    await page.goto('/dashboard');
    await expect(page.getByRole('heading', { name: 'AI Assistants' })).toBeVisible();
    await expectNoSeriousViolations(page, testInfo, 'dashboard-admin');
  });

  test('dashboard as guest, and its Admin Access Required dialog', async ({ page, login, guest }, testInfo) => {
    await login(page, guest);
    await page.goto('/dashboard');
    await expect(page.getByRole('heading', { name: 'AI Assistants' })).toBeVisible();
    await expectNoSeriousViolations(page, testInfo, 'dashboard-guest');

    await page.getByRole('button', { name: 'Request Access', exact: true }).first().click();
    await expect(page.getByRole('dialog', { name: 'Admin Access Required' })).toBeVisible();
    await expectNoSeriousViolations(page, testInfo, 'request-access-dialog');
  });

  test('404 screen', async ({ page }, testInfo) => {
    await page.goto('/no-such-page');
    await expect(page.getByRole('heading', { name: '404 Page Not Found' })).toBeVisible();
    await expectNoSeriousViolations(page, testInfo, 'not-found');
  });

  test('Access Denied screen', async ({ page, login, guest }, testInfo) => {
    await login(page, guest);
    await page.goto('/chat-console');
    await expect(page.getByRole('heading', { name: 'Access Denied' })).toBeVisible();
    await expectNoSeriousViolations(page, testInfo, 'access-denied');
  });

  test('login page', async ({ page }, testInfo) => {
    await page.goto('/login');
    await expect(page.getByRole('main').getByLabel(/email/i)).toBeVisible();
    await expectNoSeriousViolations(page, testInfo, 'login');
  });

  // One test per screen: each gets its own time, and a failure names the screen.
  const adminScreens: Array<[string, string]> = [
    ['/chat-console', 'Chat with GPT'],
    ['/grok-chat', 'Chat with Grok'],
    ['/create-article', 'Create Article'],
    ['/admin/articles', 'Articles'],
    ['/admin/users', 'Users'],
    ['/admin/usage', 'Usage'],
    ['/agents-console', 'AI Agents Console'],
  ];
  for (const [path, heading] of adminScreens) {
    test(`admin screen ${path}`, async ({ page, login, admin }, testInfo) => {
      await login(page, admin);
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
      await expectNoSeriousViolations(page, testInfo, path);
    });
  }

  test('settings page and the notifications panel', async ({ page, login, owner }, testInfo) => {
    // Both are for users who can own agents; a guest's settings page is checked in settings.spec.ts.
    await login(page, owner);
    await page.goto('/settings');
    await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
    await expect(page.getByRole('textbox', { name: 'Alert email' })).toBeVisible();
    await expectNoSeriousViolations(page, testInfo, 'settings');

    await page.getByRole('button', { name: /^Notifications/ }).click();
    await expect(page.getByRole('dialog', { name: 'Notifications' }).getByText('No notifications yet')).toBeVisible();
    await expectNoSeriousViolations(page, testInfo, 'notifications panel');
  });

  test('toasts: a success and an error are readable (sonner’s own colours were under 4.5:1)', async ({ page, login, owner }, testInfo) => {
    await login(page, owner);
    await page.goto('/settings');
    await page.getByRole('textbox', { name: 'Alert email' }).fill('desk@example.com');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(toasts(page).getByText('Settings saved')).toBeVisible();
    await expectNoSeriousViolations(page, testInfo, 'success toast', '[data-sonner-toaster]');

    // The server refusing for a reason of its own is an error toast.
    await page.route('**/api/settings', (route) =>
      route.request().method() === 'PUT' ? route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: 'The database is not answering' }) }) : route.fallback(),
    );
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(toasts(page).getByText('Could not save your settings')).toBeVisible();
    await expectNoSeriousViolations(page, testInfo, 'error toast', '[data-sonner-toaster]');
  });

  test('insights page', async ({ page }, testInfo) => {
    await page.goto('/insights');
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expectNoSeriousViolations(page, testInfo, 'insights');
  });

  test('agent create wizard', async ({ page, login, admin }, testInfo) => {
    await login(page, admin);
    await page.goto('/agents-console');
    await page.getByRole('button', { name: 'Create Agent' }).click();
    const picker = page.getByRole('dialog', { name: 'Choose a Template' });
    await expect(picker).toBeVisible();
    await expectNoSeriousViolations(page, testInfo, 'template picker');
    await picker.getByRole('button', { name: 'Stock Market Scanner' }).click();
    await page.getByRole('dialog', { name: 'Name Your New Agent' }).getByRole('button', { name: 'Continue' }).click();
    const wizard = page.getByRole('dialog', { name: 'Configure Your Agent' });
    await expect(wizard).toBeVisible();
    await expectNoSeriousViolations(page, testInfo, 'wizard schedule');
    await wizard.getByRole('button', { name: 'Next' }).click();
    await expectNoSeriousViolations(page, testInfo, 'wizard parameters');
  });
});
