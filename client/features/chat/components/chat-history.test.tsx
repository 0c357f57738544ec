import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TSaveConversation } from '../../../../contracts/chat-history.ts';
import { fakeChatHistory } from '../../../test/fake-chat-history.ts';
import { stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import { notify } from '../../../lib/notify.ts';
import { loadHistory, loadSession, saveSession } from '../lib/chat-storage.ts';
import ChatScreen from './chat-screen.tsx';

// The history on the server (docs/decisions/0046): the sidebar lists it, a chat is saved there
// after the local save, opened from it on another device, renamed, deleted and exported.

const USER_ID = '00000000-0000-4000-8000-000000000001';
const PROVIDERS = { 'GET /api/chat/providers': { body: { providers: [] } } };
const streamed = (texts: string[]) =>
  new Response([...texts.map((text) => `event: delta\ndata: ${JSON.stringify({ text })}\n\n`), `event: done\ndata: ${JSON.stringify({ model: 'gpt-4o' })}\n\n`].join(''), {
    headers: { 'content-type': 'text/event-stream' },
  });
const at = (minute: number) => new Date(Date.UTC(2025, 5, 1, 9, minute)).toISOString();

const renderChat = () => renderWithProviders(<ChatScreen provider="openai" />, { auth: signedInAs('admin', { id: USER_ID }), path: '/chat-console' });
const sidebar = () => screen.getByRole('complementary', { name: 'Chat history' });
const log = () => screen.getByRole('log', { name: 'Messages' });
const messageBox = () => screen.getByRole('textbox', { name: /^Message / });

beforeEach(() => localStorage.clear());
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('ChatScreen: history on the server', () => {
  it('lists the server’s chats and opens one this browser has never seen', async () => {
    const server = fakeChatHistory();
    server.seed({
      id: 'chat-1-other',
      title: 'From my laptop',
      messages: [
        { id: 'q', parentId: null, role: 'user', content: 'From my laptop', timestamp: at(0) },
        { id: 'a', parentId: 'q', role: 'assistant', content: 'Saved on the server', timestamp: at(1), model: 'o3' },
      ],
      model: 'o3',
    });
    stubFetch(PROVIDERS, server.handle);
    renderChat();
    const user = userEvent.setup();
    await user.click(await within(sidebar()).findByRole('button', { name: /^From my laptop/ }));
    expect(await within(log()).findByText('Saved on the server')).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Model' })).toHaveValue('o3');
    // Kept in this browser too (SPEC's keys), without moving it to the top.
    expect(loadSession('openai', 'chat-1-other', USER_ID)).toMatchObject({ title: 'From my laptop', userId: USER_ID });
  });

  it('saves a chat to the server after the local save, then only what is new', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const server = fakeChatHistory();
    const { requests } = stubFetch({ ...PROVIDERS, 'POST /api/openai/chat': () => streamed(['First answer']) }, server.handle);
    renderChat();
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    await user.type(messageBox(), 'Hello server{Enter}');
    await within(log()).findByText('First answer');
    act(() => vi.advanceTimersByTime(1000));
    await waitFor(() => expect(server.chats.size).toBe(1));
    const [saved] = [...server.chats.values()];
    expect(saved).toMatchObject({ provider: 'openai', title: 'Hello server', model: 'gpt-4o' });
    expect(saved!.messages.map((m) => [m.role, m.content, m.parentId === null])).toEqual([
      ['user', 'Hello server', true],
      ['assistant', 'First answer', false],
    ]);
    expect(saved!.leafId).toBe(saved!.messages[1]!.id);
    expect(await within(sidebar()).findByRole('button', { name: /^Hello server/ })).toBeInTheDocument();
    await waitFor(() => expect(loadHistory('openai', USER_ID)[0]).not.toHaveProperty('unsynced'));

    requests.length = 0;
    await user.type(messageBox(), 'Second{Enter}');
    await within(log()).findByText('Second');
    await waitFor(() => expect(messageBox()).toBeEnabled());
    act(() => vi.advanceTimersByTime(1000));
    await waitFor(() => expect(saved!.messages).toHaveLength(4));
    const saves = requests.filter((r) => r.method === 'POST' && r.url === '/api/chat/conversations').map((r) => (r.body as TSaveConversation).messages.map((m) => m.content));
    expect(saves).toEqual([['Second', 'First answer']]);
  });

  it('searches the server’s history as the user types', async () => {
    const server = fakeChatHistory();
    server.seed({ id: 'chat-1-a', title: 'Invoices', messages: [{ id: 'q', parentId: null, role: 'user', content: 'Invoices', timestamp: at(0) }] });
    server.seed({ id: 'chat-2-b', title: 'Holidays', messages: [{ id: 'q', parentId: null, role: 'user', content: 'Holidays', timestamp: at(0) }] });
    const { requests } = stubFetch(PROVIDERS, server.handle);
    renderChat();
    const user = userEvent.setup();
    await within(sidebar()).findByRole('button', { name: /^Holidays/ });
    await user.type(within(sidebar()).getByRole('searchbox', { name: 'Search chats' }), 'invoi');
    await waitFor(() => expect(within(sidebar()).queryByRole('button', { name: /^Holidays/ })).not.toBeInTheDocument());
    expect(within(sidebar()).getByRole('button', { name: /^Invoices/ })).toBeInTheDocument();
    expect(requests.some((r) => r.url === '/api/chat/conversations?provider=openai&q=invoi')).toBe(true);
    await user.clear(within(sidebar()).getByRole('searchbox', { name: 'Search chats' }));
    await user.type(within(sidebar()).getByRole('searchbox', { name: 'Search chats' }), 'zzz');
    expect(await within(sidebar()).findByText('No chats match your search')).toBeInTheDocument();
  });

  it('renames a chat on the server and deletes it there for real', async () => {
    const server = fakeChatHistory();
    server.seed({ id: 'chat-1-a', title: 'Old name', messages: [{ id: 'q', parentId: null, role: 'user', content: 'Old name', timestamp: at(0) }] });
    const { requests } = stubFetch(PROVIDERS, server.handle);
    renderChat();
    const user = userEvent.setup();
    await user.click(await within(sidebar()).findByRole('button', { name: 'Rename chat: Old name' }));
    const input = within(sidebar()).getByRole('textbox', { name: 'New title for Old name' });
    await user.clear(input);
    await user.type(input, 'Budget 2026{Enter}');
    expect(await within(sidebar()).findByRole('button', { name: /^Budget 2026/ })).toBeInTheDocument();
    expect(requests.find((r) => r.method === 'PATCH')).toMatchObject({ url: '/api/chat/conversations/chat-1-a', body: { customTitle: 'Budget 2026' } });

    await user.click(within(sidebar()).getByRole('button', { name: 'Delete chat: Budget 2026' }));
    await waitFor(() => expect(server.chats.size).toBe(0));
    expect(within(sidebar()).getByText('No chat history yet')).toBeInTheDocument();
  });

  it('shows this browser’s chats when the server cannot be reached, and says so', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    saveSession('openai', { id: 'chat-1-local', title: 'Written offline', model: 'gpt-4o', timestamp: at(0), messages: [{ id: 'q', role: 'user', content: 'Written offline', timestamp: at(0) }] });
    stubFetch(PROVIDERS, () => new Response('{"error":"Service Unavailable"}', { status: 503, headers: { 'content-type': 'application/json' } }));
    renderChat();
    expect(await within(sidebar()).findByText('Offline: the chats saved in this browser.')).toBeInTheDocument();
    expect(within(sidebar()).getByRole('button', { name: /^Written offline/ })).toBeInTheDocument();
  });

  it('exports the open chat as a file from the server', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const server = fakeChatHistory();
    stubFetch({ ...PROVIDERS, 'POST /api/openai/chat': () => streamed(['Exported answer']) }, server.handle);
    const clicked: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this.getAttribute('href')!);
    });
    renderChat();
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    await user.type(messageBox(), 'Export me{Enter}');
    await within(log()).findByText('Exported answer');
    await user.click(screen.getByRole('button', { name: 'Chat options' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Export as Markdown' }));
    await waitFor(() => expect(clicked).toHaveLength(1));
    const [id] = [...server.chats.keys()];
    expect(clicked[0]).toBe(`/api/chat/conversations/${id}/export?format=md`);
  });

  it('a chat that cannot be found anywhere says so and starts a new chat', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const server = fakeChatHistory();
    server.seed({ id: 'chat-1-gone', title: 'Deleted elsewhere', messages: [{ id: 'q', parentId: null, role: 'user', content: 'Deleted elsewhere', timestamp: at(0) }] });
    stubFetch(PROVIDERS, server.handle);
    renderChat();
    const user = userEvent.setup();
    const entry = await within(sidebar()).findByRole('button', { name: /^Deleted elsewhere/ });
    server.chats.clear();
    await user.click(entry);
    await waitFor(() => expect(notify.error).toHaveBeenCalledWith('Chat not found', 'This chat was deleted.'));
    expect(screen.getByText('Start a conversation')).toBeInTheDocument();
  });
});
