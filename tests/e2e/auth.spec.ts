import { type Page } from '@playwright/test';
import {
  type Credentials,
  expect,
  expectNoSignedInCalls,
  expectSignedOutHeader,
  headerItem,
  recordApiCalls,
  signOutAndWatch,
  siteHeader,
  test,
  toasts,
} from './fixtures.ts';

// SPEC section 2 (route table, header) and section 8 (Auth toasts); DESIGN section 4 (local
// sign-in: a page asking for an email and a name).

async function signInThroughLoginPage(page: Page, who: Credentials, { open = true } = {}): Promise<void> {
  if (open) await page.goto('/login');
  const main = page.getByRole('main');
  await main.getByLabel(/email/i).fill(who.email);
  await main.getByLabel(/name/i).fill(who.name);
  await main.getByRole('button', { name: /sign in|log in|login|continue/i }).click();
}

/** The header's sign-in control (a button or a link). */
function headerLogin(page: Page) {
  const header = siteHeader(page);
  const name = /sign in|log in|login/i;
  return header.getByRole('button', { name }).or(header.getByRole('link', { name }));
}

async function me(page: Page): Promise<{ email: string; role: string } | null> {
  const res = await page.request.get('/api/auth/me');
  expect(res.ok()).toBe(true);
  return ((await res.json()) as { user: { email: string; role: string } | null }).user;
}

test.describe('local sign-in and sign-out', () => {
  test('the /login page says it is local sign-in for development', async ({ page }) => {
    await page.goto('/login');
    await expect(page.getByRole('main')).toContainText(/local/i);
    await expect(page.getByRole('main')).toContainText(/development/i);
  });

  test('an admin signs in through /login: toast, then the dashboard', async ({ page, admin }) => {
    await signInThroughLoginPage(page, admin);
    await expect(toasts(page).getByText('Login successful', { exact: true })).toBeVisible();
    await expect(toasts(page).getByText(`Welcome, ${admin.name}!`, { exact: true })).toBeVisible();
    await expect(page).toHaveURL(/\/dashboard$/);
    expect(await me(page)).toMatchObject({ email: admin.email, role: 'admin' });
  });

  test('a guest signs in through /login: toast, then the dashboard', async ({ page, guest }) => {
    await signInThroughLoginPage(page, guest);
    await expect(toasts(page).getByText('Login successful', { exact: true })).toBeVisible();
    await expect(toasts(page).getByText(`Welcome, ${guest.name}!`, { exact: true })).toBeVisible();
    await expect(page).toHaveURL(/\/dashboard$/);
    expect(await me(page)).toMatchObject({ email: guest.email, role: 'guest' });
  });

  test('the signed-out header offers a sign-in control', async ({ page }) => {
    await page.goto('/');
    await expect(siteHeader(page)).toBeVisible();
    await expect(headerLogin(page)).toBeVisible();
  });

  test('signing in from the header on / lands on the dashboard', async ({ page, guest }) => {
    await page.goto('/');
    await headerLogin(page).click();
    await expect(page).toHaveURL(/\/login(\?|$)/);
    await signInThroughLoginPage(page, guest, { open: false });
    await expect(toasts(page).getByText('Login successful', { exact: true })).toBeVisible();
    await expect(page).toHaveURL(/\/dashboard$/);
  });

  test('signing in from the header on another page keeps the user on that page', async ({ page, guest }) => {
    await page.goto('/some/other-page');
    await expect(page.getByRole('heading', { name: '404 Page Not Found' })).toBeVisible();
    await headerLogin(page).click();
    await expect(page).toHaveURL(/\/login(\?|$)/);
    await signInThroughLoginPage(page, guest, { open: false });
    await expect(toasts(page).getByText('Login successful', { exact: true })).toBeVisible();
    await expect(page).toHaveURL(/\/some\/other-page$/);
    expect(await me(page)).toMatchObject({ email: guest.email, role: 'guest' });
  });

  for (const next of ['/\\evil.example', '/\t/evil.example', '//evil.example']) {
    test(`a foreign next (${JSON.stringify(next)}) after sign-in lands on the dashboard, with no page error`, async ({ page, guest }) => {
      await page.goto(`/login?next=${encodeURIComponent(next)}`);
      await signInThroughLoginPage(page, guest, { open: false });
      await expect(toasts(page).getByText('Login successful', { exact: true })).toBeVisible();
      await expect(page).toHaveURL(/\/dashboard$/);
      await expect(page.getByRole('heading', { level: 1, name: `Welcome, ${guest.name}!` })).toBeVisible();
      // The fixture fails the test on any uncaught page error (the router threw on `/\evil.example`).
    });
  }

  test('sign-out returns to / with the "Logged out" toast, a signed-out header, and ends the session', async ({ page, login, owner }) => {
    // An agent owner, so the header has the bell too until sign-out.
    await login(page, owner);
    await page.goto('/dashboard');
    await expect(headerItem(page, 'Dashboard')).toBeVisible();
    await expect(siteHeader(page).getByRole('button', { name: /^Notifications/ })).toBeVisible();
    const calls = recordApiCalls(page);

    const after = await signOutAndWatch(page, calls);
    await expect(toasts(page).getByText('Logged out', { exact: true })).toBeVisible();
    await expect(toasts(page).getByText('You have been logged out successfully.', { exact: true })).toBeVisible();
    await expect(page).toHaveURL(/\/$/);
    await expectSignedOutHeader(page);
    expect(await me(page)).toBeNull();

    // Moving on in the app re-renders the header: still nothing asks for the user's data.
    const articles = page.waitForResponse((res) => new URL(res.url()).pathname === '/api/articles');
    await page.getByRole('link', { name: 'View All Insights' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Insights' })).toBeVisible();
    await articles;
    await expectSignedOutHeader(page);
    expectNoSignedInCalls(after());

    await page.goto('/dashboard');
    await expect(page).toHaveURL(/\/$/);
  });

  test('an admin signing out on a phone: the header and its menu lose every signed-in item at once', async ({ page, login, admin }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await login(page, admin);
    await page.goto('/dashboard');
    const header = siteHeader(page);
    const menuButton = header.getByRole('button', { name: 'Menu' });
    await menuButton.click();
    const menu = header.getByRole('navigation', { name: 'Main' });
    await expect(menu.getByRole('link', { name: 'Users', exact: true })).toBeVisible();
    await menuButton.click();
    await expect(menu.getByRole('link', { name: 'Users', exact: true })).toBeHidden();
    const calls = recordApiCalls(page);

    const after = await signOutAndWatch(page, calls);
    await expect(page).toHaveURL(/\/$/);
    await expectSignedOutHeader(page);
    await menuButton.click();
    await expect(menu.getByRole('link')).toHaveText(['Services', 'Insights', 'Contact']);
    await menu.getByRole('link', { name: 'Contact' }).click();
    await expect(menuButton).toHaveAttribute('aria-expanded', 'false');
    expectNoSignedInCalls(after());
  });
});
