import { QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { useAuth } from '../../lib/auth-context.ts';
import { createQueryClient } from '../../lib/query-client.ts';
import { stubFetch } from '../../test/fetch-stub.ts';
import { makeUser } from '../../test/render.tsx';
import { AppAuthProvider } from './app-auth-provider.tsx';
import { RouterNavigation } from '../../app/router-navigation.tsx';
import { Header } from '../../app/header.tsx';

const { notifySuccess, notifyError, openGoogleSignIn } = vi.hoisted(() => ({
  notifySuccess: vi.fn(),
  notifyError: vi.fn(),
  openGoogleSignIn: vi.fn(),
}));
// The toast library and the popup are browser-facing edges; the provider's own logic is real.
vi.mock('../../lib/notify.ts', () => ({ notify: { success: notifySuccess, error: notifyError, info: vi.fn() } }));
vi.mock('./google-popup.ts', () => ({ openGoogleSignIn }));

beforeAll(() => {
  const config = document.createElement('script');
  config.type = 'application/json';
  config.id = 'app-config';
  config.textContent = JSON.stringify({ siteName: 'Test', contactEmail: 'a@example.com', authProvider: 'google' });
  document.head.append(config);
});

function Probe() {
  const { user, loading, signInWithGoogle } = useAuth();
  const { pathname } = useLocation();
  return (
    <div>
      <p>path:{pathname}</p>
      <p>{loading ? 'loading' : user ? `user:${user.email}` : 'signed out'}</p>
      <button type="button" onClick={() => void signInWithGoogle()}>
        google
      </button>
    </div>
  );
}

function renderAt(path: string) {
  return render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={[path]}>
        <RouterNavigation>
          <AppAuthProvider>
            <Routes>
              <Route path="*" element={<Probe />} />
            </Routes>
          </AppAuthProvider>
        </RouterNavigation>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('AuthProvider with Google sign-in', () => {
  beforeEach(() => {
    notifySuccess.mockReset();
    notifyError.mockReset();
    openGoogleSignIn.mockReset();
  });

  it('signs in when the popup reports, with the SPEC toast', async () => {
    let signedIn = false;
    stubFetch({ 'GET /api/auth/me': () => Response.json({ user: signedIn ? makeUser({ name: 'Ada' }) : null }) });
    openGoogleSignIn.mockImplementation(async () => {
      signedIn = true;
      return 'reported';
    });
    renderAt('/');
    await screen.findByText('signed out');
    act(() => screen.getByRole('button', { name: 'google' }).click());
    await screen.findByText('user:ada@example.com');
    expect(notifySuccess).toHaveBeenCalledWith('Login successful', 'Welcome, Ada!');
  });

  it('treats a popup that only looks closed as no result yet, not a failure', async () => {
    stubFetch({ 'GET /api/auth/me': { body: { user: null } } });
    openGoogleSignIn.mockResolvedValue('closed');
    renderAt('/');
    await screen.findByText('signed out');
    act(() => screen.getByRole('button', { name: 'google' }).click());
    await waitFor(() => expect(openGoogleSignIn).toHaveBeenCalled());
    await screen.findByText('signed out');
    expect(notifyError).not.toHaveBeenCalled();
  });

  it('shows the failure the popup reported', async () => {
    stubFetch({ 'GET /api/auth/me': { body: { user: null } } });
    openGoogleSignIn.mockRejectedValue(new Error('Google sign-in was refused: the token has expired'));
    renderAt('/');
    await screen.findByText('signed out');
    act(() => screen.getByRole('button', { name: 'google' }).click());
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith('Login failed', 'Google sign-in was refused: the token has expired'));
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
  beforeAll(() => import('../../components/notification-bell.tsx'));

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
    render(
      <QueryClientProvider client={queryClient}>
        <MemoryRouter initialEntries={['/dashboard']}>
          <RouterNavigation>
            <AppAuthProvider>
              <Header />
              <Routes>
                <Route path="*" element={<Probe />} />
              </Routes>
            </AppAuthProvider>
          </RouterNavigation>
        </MemoryRouter>
      </QueryClientProvider>,
    );
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
