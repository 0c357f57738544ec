import { QueryClientProvider } from '@tanstack/react-query';
import { screen, waitFor } from '@testing-library/react';
import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { RouterNavigation } from '../../../app/router-navigation.tsx';
import { createQueryClient } from '../../../lib/query-client.ts';
import { notify } from '../../../lib/notify.ts';
import { stubFetch } from '../../../test/fetch-stub.ts';
import { makeUser } from '../../../test/render.tsx';
import { AppAuthProvider } from './app-auth-provider.tsx';
import LoginPage from './login-page.tsx';

// AUTH_PROVIDER=oidc (issue 33): the sign-in page offers the operator's provider with the label
// they configured, and signs in through the same popup as Google's, at the provider's own routes.

beforeAll(() => {
  const config = document.createElement('script');
  config.type = 'application/json';
  config.id = 'app-config';
  config.textContent = JSON.stringify({ siteName: 'Test', contactEmail: 'a@example.com', authProvider: 'oidc', signInLabel: 'Sign in with Acme SSO' });
  document.head.append(config);
});
beforeAll(() => import('./popup-sign-in-host.tsx'));

function Where() {
  return <p>path:{useLocation().pathname}</p>;
}

function renderLogin() {
  return render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={['/login?next=%2Fagents-console']}>
        <RouterNavigation>
          <AppAuthProvider>
            <Routes>
              <Route path="/login" element={<LoginPage />} />
              <Route path="*" element={<Where />} />
            </Routes>
          </AppAuthProvider>
        </RouterNavigation>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

/** The popup the page opens, and its result page's report to this tab. */
function watchPopup() {
  const popup = { closed: false, focus: () => {}, close: () => {} };
  const open = vi.spyOn(window, 'open').mockImplementation(() => popup as unknown as Window);
  const startUrl = () => new URL(String(open.mock.lastCall?.[0]), window.location.origin);
  const report = (ok: boolean, message?: string) =>
    window.dispatchEvent(
      new MessageEvent('message', {
        data: { type: 'auth:google', ok, attempt: startUrl().searchParams.get('attempt'), ...(message ? { message } : {}) },
        origin: window.location.origin,
      }),
    );
  return { open, startUrl, report };
}

describe('sign-in with the operator’s OpenID Connect provider', () => {
  beforeEach(() => {
    vi.mocked(notify.success).mockReset();
    vi.mocked(notify.error).mockReset();
    vi.restoreAllMocks();
  });

  it('shows the configured button, opens the provider’s start route and goes on signed in', async () => {
    let signedIn = false;
    stubFetch({ 'GET /api/auth/me': () => Response.json({ user: signedIn ? makeUser({ name: 'Dana' }) : null }) });
    const popup = watchPopup();
    renderLogin();

    const button = await screen.findByRole('button', { name: 'Sign in with Acme SSO' });
    expect(screen.getByText("Use your organization's account to continue.")).toBeInTheDocument();
    expect(screen.queryByLabelText('Email')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Sign in with Google' })).not.toBeInTheDocument();
    await userEvent.click(button);

    await waitFor(() => expect(popup.open).toHaveBeenCalledOnce());
    expect(popup.startUrl().pathname).toBe('/api/auth/oidc/start');
    signedIn = true;
    popup.report(true);
    expect(await screen.findByText('path:/agents-console')).toBeInTheDocument();
    expect(notify.success).toHaveBeenCalledExactlyOnceWith('Login successful', 'Welcome, Dana!');
  });

  it('a refusal: Login failed with the provider’s reason, and the page stays', async () => {
    stubFetch({ 'GET /api/auth/me': () => Response.json({ user: null }) });
    const popup = watchPopup();
    renderLogin();
    await userEvent.click(await screen.findByRole('button', { name: 'Sign in with Acme SSO' }));
    await waitFor(() => expect(popup.open).toHaveBeenCalledOnce());
    popup.report(false, "SSO sign-in was refused: the account's email address is not verified");
    await waitFor(() =>
      expect(notify.error).toHaveBeenCalledExactlyOnceWith('Login failed', "SSO sign-in was refused: the account's email address is not verified"),
    );
    expect(await screen.findByRole('button', { name: 'Sign in with Acme SSO' })).toBeEnabled();
  });
});
