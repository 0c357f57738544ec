import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { toast as sonner } from 'sonner';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ToastHost } from '../../../components/ui/toast-host.tsx';
import { fakeChatHistory } from '../../../test/fake-chat-history.ts';
import { jsonResponse, stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import { loadSession } from '../lib/chat-storage.ts';
import ChatScreen from './chat-screen.tsx';

// Deleting a chat (issue 29, docs/decisions/0070): it leaves the sidebar at once and a toast says
// 'Chat deleted' with Undo; the delete is made when the toast goes, or as the page is left. The
// real toasts (sonner, through the ToastHost), not the spies the other client tests get.
vi.unmock('../../../lib/notify.ts');

const USER_ID = '00000000-0000-4000-8000-000000000001';
const PROVIDERS = { 'GET /api/chat/providers': { body: { providers: [] } } };
const at = (minute: number) => new Date(Date.UTC(2025, 5, 1, 9, minute)).toISOString();

const renderChat = () =>
  renderWithProviders(
    <>
      <ChatScreen provider="openai" />
      <ToastHost />
    </>,
    { auth: signedInAs('admin', { id: USER_ID }), path: '/chat-console' },
  );
const sidebar = () => screen.getByRole('complementary', { name: 'Chat history' });
const log = () => screen.getByRole('log', { name: 'Messages' });
const toast = () => screen.findByText('Chat deleted');

function seeded() {
  const server = fakeChatHistory();
  for (const [n, title] of ['Invoices', 'Budget 2026'].entries()) {
    server.seed({ id: `chat-${n + 1}-x`, title, messages: [{ id: 'q', parentId: null, role: 'user', content: `About ${title}`, timestamp: at(n) }] });
  }
  return server;
}

beforeEach(() => localStorage.clear());
afterEach(async () => {
  // Sonner keeps its toasts across tests: each test starts without one.
  act(() => void sonner.dismiss());
  await waitFor(() => expect(document.querySelector('[data-sonner-toast]')).toBeNull());
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('ChatScreen: deleting a chat, with Undo', () => {
  it('leaves the sidebar at once and says so with Undo; Undo brings it back and nothing is deleted', async () => {
    const server = seeded();
    const { requests } = stubFetch(PROVIDERS, server.handle);
    renderChat();
    const user = userEvent.setup();
    await user.click(await within(sidebar()).findByRole('button', { name: 'Delete chat: Budget 2026' }));
    expect(within(sidebar()).queryByRole('button', { name: /^Budget 2026/ })).not.toBeInTheDocument();
    expect(await toast()).toBeInTheDocument();
    expect(screen.getByText('Budget 2026')).toBeInTheDocument(); // the toast names it

    await user.click(screen.getByRole('button', { name: 'Undo' }));
    expect(await within(sidebar()).findByRole('button', { name: /^Budget 2026/ })).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByText('Chat deleted')).not.toBeInTheDocument());
    expect(requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    expect(server.chats.has('chat-2-x')).toBe(true);
  });

  it('deletes it on the server, and here, once the toast has gone: after its few seconds', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const server = seeded();
    stubFetch(PROVIDERS, server.handle);
    renderChat();
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    await user.click(await within(sidebar()).findByRole('button', { name: 'Delete chat: Budget 2026' }));
    await toast();
    expect(server.chats.has('chat-2-x')).toBe(true); // waits for Undo
    act(() => vi.advanceTimersByTime(6_000));
    await waitFor(() => expect(server.chats.has('chat-2-x')).toBe(false));
    expect(server.chats.has('chat-1-x')).toBe(true);
    expect(within(sidebar()).queryByRole('button', { name: /^Budget 2026/ })).not.toBeInTheDocument();
  });

  it('or at once when the toast is closed, or when another chat is deleted (one toast at a time)', async () => {
    const server = seeded();
    stubFetch(PROVIDERS, server.handle);
    renderChat();
    const user = userEvent.setup();
    await user.click(await within(sidebar()).findByRole('button', { name: 'Delete chat: Budget 2026' }));
    await toast();
    await user.click(await within(sidebar()).findByRole('button', { name: 'Delete chat: Invoices' }));
    await waitFor(() => expect(server.chats.has('chat-2-x')).toBe(false));
    expect(server.chats.has('chat-1-x')).toBe(true);
    // The toast now offers to undo the second delete only.
    await user.click(await screen.findByRole('button', { name: 'Close toast' }));
    await waitFor(() => expect(server.chats.size).toBe(0));
    expect(within(sidebar()).getByText('No chat history yet')).toBeInTheDocument();
  });

  it('makes the delete final as the page is left, with a request that outlives the page', async () => {
    const server = seeded();
    const { fetchMock } = stubFetch(PROVIDERS, server.handle);
    renderChat();
    const user = userEvent.setup();
    await user.click(await within(sidebar()).findByRole('button', { name: 'Delete chat: Invoices' }));
    await toast();
    window.dispatchEvent(new Event('pagehide'));
    await waitFor(() => expect(server.chats.has('chat-1-x')).toBe(false));
    const deleting = fetchMock.mock.calls.find(([, init]) => init?.method === 'DELETE');
    expect(deleting?.[0]).toBe('/api/chat/conversations/chat-1-x');
    expect(deleting?.[1]).toMatchObject({ keepalive: true });
  });

  it('the open chat: a new chat starts at once (SPEC); Undo opens it again', async () => {
    const server = seeded();
    stubFetch(PROVIDERS, server.handle);
    renderChat();
    const user = userEvent.setup();
    await user.click(await within(sidebar()).findByRole('button', { name: /^Invoices/ }));
    expect(await within(log()).findByText('About Invoices')).toBeInTheDocument();
    await user.click(within(sidebar()).getByRole('button', { name: 'Delete chat: Invoices' }));
    expect(screen.getByText('Start a conversation')).toBeInTheDocument();
    await toast();
    await user.click(screen.getByRole('button', { name: 'Undo' }));
    expect(await within(log()).findByText('About Invoices')).toBeInTheDocument();
    expect(within(sidebar()).getByRole('button', { name: /^Invoices/ })).toHaveAttribute('aria-current', 'true');
    expect(server.chats.has('chat-1-x')).toBe(true);
    expect(loadSession('openai', 'chat-1-x', USER_ID)).not.toBeNull();
  });

  it('by keyboard: focus goes to the next chat, whose row is the one under it now', async () => {
    const server = seeded();
    stubFetch(PROVIDERS, server.handle);
    renderChat();
    const user = userEvent.setup();
    (await within(sidebar()).findByRole('button', { name: 'Delete chat: Budget 2026' })).focus(); // the newest, listed first
    await user.keyboard('{Enter}');
    expect(await toast()).toBeInTheDocument();
    expect(within(sidebar()).getByRole('button', { name: /^Invoices/ })).toHaveFocus();
  });

  it('a delete the server refuses brings the chat back and says so', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const server = seeded();
    stubFetch({ ...PROVIDERS, 'DELETE /api/chat/conversations/chat-2-x': () => jsonResponse({ error: 'Service Unavailable' }, 503) }, server.handle);
    renderChat();
    const user = userEvent.setup();
    await user.click(await within(sidebar()).findByRole('button', { name: 'Delete chat: Budget 2026' }));
    await user.click(await screen.findByRole('button', { name: 'Close toast' }));
    expect(await screen.findByText('Could not delete the chat')).toBeInTheDocument();
    expect(await within(sidebar()).findByRole('button', { name: /^Budget 2026/ })).toBeInTheDocument();
  });
});
