import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import axe from 'axe-core';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { TAccessToken, TCreatedAccessToken } from '../../../../contracts/assistant-tools.ts';
import { notify } from '../../../lib/notify.ts';
import { jsonResponse, stubFetch, type StubRequest } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import { AccessTokensSection } from './access-tokens-section.tsx';

const DAY_MS = 24 * 60 * 60 * 1000;
const iso = (offsetDays: number) => new Date(Date.now() + offsetDays * DAY_MS).toISOString();
const DESKTOP: TAccessToken = { id: '00000000-0000-4000-8000-0000000000a1', name: 'Claude Desktop', scope: 'read', createdAt: iso(-3), expiresAt: iso(27), lastUsedAt: iso(-1), prefix: 'Xy12Ab34' };
const OLD: TAccessToken = { id: '00000000-0000-4000-8000-0000000000a2', name: 'Old laptop', scope: 'propose', createdAt: iso(-40), expiresAt: iso(-10), lastUsedAt: null, prefix: 'Qq98Zz76' };
const SECRET = `agt_${'S'.repeat(43)}`;

/** A small fake of the tokens API: POST adds a token (its secret in the answer only), DELETE removes one. */
function stubTokensApi(initial: TAccessToken[], post?: (request: StubRequest) => Response | undefined) {
  let tokens = [...initial];
  return stubFetch({}, (request) => {
    if (request.method === 'GET' && request.url === '/api/settings/access-tokens') return jsonResponse(tokens);
    if (request.method === 'POST' && request.url === '/api/settings/access-tokens') {
      const answer = post?.(request);
      if (answer) return answer;
      const body = request.body as { name: string; scope: TAccessToken['scope']; expiresInDays: number };
      const created: TCreatedAccessToken = { id: '00000000-0000-4000-8000-0000000000a9', name: body.name, scope: body.scope, createdAt: iso(0), expiresAt: iso(body.expiresInDays), lastUsedAt: null, prefix: 'SSSSSSSS', token: SECRET };
      const { token: _secret, ...listed } = created;
      tokens = [listed, ...tokens];
      return jsonResponse(created, 201);
    }
    const revoked = /^\/api\/settings\/access-tokens\/(.+)$/.exec(request.url)?.[1];
    if (request.method === 'DELETE' && revoked) {
      tokens = tokens.filter((t) => t.id !== revoked);
      return new Response(null, { status: 204 });
    }
    return undefined;
  });
}

const ADMIN = signedInAs('admin');
const list = () => screen.findByRole('list', { name: 'Your access tokens' });
const form = () => screen.getByRole('form', { name: 'Create an access token' });

beforeEach(() => vi.clearAllMocks());

describe('AccessTokensSection', () => {
  it('lists each token with its scope, dates and last use, never a secret; an expired one says so', async () => {
    stubTokensApi([DESKTOP, OLD]);
    renderWithProviders(<AccessTokensSection />, { path: '/settings', auth: ADMIN });
    const [desktop, old] = within(await list()).getAllByRole('listitem');
    expect(desktop).toHaveTextContent('Claude Desktop');
    expect(desktop).toHaveTextContent('Read only');
    expect(desktop).toHaveTextContent('agt_Xy12Ab34…');
    expect(desktop).toHaveTextContent(/Created \w{3} \d+, \d{4} · Expires \w{3} \d+, \d{4} · Last used \w{3} \d+, \d{4} \d\d:\d\d/);
    expect(desktop).not.toHaveTextContent('Expired');
    expect(old).toHaveTextContent('Read + propose');
    expect(within(old!).getByText('Expired', { selector: 'span' })).toBeInTheDocument();
    expect(old).toHaveTextContent(/Created .* · Expired \w{3} \d+, \d{4} · Never used/);
    expect(screen.getByText(/reach your agents’ tools at/)).toHaveTextContent(`${window.location.origin}/mcp`);
    expect(screen.queryByText(/your tokens reach no tools/)).not.toBeInTheDocument();
  });

  it('creates a token with its name, scope and expiry, and shows its secret once, to copy', async () => {
    const writeText = vi.fn(async () => {});
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    const { requests } = stubTokensApi([]);
    renderWithProviders(<AccessTokensSection />, { path: '/settings', auth: ADMIN });
    expect(await screen.findByText('No access tokens yet.')).toBeInTheDocument();

    await userEvent.type(within(form()).getByRole('textbox', { name: 'Name' }), 'Cursor');
    expect(within(form()).getByRole('radio', { name: /^Read only/ })).toBeChecked();
    await userEvent.click(within(form()).getByRole('radio', { name: /^Read \+ propose/ }));
    expect(within(form()).getByRole('combobox', { name: 'Expires after' })).toHaveValue('30');
    await userEvent.selectOptions(within(form()).getByRole('combobox', { name: 'Expires after' }), '90 days');
    await userEvent.click(within(form()).getByRole('button', { name: 'Create token' }));

    expect(await screen.findByLabelText('New access token')).toHaveTextContent(SECRET);
    expect(requests).toContainEqual({ method: 'POST', url: '/api/settings/access-tokens', body: { name: 'Cursor', scope: 'propose', expiresInDays: 90 } });
    const shown = screen.getByRole('alert');
    expect(shown).toHaveTextContent('Copy it now: it will not be shown again.');
    await userEvent.click(within(shown).getByRole('button', { name: 'Copy' }));
    expect(writeText).toHaveBeenCalledWith(SECRET);
    await vi.waitFor(() => expect(notify.success).toHaveBeenCalledWith('Access token copied'));

    // The list has it (refetched), without its secret; the form is empty again.
    expect(await within(await list()).findByText(/Cursor/)).toBeInTheDocument();
    expect(within(await list()).getByRole('listitem')).not.toHaveTextContent(SECRET);
    expect(within(form()).getByRole('textbox', { name: 'Name' })).toHaveValue('');
    await userEvent.click(within(shown).getByRole('button', { name: 'Done' }));
    expect(screen.queryByText(SECRET)).not.toBeInTheDocument();
    expect(document.body).not.toHaveTextContent(SECRET);
    vi.unstubAllGlobals();
  });

  it('shows the server’s refusal under its field, and a refusal of another kind as a toast', async () => {
    let attempt = 0;
    stubTokensApi([], () =>
      ++attempt === 1
        ? jsonResponse({ error: 'Invalid request', details: [{ path: 'name', message: 'Name the token' }] }, 400)
        : jsonResponse({ error: 'Conflict', message: 'You have 20 access tokens, the most one account may hold; revoke one first.' }, 409),
    );
    renderWithProviders(<AccessTokensSection />, { path: '/settings', auth: ADMIN });
    await screen.findByText('No access tokens yet.');
    await userEvent.click(within(form()).getByRole('button', { name: 'Create token' }));
    const name = within(form()).getByRole('textbox', { name: 'Name' });
    await vi.waitFor(() => expect(name).toHaveAttribute('aria-invalid', 'true'));
    expect(name).toHaveAccessibleDescription(/Name the token/);

    await userEvent.type(name, 'One more');
    await userEvent.click(within(form()).getByRole('button', { name: 'Create token' }));
    await vi.waitFor(() => expect(notify.error).toHaveBeenCalledWith('Could not create the access token', 'You have 20 access tokens, the most one account may hold; revoke one first.'));
    expect(screen.queryByLabelText('New access token')).not.toBeInTheDocument();
  });

  it('revokes only after asking, from the keyboard too: Keep it changes nothing, Revoke token removes it', async () => {
    const { requests } = stubTokensApi([DESKTOP, OLD]);
    renderWithProviders(<AccessTokensSection />, { path: '/settings', auth: ADMIN });
    await list();
    const revoke = screen.getByRole('button', { name: 'Revoke Claude Desktop' });
    revoke.focus();
    await userEvent.keyboard('{Enter}');
    const dialog = await screen.findByRole('dialog', { name: 'Revoke Claude Desktop?' });
    expect(dialog).toHaveAccessibleDescription(/Clients using it are refused from their next request/);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Keep it' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(revoke).toHaveFocus();
    expect(requests.filter((r) => r.method === 'DELETE')).toEqual([]);

    await userEvent.keyboard('{Enter}');
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Revoke token' }));
    await vi.waitFor(() => expect(screen.queryByRole('button', { name: 'Revoke Claude Desktop' })).not.toBeInTheDocument());
    expect(requests).toContainEqual({ method: 'DELETE', url: `/api/settings/access-tokens/${DESKTOP.id}`, body: undefined });
    expect(notify.success).toHaveBeenCalledWith('Access token revoked', 'Claude Desktop');
    expect(within(await list()).getAllByRole('listitem')).toHaveLength(1);
  });

  it('tells a user who is not an admin that their tokens reach no tools', async () => {
    stubTokensApi([]);
    renderWithProviders(<AccessTokensSection />, { path: '/settings', auth: signedInAs('guest') });
    expect(await screen.findByText('The agent tools need the admin role: while you are signed in as guest, your tokens reach no tools.')).toBeInTheDocument();
    expect(within(form()).getByRole('button', { name: 'Create token' })).toBeEnabled();
  });

  it('has no serious accessibility violations, with tokens, a new secret and the revoke dialog', async () => {
    stubTokensApi([DESKTOP, OLD]);
    const { container } = renderWithProviders(<AccessTokensSection />, { path: '/settings', auth: ADMIN });
    await list();
    const serious = async (root: Element) =>
      (await axe.run(root, { rules: { 'color-contrast': { enabled: false } } })).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
    expect(await serious(container)).toEqual([]);
    await userEvent.type(within(form()).getByRole('textbox', { name: 'Name' }), 'Zed');
    await userEvent.click(within(form()).getByRole('button', { name: 'Create token' }));
    await screen.findByLabelText('New access token');
    expect(await serious(container)).toEqual([]);
    await userEvent.click(screen.getByRole('button', { name: 'Revoke Old laptop' }));
    expect(await serious(await screen.findByRole('dialog'))).toEqual([]);
  });
});
