import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes } from 'react-router';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { primeAppConfig } from '../../../lib/app-config.ts';
import { notify } from '../../../lib/notify.ts';
import { jsonResponse, stubFetch } from '../../../test/fetch-stub.ts';
import { currentLocation, makeUser, renderWithProviders } from '../../../test/render.tsx';
import { AppAuthProvider } from './app-auth-provider.tsx';
import LoginPage from './login-page.tsx';

// The browser's WebAuthn call (a package, not ours): what the authenticator would answer.
const browser = vi.hoisted(() => ({ startAuthentication: vi.fn() }));
vi.mock('@simplewebauthn/browser', () => browser);

const ASSERTION = { id: 'cred', rawId: 'cred', type: 'public-key', response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA' }, clientExtensionResults: {} };

// Production without a provider: passkeys only (docs/decisions/0092).
beforeAll(() => primeAppConfig({ siteName: 'Test', contactEmail: 'a@example.com', authProvider: 'local', localSignIn: false, passkeys: true }, '2026'));
beforeEach(() => vi.clearAllMocks());

function renderLogin() {
  return renderWithProviders(
    <Routes>
      <Route path="/login" element={<LoginPage />} />
      <Route path="*" element={null} />
    </Routes>,
    { path: '/login', wrapper: (children) => <AppAuthProvider>{children}</AppAuthProvider> },
  );
}

describe('LoginPage with passkeys only', () => {
  it('offers "Sign in with a passkey" and no development sign-in', async () => {
    stubFetch({ 'GET /api/auth/me': { body: { user: null } } });
    renderLogin();
    expect(await screen.findByRole('button', { name: 'Sign in with a passkey' })).toBeEnabled();
    expect(screen.getByText('Use the passkey you created from your invite.')).toBeInTheDocument();
    expect(screen.queryByLabelText('Email')).not.toBeInTheDocument();
    expect(screen.queryByText(/Local sign-in for development/)).not.toBeInTheDocument();
  });

  it('signs in with the passkey the browser picks, then goes to the dashboard with SPEC’s toast', async () => {
    const options = { challenge: 'abc', rpId: 'localhost' };
    browser.startAuthentication.mockResolvedValue(ASSERTION);
    const { requests } = stubFetch({
      'GET /api/auth/me': { body: { user: null } },
      'POST /api/auth/passkey/options': () => jsonResponse(options),
      'POST /api/auth/passkey/verify': () => jsonResponse({ user: makeUser({ name: 'Pat' }) }),
    });
    renderLogin();
    await userEvent.click(await screen.findByRole('button', { name: 'Sign in with a passkey' }));
    await vi.waitFor(() => expect(currentLocation()).toBe('/dashboard'));
    expect(browser.startAuthentication).toHaveBeenCalledWith({ optionsJSON: options });
    expect(requests.find((r) => r.url === '/api/auth/passkey/verify')?.body).toEqual({ credential: ASSERTION });
    expect(notify.success).toHaveBeenCalledWith('Login successful', 'Welcome, Pat!');
  });

  it("says 'Login failed' with the server's reason for a removed passkey, and stays", async () => {
    browser.startAuthentication.mockResolvedValue(ASSERTION);
    stubFetch({
      'GET /api/auth/me': { body: { user: null } },
      'POST /api/auth/passkey/options': () => jsonResponse({ challenge: 'abc' }),
      'POST /api/auth/passkey/verify': () => jsonResponse({ error: 'Unauthorized', message: 'This passkey is not registered here (it may have been removed): sign in with another one' }, 401),
    });
    renderLogin();
    await userEvent.click(await screen.findByRole('button', { name: 'Sign in with a passkey' }));
    await vi.waitFor(() => expect(notify.error).toHaveBeenCalledWith('Login failed', 'This passkey is not registered here (it may have been removed): sign in with another one'));
    expect(currentLocation()).toBe('/login');
    expect(screen.getByRole('button', { name: 'Sign in with a passkey' })).toBeEnabled();
  });

  it('says so when the person cancels the browser’s prompt', async () => {
    browser.startAuthentication.mockRejectedValue(Object.assign(new Error('The operation either timed out or was not allowed.'), { name: 'NotAllowedError' }));
    stubFetch({ 'GET /api/auth/me': { body: { user: null } }, 'POST /api/auth/passkey/options': () => jsonResponse({ challenge: 'abc' }) });
    renderLogin();
    await userEvent.click(await screen.findByRole('button', { name: 'Sign in with a passkey' }));
    await vi.waitFor(() => expect(notify.error).toHaveBeenCalledWith('Login failed', 'The passkey request was cancelled or timed out.'));
  });
});
