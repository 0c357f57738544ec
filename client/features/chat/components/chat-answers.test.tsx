import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeChatHistory } from '../../../test/fake-chat-history.ts';
import { sseStream, stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import ChatScreen from './chat-screen.tsx';

// Answers that survive a reload (docs/decisions/0056): the server keeps writing an answer into the
// chat whoever listens; the screen joins one it finds being written, and Stop asks the server.

const USER_ID = '00000000-0000-4000-8000-000000000001';
const PROVIDERS = { 'GET /api/chat/providers': { body: { providers: [] } } };
const at = (minute: number) => new Date(Date.UTC(2025, 5, 1, 9, minute)).toISOString();

const renderChat = () => renderWithProviders(<ChatScreen provider="openai" />, { auth: signedInAs('admin', { id: USER_ID }), path: '/chat-console' });
const log = () => screen.getByRole('log', { name: 'Messages' });
/** The message list is mounted again for each chat opened: look in the one on screen now. */
const inLog = (text: string) => waitFor(() => within(log()).getByText(text));
const messageBox = () => screen.getByRole('textbox', { name: /^Message / });

/** A chat saved by the server whose answer is still being written (another tab asked, or this one before a reload). */
function answeringChat() {
  const server = fakeChatHistory();
  server.seed({
    id: 'chat-5-live',
    title: 'Tell me a story',
    answering: true,
    leafId: 'a',
    messages: [
      { id: 'q', parentId: null, role: 'user', content: 'Tell me a story', timestamp: at(0) },
      { id: 'a', parentId: 'q', role: 'assistant', content: 'Once', timestamp: at(1), model: 'gpt-4o', streaming: true },
    ],
  });
  return server;
}

beforeEach(() => localStorage.clear());
afterEach(() => {
  vi.restoreAllMocks();
});

describe('ChatScreen: answers that survive a reload', () => {
  it('opens the chat whose answer is being written and joins it: what came so far, then the rest; the input waits for it', async () => {
    const live = sseStream();
    const { requests } = stubFetch({ ...PROVIDERS, 'GET /api/chat/conversations/chat-5-live/stream?answer=a': () => live.response }, answeringChat().handle);
    renderChat();
    await inLog('Tell me a story');
    await waitFor(() => expect(requests.some((r) => r.url === '/api/chat/conversations/chat-5-live/stream?answer=a')).toBe(true));
    expect(messageBox()).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Stop' })).toBeInTheDocument();

    live.send('delta', { text: 'Once upon' }); // all of the text so far
    await inLog('Once upon');
    live.send('delta', { text: ' a time.' });
    live.send('done', { model: 'gpt-4o' });
    live.close();
    await inLog('Once upon a time.');
    await waitFor(() => expect(messageBox()).toBeEnabled());
    expect(screen.queryByRole('button', { name: 'Stop' })).not.toBeInTheDocument();
    // One request to post nothing: joining asks no provider.
    expect(requests.filter((r) => r.url === '/api/openai/chat')).toEqual([]);
  });

  it('Stop on a joined answer asks the server, which ends it where it got: the chat keeps that, marked', async () => {
    const live = sseStream();
    const { requests } = stubFetch(
      {
        ...PROVIDERS,
        'GET /api/chat/conversations/chat-5-live/stream?answer=a': () => live.response,
        'POST /api/chat/conversations/chat-5-live/stop': () => {
          // The server stops the provider and ends the stream with what it kept.
          queueMicrotask(() => {
            live.send('error', { message: 'Stopped', partial: true, stopped: true });
            live.close();
          });
          return new Response(null, { status: 204 });
        },
      },
      answeringChat().handle,
    );
    renderChat();
    await inLog('Tell me a story');
    await waitFor(() => expect(requests.some((r) => r.url.endsWith('/stream?answer=a'))).toBe(true));
    live.send('delta', { text: 'Once upon' });
    await inLog('Once upon');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Stop' }));
    expect(await within(log()).findByText('(stopped)')).toBeInTheDocument();
    expect(within(log()).getByText('Once upon')).toBeInTheDocument();
    expect(requests.find((r) => r.url === '/api/chat/conversations/chat-5-live/stop')!.body).toEqual({ answer: 'a' });
    expect(live.state.cancelled).toBe(false); // ended by the server, not cut here
  });

  it('Stop on its own answer asks the server too; the stream ends stopped with what the server kept', async () => {
    const live = sseStream();
    const { requests } = stubFetch({
      ...PROVIDERS,
      'POST /api/openai/chat': () => live.response,
    });
    renderChat();
    const user = userEvent.setup();
    await user.type(messageBox(), 'Write a long story{Enter}');
    live.send('delta', { text: 'It was a dark' });
    await within(log()).findByText('It was a dark');
    const post = requests.find((r) => r.url === '/api/openai/chat')!.body as { answer: { chatId: string; id: string } };
    const stopUrl = `/api/chat/conversations/${post.answer.chatId}/stop`;
    stubFetch({
      [`POST ${stopUrl}`]: () => {
        queueMicrotask(() => {
          live.send('delta', { text: ' and stormy' });
          live.send('error', { message: 'Stopped', partial: true, stopped: true });
          live.close();
        });
        return new Response(null, { status: 204 });
      },
    });
    await user.click(screen.getByRole('button', { name: 'Stop' }));
    expect(await within(log()).findByText('(stopped)')).toBeInTheDocument();
    // What the server kept, to its last word.
    expect(within(log()).getByText('It was a dark and stormy')).toBeInTheDocument();
  });

  it('Stop still stops reading when the server cannot be asked', async () => {
    const live = sseStream();
    stubFetch({ ...PROVIDERS, 'POST /api/openai/chat': () => live.response });
    renderChat();
    const user = userEvent.setup();
    await user.type(messageBox(), 'Write a long story{Enter}');
    live.send('delta', { text: 'It was a dark' });
    await within(log()).findByText('It was a dark');
    await user.click(screen.getByRole('button', { name: 'Stop' })); // the stop route answers 404 here
    expect(await within(log()).findByText('(stopped)')).toBeInTheDocument();
    await waitFor(() => expect(live.state.cancelled).toBe(true));
  });

  it('does not open an answering chat over one the user already started', async () => {
    const server = answeringChat();
    let listed!: () => void;
    const listArrives = new Promise<void>((resolve) => (listed = resolve));
    // The list comes late: the user has asked a question of their own by then.
    const { requests } = stubFetch({ ...PROVIDERS, 'POST /api/openai/chat': () => new Promise<Response>(() => {}) }, (request) =>
      request.url.startsWith('/api/chat/conversations?') ? listArrives.then(() => server.handle(request)!) : server.handle(request),
    );
    renderChat();
    const user = userEvent.setup();
    await user.type(messageBox(), 'My own question{Enter}');
    listed();
    await waitFor(() => expect(within(screen.getByRole('complementary', { name: 'Chat history' })).getByRole('button', { name: /^Tell me a story/ })).toBeInTheDocument());
    expect(within(log()).getByText('My own question')).toBeInTheDocument();
    expect(within(log()).queryByText('Tell me a story')).not.toBeInTheDocument();
    expect(requests.some((r) => r.url.includes('/stream'))).toBe(false);
  });
});
