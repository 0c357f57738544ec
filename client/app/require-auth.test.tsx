import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes } from 'react-router';
import { describe, expect, it } from 'vitest';
import type { AuthContextValue } from '../lib/auth-context.ts';
import { currentLocation, makeAuth, renderWithProviders, signedInAs } from '../test/render.tsx';
import { RequireAuth } from './require-auth.tsx';

function renderGuarded(auth: AuthContextValue, path: string) {
  return renderWithProviders(
    <Routes>
      <Route path="/" element={<h1>Landing</h1>} />
      <Route element={<RequireAuth />}>
        <Route path="/dashboard" element={<h1>Dashboard</h1>} />
      </Route>
      <Route element={<RequireAuth role="admin" />}>
        <Route path="/chat-console" element={<h1>Chat</h1>} />
      </Route>
    </Routes>,
    { auth, path },
  );
}

describe('RequireAuth', () => {
  it('shows a spinner while the session is being determined', () => {
    renderGuarded(makeAuth({ loading: true }), '/dashboard');
    expect(screen.getByRole('status')).toHaveTextContent('Loading');
    expect(screen.queryByRole('heading')).not.toBeInTheDocument();
    expect(currentLocation()).toBe('/dashboard');
  });

  it('sends a signed-out visitor to /', () => {
    renderGuarded(makeAuth(), '/chat-console');
    expect(screen.getByRole('heading', { name: 'Landing' })).toBeInTheDocument();
    expect(currentLocation()).toBe('/');
  });

  it('lets any signed-in user see a signed-in page', () => {
    renderGuarded(signedInAs('guest'), '/dashboard');
    expect(screen.getByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
  });

  it('shows Access Denied to a guest on an admin page, with both roles and a way back', async () => {
    renderGuarded(signedInAs('guest'), '/chat-console');
    // The screen loads when it is shown (few ever see it): the spinner until then.
    expect(screen.getByRole('status')).toHaveTextContent('Loading');
    expect(await screen.findByRole('heading', { level: 1, name: 'Access Denied' })).toBeInTheDocument();
    expect(screen.getByText(/This page requires the/)).toHaveTextContent('This page requires the admin role.');
    expect(screen.getByText(/Your current role:/)).toHaveTextContent('Your current role: guest');
    expect(screen.queryByRole('heading', { name: 'Chat' })).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole('link', { name: 'Back to Dashboard' }));
    expect(currentLocation()).toBe('/dashboard');
    expect(screen.getByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
  });

  it('lets an admin through every role check', () => {
    renderGuarded(signedInAs('admin'), '/chat-console');
    expect(screen.getByRole('heading', { name: 'Chat' })).toBeInTheDocument();
  });
});
