import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { jsonResponse, stubFetch } from '../../../test/fetch-stub.ts';
import { currentLocation, makeAuth, makeUser, renderWithProviders, signedInAs } from '../../../test/render.tsx';
import type { AuthContextValue } from '../../../lib/auth-context.ts';
import { AppAuthProvider } from './app-auth-provider.tsx';
import LoginPage from './login-page.tsx';
import { notify } from '../../../lib/notify.ts';


const routes = (
  <Routes>
    <Route path="/login" element={<LoginPage />} />
    <Route path="*" element={null} />
  </Routes>
);

/** With the real AuthProvider over a stubbed API, or with a given auth value. */
function renderLogin(path: string, auth?: AuthContextValue) {
  return renderWithProviders(routes, { path, ...(auth ? { auth } : { wrapper: (children) => <AppAuthProvider>{children}</AppAuthProvider> }) });
}

describe('LoginPage (local sign-in)', () => {
  it('says it is local sign-in for development and labels its fields', async () => {
    stubFetch({ 'GET /api/auth/me': { body: { user: null } } });
    renderLogin('/login');
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in' })).toBeInTheDocument();
    expect(screen.getByText('Local sign-in for development. Anyone with access to this server can sign in with any email.')).toBeInTheDocument();
    expect(screen.getByLabelText('Email')).toHaveAttribute('type', 'email');
    expect(screen.getByLabelText('Name')).toBeRequired();
    expect(screen.queryByRole('button', { name: 'Sign in with Google' })).not.toBeInTheDocument();
  });

  it('signs in with the email and name, then goes to ?next', async () => {
    const user = makeUser({ email: 'ada@example.com', name: 'Ada' });
    const { requests } = stubFetch({
      'GET /api/auth/me': { body: { user: null } },
      'POST /api/auth/local/login': () => jsonResponse({ user }),
    });
    renderLogin(`/login?next=${encodeURIComponent('/agents-console')}`);

    await userEvent.type(await screen.findByLabelText('Email'), 'ada@example.com');
    await userEvent.type(screen.getByLabelText('Name'), 'Ada');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));

    await vi.waitFor(() => expect(currentLocation()).toBe('/agents-console'));
    expect(requests.find((r) => r.method === 'POST')).toEqual({ method: 'POST', url: '/api/auth/local/login', body: { email: 'ada@example.com', name: 'Ada' } });
    expect(notify.success).toHaveBeenCalledWith('Login successful', 'Welcome, Ada!');
  });

  it('goes to /dashboard after signing in without a next page (or with / as next)', async () => {
    stubFetch({
      'GET /api/auth/me': { body: { user: null } },
      'POST /api/auth/local/login': () => jsonResponse({ user: makeUser() }),
    });
    renderLogin('/login?next=%2F');
    await userEvent.type(await screen.findByLabelText('Email'), 'ada@example.com');
    await userEvent.type(screen.getByLabelText('Name'), 'Ada');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await vi.waitFor(() => expect(currentLocation()).toBe('/dashboard'));
  });

  it.each(['/\\evil.example', '//evil.example', 'https://evil.example', '/%5Cevil.example'])(
    'goes to /dashboard, not to a foreign next (%s)',
    async (next) => {
      stubFetch({
        'GET /api/auth/me': { body: { user: null } },
        'POST /api/auth/local/login': () => jsonResponse({ user: makeUser() }),
      });
      renderLogin(`/login?next=${encodeURIComponent(next)}`);
      await userEvent.type(await screen.findByLabelText('Email'), 'ada@example.com');
      await userEvent.type(screen.getByLabelText('Name'), 'Ada');
      await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
      await vi.waitFor(() => expect(currentLocation()).toBe('/dashboard'));
    },
  );

  it('stays on the page when the sign-in is refused (the provider shows the toast)', async () => {
    stubFetch({
      'GET /api/auth/me': { body: { user: null } },
      'POST /api/auth/local/login': { status: 400, body: { error: 'Invalid request', details: [{ path: 'email', message: 'Enter a valid email address' }] } },
    });
    renderLogin('/login?next=%2Fdashboard');
    await userEvent.type(await screen.findByLabelText('Email'), 'ada@example.com');
    await userEvent.type(screen.getByLabelText('Name'), 'Ada');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await vi.waitFor(() => expect(notify.error).toHaveBeenCalledWith('Login failed', '400: Invalid request (email: Enter a valid email address)'));
    expect(currentLocation()).toBe('/login?next=%2Fdashboard');
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeEnabled();
  });

  it('sends someone already signed in to /dashboard', () => {
    renderLogin('/login?next=%2Fagents-console', signedInAs('guest'));
    expect(currentLocation()).toBe('/dashboard');
  });

  it('shows a spinner while the session is being determined', () => {
    renderLogin('/login', makeAuth({ loading: true }));
    expect(screen.getByRole('status')).toHaveTextContent('Loading');
  });
});

describe('LoginPage (google)', () => {
  it('offers Sign in with Google and goes on once signed in', async () => {
    const auth = makeAuth({ provider: 'google', signInWithPopup: vi.fn(async () => makeUser()) });
    renderLogin('/login?next=%2Fcreate-article', auth);
    expect(screen.queryByLabelText('Email')).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Sign in with Google' }));
    expect(auth.signInWithPopup).toHaveBeenCalledOnce();
    expect(currentLocation()).toBe('/create-article');
  });
});
