import { type Page } from '@playwright/test';
import { DEFAULT_FAKE_USER, startFakeOidcIssuer, type FakeOidcIssuer } from '../fakes/oidc-issuer.ts';
import {
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
import { startAppServer, type AppServer } from './support/app-server.ts';
import { ADMIN_EMAIL } from './support/constants.ts';

// Google sign-in in Chromium against the fake issuer, with the opener link kept (the issuer
// redirects at once) and cut the way Google cuts it (its sign-in page sends
// Cross-Origin-Opener-Policy: same-origin, so the popup looks closed to our tab while the person
// is still there, and the result reaches the tab only on the BroadcastChannel). SPEC section 8:
// 'Login failed' with the error message; section 4: 'Login successful' / 'Welcome, {name}!'.

const UNVERIFIED = 'Google sign-in was refused: the Google account email address is not verified';
const CANCELLED = 'Google sign-in was cancelled.';

let issuer: FakeOidcIssuer;
let app: AppServer;

test.beforeAll(async () => {
  test.setTimeout(90_000);
  issuer = await startFakeOidcIssuer({ clientId: 'e2e-client.apps.googleusercontent.com', clientSecret: 'e2e-client-secret' });
  app = await startAppServer({
    env: {
      AUTH_PROVIDER: 'google',
      GOOGLE_CLIENT_ID: issuer.clientId,
      GOOGLE_CLIENT_SECRET: issuer.clientSecret,
      OIDC_ISSUER: issuer.url,
      SIGN_IN_RATE_LIMIT: '10000',
    },
  });
});

test.afterAll(async () => {
  await app?.stop();
  await issuer?.close();
});

test.beforeEach(() => {
  issuer.setFault('none');
  issuer.setUser(DEFAULT_FAKE_USER);
  issuer.setSignInPage(null);
});

/** The landing page, hydrated and knowing nobody is signed in (the Login link then opens the popup). */
async function openLanding(page: Page): Promise<void> {
  const session = page.waitForResponse((res) => new URL(res.url()).pathname === '/api/auth/me');
  await page.goto(`${app.url}/`);
  await session;
  await expect(page.getByText('No articles published yet.')).toBeVisible();
}

/** Clicks the header's Login and returns the popup it opens. */
async function loginFromHeader(page: Page): Promise<Page> {
  const popup = page.waitForEvent('popup');
  await siteHeader(page).getByRole('link', { name: 'Login' }).click();
  return popup;
}

async function expectLoginFailed(page: Page, reason: string): Promise<void> {
  await expect(toasts(page).getByText('Login failed', { exact: true })).toBeVisible();
  await expect(toasts(page).getByText(reason, { exact: true })).toBeVisible();
  await expect(page).toHaveURL(`${app.url}/`);
  await expectSignedOutHeader(page);
}

const cutOpener = { cutsOpener: true, delaySeconds: 2 };

test.describe('Google sign-in in a popup', () => {
  test('signs in with the opener kept: toast, dashboard, signed-in header; the popup closes', async ({ page }) => {
    await openLanding(page);
    const popup = await loginFromHeader(page);
    await expect(toasts(page).getByText('Login successful', { exact: true })).toBeVisible();
    await expect(toasts(page).getByText(`Welcome, ${DEFAULT_FAKE_USER.name}!`, { exact: true })).toBeVisible();
    await expect(page).toHaveURL(`${app.url}/dashboard`);
    await expect(headerItem(page, 'Dashboard')).toBeVisible();
    await expect(siteHeader(page).getByRole('button', { name: 'Logout' })).toBeVisible();
    await expect.poll(() => popup.isClosed()).toBe(true);
  });

  test('signs in with the opener cut by Google: the wait ends while the popup is open, the result still signs in', async ({ page }) => {
    issuer.setSignInPage(cutOpener);
    const session = page.waitForResponse((res) => new URL(res.url()).pathname === '/api/auth/me');
    await page.goto(`${app.url}/login?next=%2Finsights`);
    await session;
    const button = page.getByRole('main').getByRole('button', { name: 'Sign in with Google' });
    const popup = page.waitForEvent('popup');
    await button.click();
    await popup;
    // The issuer's page cut the popup off: to this tab it looks closed, so the button is back
    // while the person is still at "Google".
    await expect(button).toBeVisible();
    await expect(toasts(page).getByText('Login successful', { exact: true })).toBeVisible();
    await expect(page).toHaveURL(`${app.url}/dashboard`);
    await expect(headerItem(page, 'Dashboard')).toBeVisible();
  });

  for (const [name, signInPage] of [
    ['the opener kept', null],
    ['the opener cut', cutOpener],
  ] as const) {
    test(`a refused sign-in (email not verified), ${name}: 'Login failed' with the reason`, async ({ page }) => {
      issuer.setSignInPage(signInPage);
      issuer.setFault('email-unverified');
      await openLanding(page);
      await loginFromHeader(page);
      await expectLoginFailed(page, UNVERIFIED);
    });

    test(`a denied consent, ${name}: 'Login failed' with the reason`, async ({ page }) => {
      issuer.setSignInPage(signInPage);
      issuer.setFault('access-denied');
      await openLanding(page);
      await loginFromHeader(page);
      await expectLoginFailed(page, CANCELLED);
    });
  }

  test('the person closes the popup: no toast, still signed out, and Login works again', async ({ page }) => {
    issuer.setSignInPage({ cutsOpener: false, delaySeconds: 60 });
    const session = page.waitForResponse((res) => new URL(res.url()).pathname === '/api/auth/me');
    await page.goto(`${app.url}/login`);
    await session;
    const button = page.getByRole('main').getByRole('button', { name: 'Sign in with Google' });
    const popupOpened = page.waitForEvent('popup');
    await button.click();
    const popup = await popupOpened;
    await expect(page.getByRole('main').getByRole('button', { name: 'Signing in…' })).toBeVisible();
    await popup.close();
    await expect(button).toBeEnabled();
    await expect(toasts(page).getByText('Login failed', { exact: true })).toHaveCount(0);
    await expect(toasts(page).getByText('Login successful', { exact: true })).toHaveCount(0);
    expect((await (await page.request.get(`${app.url}/api/auth/me`)).json()).user).toBeNull();

    // A second try signs in.
    issuer.setSignInPage(null);
    await button.click();
    await expect(toasts(page).getByText('Login successful', { exact: true })).toBeVisible();
    await expect(page).toHaveURL(`${app.url}/dashboard`);
  });

  test('sign-out after Google sign-in: the header is signed out at once and nothing signed in is called', async ({ page }) => {
    issuer.setUser({ ...DEFAULT_FAKE_USER, sub: '104938271640000000077', email: ADMIN_EMAIL, name: 'Ada Admin' });
    await openLanding(page);
    await loginFromHeader(page);
    await expect(page).toHaveURL(`${app.url}/dashboard`);
    await expect(headerItem(page, 'Users')).toBeVisible();
    await expect(siteHeader(page).getByRole('button', { name: /^Notifications/ })).toBeVisible();
    const calls = recordApiCalls(page);

    const after = await signOutAndWatch(page, calls);
    await expect(toasts(page).getByText('Logged out', { exact: true })).toBeVisible();
    await expect(page).toHaveURL(`${app.url}/`);
    await expectSignedOutHeader(page);
    await page.getByRole('link', { name: 'View All Insights' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Insights' })).toBeVisible();
    await expectSignedOutHeader(page);
    expectNoSignedInCalls(after());
  });
});
