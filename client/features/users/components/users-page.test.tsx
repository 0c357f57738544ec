import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TUser } from '../../../../contracts/users.ts';
import { jsonResponse, stubFetch, type StubRequest } from '../../../test/fetch-stub.ts';
import { makeUser, renderWithProviders } from '../../../test/render.tsx';
import UsersPage from './users-page.tsx';
import { notify } from '../../../lib/notify.ts';
import { setSettingsTimeZone } from '../../../lib/time-zone.ts';


const ADA = makeUser({ id: '00000000-0000-4000-8000-00000000000a', name: 'Ada', email: 'ada@example.com', role: 'admin' });
const GRACE = makeUser({ id: '00000000-0000-4000-8000-00000000000b', name: 'Grace', email: 'grace@example.com', role: 'guest' });

beforeEach(() => vi.clearAllMocks());

// The config the server writes into the page, with a CHAT_POLICY that differs from the defaults
// (GPT opened to guests, DeepSeek closed to them).
beforeAll(() => {
  const config = document.createElement('script');
  config.type = 'application/json';
  config.id = 'app-config';
  config.textContent = JSON.stringify({
    siteName: 'Test',
    contactEmail: 'a@example.com',
    authProvider: 'local',
    chatPolicy: { openai: 'signedIn', anthropic: 'admin', gemini: 'admin', grok: 'admin', deepseek: 'admin', llama: 'signedIn' },
  });
  document.head.append(config);
});

/** A small fake of the users API: PATCH changes the stored role unless `refuse` says otherwise. */
function stubUsersApi(refuse?: (request: StubRequest) => Response | undefined) {
  let users: TUser[] = [ADA, GRACE];
  return stubFetch({
    'GET /api/users': () => jsonResponse(users),
    'GET /api/auth/me': () => jsonResponse({ user: users[0] }),
    [`PATCH /api/users/${ADA.id}`]: (request) => refuse?.(request) ?? patch(ADA.id, request),
    [`PATCH /api/users/${GRACE.id}`]: (request) => refuse?.(request) ?? patch(GRACE.id, request),
  });
  function patch(id: string, request: StubRequest) {
    users = users.map((u) => (u.id === id ? { ...u, role: (request.body as { role: TUser['role'] }).role } : u));
    return jsonResponse(users.find((u) => u.id === id));
  }
}

describe('UsersPage', () => {
  it('lists the users with their email, role and creation date', async () => {
    // Dates are read in a named zone, never the machine's (docs/decisions/0066).
    setSettingsTimeZone('Asia/Tokyo');
    stubUsersApi();
    renderWithProviders(<UsersPage />, { path: '/admin/users' });
    expect(screen.getByRole('heading', { level: 1, name: 'Users' })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Loading users');

    const table = await screen.findByRole('table', { name: 'Users and their roles' });
    expect(within(table).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Name', 'Email', 'Role', 'Created']);
    const grace = within(table).getByRole('row', { name: /Grace/ });
    expect(grace).toHaveTextContent('grace@example.com');
    expect(grace).toHaveTextContent('Mar 4, 2025'); // SPEC's 'MMM d, yyyy', as every date
    expect(within(grace).getByRole('combobox', { name: 'Role for Grace' })).toHaveValue('guest');
    expect(screen.getByRole('combobox', { name: 'Role for Ada' })).toHaveValue('admin');
  });

  it("says what each role may do, with the chats open to guests taken from the server's policy", () => {
    stubUsersApi();
    renderWithProviders(<UsersPage />, { path: '/admin/users' });
    expect(screen.getByText(/^Everyone who has signed in\./)).toHaveTextContent(
      'Everyone who has signed in. Administrators can use every AI chat and the agents and publish articles; guests can use the GPT and Llama chats and see the dashboard.',
    );
  });

  it('changes a role with PATCH, confirms it and shows the refreshed list', async () => {
    const { requests } = stubUsersApi();
    renderWithProviders(<UsersPage />, { path: '/admin/users' });

    await userEvent.selectOptions(await screen.findByRole('combobox', { name: 'Role for Grace' }), 'admin');

    await vi.waitFor(() => expect(notify.success).toHaveBeenCalledWith('Role updated', 'Grace is now admin.'));
    expect(requests).toContainEqual({ method: 'PATCH', url: `/api/users/${GRACE.id}`, body: { role: 'admin' } });
    await vi.waitFor(() => expect(requests.filter((r) => r.url === '/api/users')).toHaveLength(2));
    expect(screen.getByRole('combobox', { name: 'Role for Grace' })).toHaveValue('admin');
  });

  it("shows the server's reason when it refuses (the last admin) and keeps the role", async () => {
    stubUsersApi((request) =>
      (request.body as { role: string }).role === 'guest'
        ? jsonResponse({ error: 'Conflict', message: 'Cannot remove the last admin' }, 409)
        : undefined,
    );
    renderWithProviders(<UsersPage />, { path: '/admin/users' });

    await userEvent.selectOptions(await screen.findByRole('combobox', { name: 'Role for Ada' }), 'guest');

    await vi.waitFor(() => expect(notify.error).toHaveBeenCalledWith("Could not change Ada's role", 'Cannot remove the last admin'));
    expect(notify.success).not.toHaveBeenCalled();
    await vi.waitFor(() => expect(screen.getByRole('combobox', { name: 'Role for Ada' })).toHaveValue('admin'));
  });

  it('offers a retry when the list cannot be loaded', async () => {
    stubFetch({ 'GET /api/users': { status: 500, body: { error: 'Internal Server Error' } } });
    renderWithProviders(<UsersPage />, { path: '/admin/users' });
    expect(await screen.findByRole('alert')).toHaveTextContent('500: Internal Server Error');
    stubUsersApi();
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('table')).toBeInTheDocument();
  });
});
