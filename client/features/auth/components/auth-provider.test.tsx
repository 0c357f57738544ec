import { QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { useAuth } from '../../../lib/auth-context.ts';
import { createQueryClient } from '../../../lib/query-client.ts';
import { stubFetch } from '../../../test/fetch-stub.ts';
import { makeUser } from '../../../test/render.tsx';
import { AppAuthProvider } from './app-auth-provider.tsx';
import { RouterNavigation } from '../../../app/router-navigation.tsx';
import { Header } from '../../../app/header.tsx';
import { notify } from '../../../lib/notify.ts';

// The provider and the popup module are real, with window.open (the browser) giving a stand-in popup.
const notifySuccess = vi.mocked(notify.success);
const notifyError = vi.mocked(notify.error);

beforeAll(() => {
  const config = document.createElement('script');
  config.type = 'application/json';
  config.id = 'app-config';
  config.textContent = JSON.stringify({ siteName: 'Test', contactEmail: 'a@example.com', authProvider: 'google' });
  document.head.append(config);
});

// Google's part of the tab is a lazy chunk; loaded before the tests so it mounts at once.
beforeAll(() => import('./popup-sign-in-host.tsx'));

function Probe() {
  const { user, loading, signInWithPopup } = useAuth();
  const { pathname } = useLocation();
  return (
    <div>
      <p>path:{pathname}</p>
      <p>{loading ? 'loading' : user ? `user:${user.email}` : 'signed out'}</p>
      <button type="button" onClick={() => void signInWithPopup()}>
        google
      </button>
    </div>
  );
}

/** The app's auth provider over the real session store at `path`, with the probe (and the
 * header, when asked). */
function renderAt(path: string, { header = false, queryClient = createQueryClient() } = {}) {
  return render(
    <QueryClientProvider client={queryClient}>
      <MemoryRouter initialEntries={[path]}>
        <RouterNavigation>
          <AppAuthProvider>
            {header && <Header />}
            <Routes>
              <Route path="*" element={<Probe />} />
            </Routes>
          </AppAuthProvider>
        </RouterNavigation>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

type StandInPopup = { closed: boolean; focus(): void; close(): void };

/** The popup the provider opens: its attempt id (from the start URL), and how its result page
 * reports, by postMessage to the opener and on the channel. */
function watchPopup() {
  const popup: StandInPopup = { closed: false, focus: () => {}, close: () => {} };
  const open = vi.spyOn(window, 'open').mockImplementation(() => popup as unknown as Window);
  const attempt = () => {
    const url = open.mock.lastCall?.[0];
    return url === undefined ? undefined : (new URL(String(url), window.location.origin).searchParams.get('attempt') ?? undefined);
  };
  const result = (ok: boolean, message?: string) => ({ type: 'auth:google', ok, attempt: attempt(), ...(message ? { message } : {}) });
  return {
    popup,
    open,
    postMessage: (ok: boolean, message?: string) =>
      window.dispatchEvent(new MessageEvent('message', { data: result(ok, message), origin: window.location.origin })),
    postOnChannel: (ok: boolean, message?: string) => {
      const sender = new BroadcastChannel('auth');
      sender.postMessage(result(ok, message));
      sender.close();
    },
  };
}

/** A stubbed session that turns signed in when `signIn()` is called (the callback set the cookie). */
function stubSession(name = 'Ada') {
  let signedIn = false;
  const { requests } = stubFetch({ 'GET /api/auth/me': () => Response.json({ user: signedIn ? makeUser({ name }) : null }) });
  return { signIn: () => (signedIn = true), meRequests: () => requests.filter((r) => r.url === '/api/auth/me').length };
}

const REFUSED = 'Google sign-in was refused: the Google account email address is not verified';

async function clickGoogle() {
  await screen.findByText('signed out');
  act(() => screen.getByRole('button', { name: 'google' }).click());
  await screen.findByText('loading');
}

describe('AuthProvider with Google sign-in: every order of arrival ends in one outcome', () => {
  beforeEach(() => {
    notifySuccess.mockReset();
    notifyError.mockReset();
    vi.restoreAllMocks();
  });

  it('the result first, by postMessage: signed in, with the SPEC toast', async () => {
    const session = stubSession();
    const popup = watchPopup();
    renderAt('/insights');
    await clickGoogle();
    await waitFor(() => expect(popup.open).toHaveBeenCalled());
    session.signIn();
    popup.postMessage(true);
    await screen.findByText('user:ada@example.com');
    expect(notifySuccess).toHaveBeenCalledExactlyOnceWith('Login successful', 'Welcome, Ada!');
    expect(screen.getByText('path:/insights')).toBeInTheDocument();
  });

  it('the result first, on both paths: one sign-in, one toast', async () => {
    const session = stubSession();
    const popup = watchPopup();
    renderAt('/');
    await clickGoogle();
    await waitFor(() => expect(popup.open).toHaveBeenCalled());
    const before = session.meRequests();
    session.signIn();
    popup.postMessage(true);
    popup.postOnChannel(true);
    await screen.findByText('user:ada@example.com');
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(notifySuccess).toHaveBeenCalledTimes(1);
    expect(session.meRequests() - before).toBe(1);
  });

  it('a refusal first: the Login failed toast with the reason', async () => {
    stubSession();
    const popup = watchPopup();
    renderAt('/');
    await clickGoogle();
    await waitFor(() => expect(popup.open).toHaveBeenCalled());
    popup.postOnChannel(false, REFUSED);
    await waitFor(() => expect(notifyError).toHaveBeenCalledExactlyOnceWith('Login failed', REFUSED));
    await screen.findByText('signed out');
  });

  it('the popup seen closed first, then a refusal on the channel: the toast with the reason', async () => {
    stubSession();
    const popup = watchPopup();
    renderAt('/');
    await clickGoogle();
    popup.popup.closed = true; // the opener link is cut: it looks closed while the person signs in
    await screen.findByText('signed out', undefined, { timeout: 2000 }); // the spinner ends
    expect(notifyError).not.toHaveBeenCalled();
    popup.postOnChannel(false, REFUSED);
    await waitFor(() => expect(notifyError).toHaveBeenCalledExactlyOnceWith('Login failed', REFUSED));
    expect(notifySuccess).not.toHaveBeenCalled();
  });

  it('the popup seen closed first, then success on the channel: signed in once, / goes to /dashboard', async () => {
    const session = stubSession();
    const popup = watchPopup();
    renderAt('/');
    await clickGoogle();
    popup.popup.closed = true;
    await screen.findByText('signed out', undefined, { timeout: 2000 });
    session.signIn();
    popup.postOnChannel(true);
    await screen.findByText('user:ada@example.com');
    await screen.findByText('path:/dashboard');
    expect(notifySuccess).toHaveBeenCalledExactlyOnceWith('Login successful', 'Welcome, Ada!');
  });

  it('the popup really closed: no toast, the visitor stays signed out', async () => {
    stubSession();
    const popup = watchPopup();
    renderAt('/');
    await clickGoogle();
    popup.popup.closed = true;
    await screen.findByText('signed out', undefined, { timeout: 2000 });
    expect(notifyError).not.toHaveBeenCalled();
    expect(notifySuccess).not.toHaveBeenCalled();
  });

  it("another tab's refusal is not shown here; its success signs this tab in", async () => {
    const session = stubSession();
    renderAt('/');
    await screen.findByText('signed out');
    const otherTab = new BroadcastChannel('auth');
    otherTab.postMessage({ type: 'auth:google', ok: false, attempt: 'another-tab-attempt-000', message: REFUSED });
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(notifyError).not.toHaveBeenCalled();
    session.signIn();
    otherTab.postMessage({ type: 'auth:google', ok: true, attempt: 'another-tab-attempt-000' });
    otherTab.close();
    await screen.findByText('user:ada@example.com');
    await screen.findByText('path:/dashboard');
  });

  it('a blocked popup: the toast says so', async () => {
    stubSession();
    vi.spyOn(window, 'open').mockReturnValue(null);
    renderAt('/');
    await screen.findByText('signed out');
    act(() => screen.getByRole('button', { name: 'google' }).click());
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith('Login failed', 'Sign-in popup was blocked. Allow popups for this site and try again.'));
    await screen.findByText('signed out');
  });

  /** Renders signed out at `path`, then the popup's result page reports success on the channel. */
  async function lateSignInAt(path: string) {
    let signedIn = false;
    stubFetch({ 'GET /api/auth/me': () => Response.json({ user: signedIn ? makeUser() : null }) });
    renderAt(path);
    await screen.findByText('signed out');
    signedIn = true;
    const popupSide = new BroadcastChannel('auth');
    popupSide.postMessage({ type: 'auth:google', ok: true });
    popupSide.close();
    await screen.findByText('user:ada@example.com');
  }

  it('finishes a sign-in that reports late on the channel, redirecting from / to /dashboard', async () => {
    await lateSignInAt('/');
    await screen.findByText('path:/dashboard');
    expect(notifySuccess).toHaveBeenCalledWith('Login successful', 'Welcome, Ada Lovelace!');
  });

  it('keeps the user on any other page after a late sign-in', async () => {
    await lateSignInAt('/insights');
    expect(screen.getByText('path:/insights')).toBeInTheDocument();
  });
});

describe('AuthProvider sign-out', () => {
  // The bell is a lazy chunk of the header; loaded before the test so it mounts at once.
  beforeAll(() => import('../../notifications/components/notification-bell.tsx'));

  /** The app's header and a guarded screen over the real session store, signed in as an admin
   * until POST /api/auth/logout. */
  async function renderSignedIn() {
    let signedIn = true;
    const stub = stubFetch({
      'GET /api/auth/me': () => Response.json({ user: signedIn ? makeUser({ role: 'admin', name: 'Ada' }) : null }),
      'POST /api/auth/logout': () => {
        signedIn = false;
        return new Response(null, { status: 204 });
      },
      'GET /api/notifications?limit=20': () =>
        signedIn ? Response.json({ notifications: [], unread: 2 }) : Response.json({ error: 'Unauthorized' }, { status: 401 }),
    });
    const queryClient = createQueryClient();
    renderAt('/dashboard', { header: true, queryClient });
    const banner = screen.getByRole('banner');
    await within(banner).findByRole('button', { name: 'Notifications, 2 unread' });
    return { banner, stub, queryClient };
  }

  it('changes every signed-in part of the header at once and calls no signed-in endpoint after', async () => {
    const { banner, stub, queryClient } = await renderSignedIn();
    expect(within(banner).getByRole('link', { name: 'Users' })).toBeInTheDocument();

    await userEvent.click(within(banner).getByRole('button', { name: 'Logout' }));
    await screen.findByText('path:/');
    expect(await within(banner).findByText('Login')).toBeInTheDocument();
    for (const name of ['Dashboard', 'Chat Console', 'Agents Console', 'Create Article', 'Users', 'Usage']) {
      expect(within(banner).queryByRole('link', { name })).not.toBeInTheDocument();
    }
    expect(within(banner).queryByRole('button', { name: /Notifications/ })).not.toBeInTheDocument();
    expect(within(banner).queryByRole('button', { name: 'Logout' })).not.toBeInTheDocument();
    // The small-screen menu now holds the visitor's section anchors, nothing signed in.
    await userEvent.click(within(banner).getByRole('button', { name: 'Menu' }));
    const menu = document.getElementById(within(banner).getByRole('button', { name: 'Menu' }).getAttribute('aria-controls')!)!;
    expect(within(menu).getAllByRole('link').map((link) => link.textContent)).toEqual(['Services', 'Insights', 'Contact']);
    expect(notifySuccess).toHaveBeenCalledWith('Logged out', 'You have been logged out successfully.');

    // Whatever re-renders now (the bell's poll, a refocus), nothing asks for the user's data.
    window.dispatchEvent(new Event('focus'));
    await act(async () => {});
    const signedOutAt = stub.requests.findIndex((r) => r.method === 'POST' && r.url === '/api/auth/logout');
    const after = stub.requests.slice(signedOutAt + 1).map((r) => `${r.method} ${r.url}`);
    expect(after.filter((r) => r !== 'GET /api/auth/me')).toEqual([]);
    // The previous user's answers are gone from the cache; the session's query stays observed.
    await waitFor(() => expect(queryClient.getQueryCache().findAll().map((query) => query.queryKey[0])).toEqual(['/api/auth/me']));
  });
});
