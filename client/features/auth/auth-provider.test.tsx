import { QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { useAuth } from '../../lib/auth-context.ts';
import { createQueryClient } from '../../lib/query-client.ts';
import { stubFetch } from '../../test/fetch-stub.ts';
import { makeUser } from '../../test/render.tsx';
import { AppAuthProvider } from './app-auth-provider.tsx';
import { RouterNavigation } from '../../app/router-navigation.tsx';

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
