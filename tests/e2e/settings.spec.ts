import { expect, siteHeader, test, toasts } from './fixtures.ts';
import { expectNoSeriousViolations } from './support/axe.ts';

// Beyond SPEC: the dashboard's Settings button opens the account settings: where agent alerts
// are emailed, and the user's time zone. They, and the bell, are for users who can own agents
// (admins, SPEC section 6); a guest has neither.

test.describe('settings', () => {
  test('a user who can own agents sets an alert email and a time zone from the dashboard, and they are kept', async ({ page, login, owner }) => {
    await login(page, owner);
    await page.goto('/dashboard');
    await page.getByRole('main').getByRole('link', { name: 'Settings' }).click();

    await expect(page).toHaveURL(/\/settings$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
    const email = page.getByRole('textbox', { name: 'Alert email' });
    const zone = page.getByRole('combobox', { name: 'Time zone' });
    // Nothing saved yet: the sign-in email is the placeholder, the browser's zone (UTC in the
    // Playwright config) is suggested.
    await expect(email).toHaveValue('');
    await expect(email).toHaveAttribute('placeholder', owner.email);
    await expect(zone).toHaveValue('UTC');

    await email.fill('Desk.Alerts@Example.com');
    await zone.selectOption('Europe/Paris');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(toasts(page).getByText('Settings saved')).toBeVisible();

    await page.reload();
    await expect(email).toHaveValue('desk.alerts@example.com');
    await expect(zone).toHaveValue('Europe/Paris');

    // Emptied, the alerts go back to the sign-in email.
    await email.fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(toasts(page).getByText('Settings saved').last()).toBeVisible();
    await page.reload();
    await expect(email).toHaveValue('');
    await expect(zone).toHaveValue('Europe/Paris');
  });

  test('an invalid email shows the field error and saves nothing', async ({ page, login, owner }) => {
    await login(page, owner);
    await page.goto('/settings');
    const email = page.getByRole('textbox', { name: 'Alert email' });
    await email.fill('not-an-email');
    await page.getByRole('button', { name: 'Save' }).click();

    await expect(page.getByText('Enter a valid email address')).toBeVisible();
    await expect(email).toHaveAttribute('aria-invalid', 'true');
    await expect(email).toBeFocused();
    await expect(toasts(page).getByText('Settings saved')).toHaveCount(0);

    await page.reload();
    await expect(email).toHaveValue('');
  });

  test('a guest, who cannot own agents, has no bell and no alert settings', async ({ page, login, guest, owner }, testInfo) => {
    await login(page, guest);
    const bellRequests: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/api/notifications')) bellRequests.push(request.url());
    });
    await page.goto('/dashboard');
    await page.getByRole('main').getByRole('link', { name: 'Settings' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
    await expect(page.getByText('Alert settings come with market agents, which need the admin role; you are signed in as guest.')).toBeVisible();
    await expect(page.getByRole('textbox', { name: 'Alert email' })).toHaveCount(0);
    await expect(page.getByRole('combobox', { name: 'Time zone' })).toHaveCount(0);
    await expect(siteHeader(page).getByRole('button', { name: 'Logout' })).toBeVisible();
    await expect(siteHeader(page).getByRole('button', { name: /^Notifications/ })).toHaveCount(0);
    await expectNoSeriousViolations(page, testInfo, 'settings (guest)');
    expect(bellRequests).toEqual([]);

    // The same screens for a user who can own agents: the bell and the form are there.
    await login(page, owner);
    await page.goto('/settings');
    await expect(page.getByRole('textbox', { name: 'Alert email' })).toBeVisible();
    await expect(siteHeader(page).getByRole('button', { name: /^Notifications/ })).toBeVisible();
  });

  test('signed out, /settings goes back to the landing page', async ({ page }) => {
    await page.goto('/settings');
    await expect(page).toHaveURL(/\/$/);
  });
});
