import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { TShareLink } from '../../../../contracts/share-links.ts';
import { primeAppConfig } from '../../../lib/app-config.ts';
import { jsonResponse, stubFetch, type StubRequest } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import ChatScreen from './chat-screen.tsx';
import { ShareDialog } from './share-dialog.tsx';

// Share links (issue 32): make a link to the open chat, copy it, see and revoke the user's links.

const TOKEN = 'A'.repeat(43);

function sharesServer(initial: TShareLink[] = [], refuse?: { status: number; message: string }) {
  const links = [...initial];
  return (request: StubRequest) => {
    if (request.url === '/api/chat/shares' && request.method === 'GET') return jsonResponse({ links });
    const made = /^\/api\/chat\/conversations\/([^/]+)\/shares$/.exec(request.url);
    if (made && request.method === 'POST') {
      if (refuse) return jsonResponse({ error: 'Forbidden', message: refuse.message }, refuse.status);
      const body = request.body as { includeImages: boolean };
      const link: TShareLink = { id: `00000000-0000-4000-8000-00000000000${links.length}`, conversationId: made[1]!, title: 'Quarterly numbers', url: `http://localhost/s/${TOKEN}`, includeImages: body.includeImages, messages: 2, createdAt: '2025-06-01T00:00:00Z', views: 0 };
      links.unshift(link);
      return jsonResponse(link, 201);
    }
    const revoked = /^\/api\/chat\/shares\/(.+)$/.exec(request.url);
    if (revoked && request.method === 'DELETE') {
      links.splice(links.findIndex((l) => l.id === revoked[1]), 1);
      return new Response(null, { status: 204 });
    }
    return undefined;
  };
}

describe('ShareDialog', () => {
  it('saves the chat, makes a link with its images when asked, shows it to copy, lists it and revokes it', async () => {
    const { requests } = stubFetch({}, sharesServer());
    let saved = 0;
    renderWithProviders(<ShareDialog open onOpenChange={() => {}} chatId="chat-1" canShare save={async () => (saved++, true)} />, { auth: signedInAs('admin') });
    const user = userEvent.setup();
    const dialog = await screen.findByRole('dialog', { name: 'Share chat' });
    expect(await within(dialog).findByText('You have not shared any chat.')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('checkbox', { name: 'Include images' }));
    await user.click(within(dialog).getByRole('button', { name: 'Create link' }));
    expect(await within(dialog).findByRole('textbox', { name: 'Link to this chat' })).toHaveValue(`http://localhost/s/${TOKEN}`);
    expect(within(dialog).getByRole('button', { name: 'Copy link' })).toBeInTheDocument();
    expect(saved).toBe(1);
    expect(requests.find((r) => r.method === 'POST')).toMatchObject({ url: '/api/chat/conversations/chat-1/shares', body: { includeImages: true } });

    const list = within(dialog).getByRole('region', { name: 'Shared links' });
    expect(await within(list).findByText('Quarterly numbers')).toBeInTheDocument();
    expect(within(list).getByText(/2 messages · 0 views · with images/)).toBeInTheDocument();
    await user.click(within(list).getByRole('button', { name: 'Revoke link to Quarterly numbers' }));
    await waitFor(() => expect(within(list).getByText('You have not shared any chat.')).toBeInTheDocument());
    expect(within(dialog).queryByRole('textbox', { name: 'Link to this chat' })).not.toBeInTheDocument();
  });

  it('says why when sharing is refused (off for the role), in the dialog', async () => {
    const message = 'Sharing chats is off for your role: an admin can turn it on (CHAT_SHARE_ROLES).';
    stubFetch({}, sharesServer([], { status: 403, message }));
    renderWithProviders(<ShareDialog open onOpenChange={() => {}} chatId="chat-1" canShare save={async () => true} />, { auth: signedInAs('guest') });
    const user = userEvent.setup();
    const dialog = await screen.findByRole('dialog', { name: 'Share chat' });
    await user.click(within(dialog).getByRole('button', { name: 'Create link' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(message);
  });

  it('does not share a chat with no messages', async () => {
    stubFetch({}, sharesServer());
    renderWithProviders(<ShareDialog open onOpenChange={() => {}} chatId="chat-1" canShare={false} save={async () => true} />, { auth: signedInAs('admin') });
    const dialog = await screen.findByRole('dialog', { name: 'Share chat' });
    expect(within(dialog).getByRole('button', { name: 'Create link' })).toBeDisabled();
    expect(within(dialog).getByText('This chat has no messages to share yet.')).toBeInTheDocument();
  });

  // The page's config as the server writes it (primeAppConfig sets what appConfig() answers).
  const withShareRoles = (shareRoles?: Array<'admin' | 'guest'>) =>
    primeAppConfig({ siteName: 'Test', contactEmail: 'a@example.com', authProvider: 'local', ...(shareRoles ? { shareRoles } : {}) }, '2025');
  const openMenu = async (role: 'admin' | 'guest') => {
    stubFetch({ 'GET /api/chat/providers': { body: { providers: [] } } }, sharesServer());
    const view = renderWithProviders(<ChatScreen provider="openai" />, { auth: signedInAs(role), path: '/chat-console' });
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Chat options' }));
    await screen.findByRole('menuitem', { name: 'Export as Markdown' });
    return { user, view };
  };

  it("is in the chat's menu for the roles CHAT_SHARE_ROLES names, and opens Share", async () => {
    withShareRoles(['guest']);
    const { user } = await openMenu('guest');
    await user.click(screen.getByRole('menuitem', { name: 'Share…' }));
    expect(await screen.findByRole('dialog', { name: 'Share chat' })).toBeInTheDocument();
  });

  it('is not offered to a role CHAT_SHARE_ROLES leaves out, an admin included, nor to anyone by default', async () => {
    withShareRoles(['guest']);
    const admin = await openMenu('admin');
    expect(screen.queryByRole('menuitem', { name: 'Share…' })).toBeNull();
    admin.view.unmount();

    for (const roles of [[], undefined]) {
      withShareRoles(roles);
      const { view } = await openMenu('admin');
      expect(screen.queryByRole('menuitem', { name: 'Share…' })).toBeNull();
      view.unmount();
    }
  });
});
