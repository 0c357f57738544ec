import type { Page } from '@playwright/test';
import { startOidcProvider, type OidcProviderHarness } from '../fakes/oidc-provider.ts';
import { expect, expectFitsViewport, expectSignedOutHeader, headerItem, PHONE_VIEWPORT, siteHeader, test, toasts } from './fixtures.ts';
import { freePort, startAppServer, type AppServer } from './support/app-server.ts';

// AUTH_PROVIDER=oidc in Chromium against a real OpenID Connect provider (oidc-provider, run by
// this test on 127.0.0.1): the sign-in page shows the operator's button, a person signs in on
// the provider's own login and consent pages in the popup, and the role follows the provider's
// groups claim at every sign-in.

const GROUP = 'automation-admins';
const PERSON = { email: 'grace@example.com', email_verified: true, name: 'Grace Hopper' };

let provider: OidcProviderHarness;
let app: AppServer;

test.beforeAll(async () => {
  test.setTimeout(90_000);
  const port = await freePort();
  provider = await startOidcProvider({ clientId: 'hub-e2e', clientSecret: 'hub-e2e-secret', redirectUris: [`http://127.0.0.1:${port}/api/auth/oidc/callback`] });
  app = await startAppServer({
    port,
    env: {
      ...provider.serverEnv(GROUP),
      SIGN_IN_RATE_LIMIT: '10000',
    },
  });
});

test.afterAll(async () => {
  await app?.stop();
  await provider?.close();
});

/** From /login: the configured button, then the provider's login and consent in the popup. */
async function signInAtProvider(page: Page, login: string): Promise<void> {
  const session = page.waitForResponse((res) => new URL(res.url()).pathname === '/api/auth/me');
  await page.goto(`${app.url}/login`);
  await session;
  const popupOpened = page.waitForEvent('popup');
  await page.getByRole('main').getByRole('button', { name: 'Sign in with Acme SSO' }).click();
  const popup = await popupOpened;
  await popup.getByPlaceholder('Enter any login').fill(login);
  await popup.getByPlaceholder('and password').fill('any password');
  await popup.getByRole('button', { name: 'Sign-in' }).click();
  await popup.getByRole('button', { name: 'Continue' }).click();
  await expect(toasts(page).getByText('Login successful', { exact: true })).toBeVisible();
  await expect(toasts(page).getByText(`Welcome, ${PERSON.name}!`, { exact: true })).toBeVisible();
  await expect(page).toHaveURL(`${app.url}/dashboard`);
  await expect.poll(() => popup.isClosed()).toBe(true);
}

test('signs in through the operator’s provider; removed from the admin group, the next sign-in demotes them and ends their admin session', async ({ page, openPage }) => {
  provider.setAccount('grace', { ...PERSON, groups: ['staff', GROUP] });
  await signInAtProvider(page, 'grace');
  await expect(headerItem(page, 'Dashboard')).toBeVisible();
  await expect(headerItem(page, 'Users')).toBeVisible();
  await expect(siteHeader(page).getByRole('button', { name: 'Logout' })).toBeVisible();

  // Taken out of the group at the provider; she signs in again on another device.
  provider.setAccount('grace', { ...PERSON, groups: ['staff'] });
  const otherPage = await openPage();
  await signInAtProvider(otherPage, 'grace');
  await expect(headerItem(otherPage, 'Dashboard')).toBeVisible();
  await expect(headerItem(otherPage, 'Users')).toHaveCount(0);

  // Her admin session on the first device ended with that sign-in.
  await page.reload();
  await expectSignedOutHeader(page);
});

test('the sign-in page with the operator’s button fits a phone', async ({ page }) => {
  await page.setViewportSize(PHONE_VIEWPORT);
  await page.goto(`${app.url}/login`);
  await expect(page.getByRole('main').getByRole('button', { name: 'Sign in with Acme SSO' })).toBeInViewport();
  await expectFitsViewport(page, 'sign-in with the operator’s provider, on a phone');
});
