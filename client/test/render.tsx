import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { render, type RenderResult } from '@testing-library/react';
import type { ReactElement, ReactNode } from 'react';
import { MemoryRouter, useLocation } from 'react-router';
import { vi } from 'vitest';
import type { TUser } from '../../contracts/users.ts';
import { AuthContext, type AuthContextValue } from '../lib/auth-context.ts';
import { createQueryClient } from '../lib/query-client.ts';
import { RouterNavigation } from '../app/router-navigation.tsx';

export function makeUser(overrides: Partial<TUser> = {}): TUser {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    email: 'ada@example.com',
    name: 'Ada Lovelace',
    profilePicture: '',
    googleId: null,
    role: 'guest',
    createdAt: '2025-03-04T10:00:00.000Z',
    ...overrides,
  };
}

/** An auth context value: signed out and loaded unless told otherwise; the actions are mocks. */
export function makeAuth(overrides: Partial<AuthContextValue> = {}): AuthContextValue {
  const user = overrides.user ?? null;
  return {
    user,
    role: user?.role ?? 'guest',
    loading: false,
    provider: 'local',
    signInLocal: vi.fn(async () => user),
    signInWithPopup: vi.fn(async () => null),
    signInWith: vi.fn(async () => null),
    logout: vi.fn(async () => undefined),
    ...overrides,
  };
}

export const signedInAs = (role: TUser['role'], user: Partial<TUser> = {}) => makeAuth({ user: makeUser({ role, ...user }), role });

/** Shows the router's current path and query, so tests can assert navigation. */
export function LocationProbe() {
  const { pathname, search } = useLocation();
  return (
    <div hidden data-testid="location">
      {pathname + search}
    </div>
  );
}

export const currentLocation = (): string => document.querySelector('[data-testid="location"]')?.textContent ?? '';

type Options = {
  /** The initial URL. */
  path?: string;
  /** Provide an auth context value; leave out to render inside the real AuthProvider (or none). */
  auth?: AuthContextValue;
  queryClient?: QueryClient;
  /** Extra providers inside the router, around the screen (the real AuthProvider, as in the app). */
  wrapper?: (children: ReactNode) => ReactNode;
};

/** Renders with a real QueryClient (the app's defaults), a memory router at `path` (with the
 * navigation the shared screens use), an
 * optional auth context value and a LocationProbe. */
export function renderWithProviders(ui: ReactElement, { path = '/', auth, queryClient = createQueryClient(), wrapper }: Options = {}): RenderResult & { queryClient: QueryClient } {
  const routed = (
    <MemoryRouter initialEntries={[path]}>
      <RouterNavigation>
        {wrapper ? wrapper(ui) : ui}
        <LocationProbe />
      </RouterNavigation>
    </MemoryRouter>
  );
  const withAuth = auth ? <AuthContext.Provider value={auth}>{routed}</AuthContext.Provider> : routed;
  const result = render(<QueryClientProvider client={queryClient}>{withAuth}</QueryClientProvider>);
  return { ...result, queryClient };
}
