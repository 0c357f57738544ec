import { expect, headerItem, test } from './fixtures.ts';

// SPEC section 2: route table, guards, Access Denied, the 404 screen, the signed-in header.
const ADMIN_ROUTES = ['/chat-console', '/claude-chat', '/gemini-chat', '/grok-chat', '/agents-console', '/create-article'];
const ADMIN_NAV = ['Chat Console', 'Agents Console', 'Create Article'];

test.describe('access', () => {
  test('signed out, protected routes redirect to /', async ({ page }) => {
    for (const path of ['/dashboard', '/chat-console', '/agents-console']) {
      await page.goto(path);
      await expect(page, `${path} signed out`).toHaveURL(/\/$/);
      await expect(page.getByRole('heading', { level: 1, name: 'Automate Your Business Success' })).toBeVisible();
    }
  });

  test('an unknown path shows the 404 screen, with status 404', async ({ page }) => {
    for (const path of ['/this/page/does-not-exist', '/x.bak']) {
      const res = await page.goto(path);
      expect(res?.status(), path).toBe(404);
      await expect(page.getByRole('heading', { name: '404 Page Not Found' })).toBeVisible();
      await expect(page.getByText('Did you forget to add the page to the router?')).toBeVisible();
    }
    // A script the build does not have is not answered with the app's page.
    const asset = await page.request.get('/assets/no-such-chunk.js');
    expect(asset.status()).toBe(404);
    expect(asset.headers()['content-type']).not.toMatch(/html/);
  });

  test('a guest sees Access Denied on every admin route, with a way back', async ({ page, login, guest }) => {
    await login(page, guest);
    for (const path of ADMIN_ROUTES) {
      await page.goto(path);
      const main = page.getByRole('main');
      await expect(main.getByRole('heading', { name: 'Access Denied' }), path).toBeVisible();
      await expect(main, `${path} names the required role`).toContainText('admin');
      await expect(main, `${path} shows the current role`).toContainText('guest');
    }
    await page.getByRole('main').getByRole('link', { name: 'Back to Dashboard' })
      .or(page.getByRole('main').getByRole('button', { name: 'Back to Dashboard' }))
      .click();
    await expect(page).toHaveURL(/\/dashboard$/);
  });

  test('an admin passes every role check', async ({ page, login, admin }) => {
    await login(page, admin);
    for (const path of ADMIN_ROUTES) {
      await page.goto(path);
      await expect(page).toHaveURL(new RegExp(`${path}$`));
      await expect(page.getByRole('heading', { level: 1 }).first(), path).toBeVisible();
      await expect(page.getByRole('heading', { name: 'Access Denied' }), path).toHaveCount(0);
    }
  });

  test('signed-in header: Dashboard for a guest, no admin entries', async ({ page, login, guest }) => {
    await login(page, guest);
    await page.goto('/dashboard');
    await expect(headerItem(page, 'Dashboard')).toBeVisible();
    for (const name of ADMIN_NAV) await expect(headerItem(page, name), name).toHaveCount(0);
  });

  test('signed-in header: Dashboard, Chat Console, Agents Console and Create Article for an admin', async ({ page, login, admin }) => {
    await login(page, admin);
    await page.goto('/dashboard');
    await expect(headerItem(page, 'Dashboard')).toBeVisible();
    for (const name of ADMIN_NAV) await expect(headerItem(page, name), name).toBeVisible();

    const targets: Record<string, RegExp> = {
      'Chat Console': /\/chat-console$/,
      'Agents Console': /\/agents-console$/,
      'Create Article': /\/create-article$/,
      Dashboard: /\/dashboard$/,
    };
    for (const [name, url] of Object.entries(targets)) {
      await headerItem(page, name).click();
      await expect(page, `header ${name}`).toHaveURL(url);
    }
  });
});
