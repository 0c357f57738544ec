import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TChatProvider } from '../../../../contracts/chat.ts';
import { jsonResponse, stubFetch, type StubRequest } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import { loadHistory, loadSession } from '../lib/chat-storage.ts';
import ChatScreen from './chat-screen.tsx';

// Regenerate, retry and edit (docs/decisions/0048): each makes a version of its turn, reachable
// with the turn's '2 / 2' switch; the chat goes on from the version in view.

const PROVIDERS = { 'GET /api/chat/providers': { body: { providers: [] } } };
const streamed = (texts: string[], model = 'gpt-4o') =>
  new Response([...texts.map((text) => `event: delta\ndata: ${JSON.stringify({ text })}\n\n`), `event: done\ndata: ${JSON.stringify({ model })}\n\n`].join(''), {
    headers: { 'content-type': 'text/event-stream' },
  });

/** Answers "Answer N to: <last question>", numbering the calls. */
function answering() {
  let n = 0;
  return (request: StubRequest) => {
    const body = request.body as { messages: Array<{ content: string }>; model: string };
    return streamed([`Answer ${++n} to: ${body.messages.at(-1)!.content}`], body.model);
  };
}

const renderChat = (provider: TChatProvider = 'openai') => renderWithProviders(<ChatScreen provider={provider} />, { auth: signedInAs('admin'), path: '/chat-console' });
const log = () => screen.getByRole('log', { name: 'Messages' });
const messageBox = () => screen.getByRole('textbox', { name: /^Message / });
const posts = (requests: StubRequest[], endpoint = '/api/openai/chat') =>
  requests.filter((r) => r.method === 'POST' && r.url === endpoint).map((r) => (r.body as { messages: Array<{ content: string }> }).messages.map((m) => m.content));

beforeEach(() => localStorage.clear());
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('ChatScreen: versions', () => {
  it('regenerates the last answer as version 2 / 2, with the other model; the first stays reachable', async () => {
    const { requests } = stubFetch({ ...PROVIDERS, 'POST /api/openai/chat': answering() });
    renderChat();
    const user = userEvent.setup();
    await user.type(messageBox(), 'Name a colour{Enter}');
    await within(log()).findByText('Answer 1 to: Name a colour');

    await user.selectOptions(screen.getByRole('combobox', { name: 'Model' }), 'o3');
    await user.click(within(log()).getByRole('button', { name: 'Regenerate answer' }));
    expect(await within(log()).findByText('Answer 2 to: Name a colour')).toBeInTheDocument();
    expect(within(log()).queryByText('Answer 1 to: Name a colour')).not.toBeInTheDocument();
    expect(posts(requests)).toEqual([['Name a colour'], ['Name a colour']]);
    const versions = within(log()).getByRole('group', { name: 'Versions of this answer' });
    expect(versions).toHaveTextContent('Version 2 of 2');
    expect(within(log()).getByText('o3')).toBeInTheDocument(); // each answer keeps its model

    await user.click(within(versions).getByRole('button', { name: 'Previous version of this answer' }));
    expect(within(log()).getByText('Answer 1 to: Name a colour')).toBeInTheDocument();
    expect(within(log()).getByText('GPT-4o')).toBeInTheDocument();
    expect(within(log()).getByRole('group', { name: 'Versions of this answer' })).toHaveTextContent('Version 1 of 2');
    expect(within(log()).getByRole('button', { name: 'Previous version of this answer' })).toBeDisabled();

    // The chat goes on from the version in view.
    await user.type(messageBox(), 'Another{Enter}');
    await within(log()).findByText('Answer 3 to: Another');
    expect(posts(requests)[2]).toEqual(['Name a colour', 'Answer 1 to: Name a colour', 'Another']);
  });

  it('retries an answer that was stopped', async () => {
    let stopped = true;
    stubFetch({
      ...PROVIDERS,
      'POST /api/openai/chat': (request) =>
        stopped
          ? new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode('event: delta\ndata: {"text":"Partial"}\n\n')) }), { headers: { 'content-type': 'text/event-stream' } })
          : answering()(request),
    });
    renderChat();
    const user = userEvent.setup();
    await user.type(messageBox(), 'Long story{Enter}');
    await within(log()).findByText('Partial');
    await user.click(screen.getByRole('button', { name: 'Stop' }));
    await within(log()).findByText('(stopped)');

    stopped = false;
    await user.click(within(log()).getByRole('button', { name: 'Retry' }));
    expect(await within(log()).findByText('Answer 1 to: Long story')).toBeInTheDocument();
    expect(within(log()).getByRole('group', { name: 'Versions of this answer' })).toHaveTextContent('Version 2 of 2');
  });

  it('retries after an error: the failed answer is version 1', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    let fail = true;
    stubFetch({
      ...PROVIDERS,
      'POST /api/openai/chat': (request) => (fail ? jsonResponse({ error: true, message: 'GPT is unavailable right now' }) : answering()(request)),
    });
    renderChat();
    const user = userEvent.setup();
    await user.type(messageBox(), 'Hello{Enter}');
    await within(log()).findByText('Sorry, I encountered an error: GPT is unavailable right now. Please try again later.');
    fail = false;
    await user.click(within(log()).getByRole('button', { name: 'Retry' }));
    expect(await within(log()).findByText('Answer 1 to: Hello')).toBeInTheDocument();
    expect(within(log()).queryByText(/Sorry/)).not.toBeInTheDocument();
  });

  it('Grok: a failed message can be sent again from the question', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    let fail = true;
    const { requests } = stubFetch({
      ...PROVIDERS,
      'POST /api/grok/chat': (request) => (fail ? jsonResponse({ error: 'Bad Gateway', message: 'xAI is unavailable' }, 502) : answering()(request)),
    });
    renderChat('grok');
    const user = userEvent.setup();
    await user.type(messageBox(), 'Status?{Enter}');
    expect(await screen.findByText('Error: xAI is unavailable')).toBeInTheDocument();
    fail = false;
    await user.click(within(log()).getByRole('button', { name: 'Retry' }));
    expect(await within(log()).findByText('Answer 1 to: Status?')).toBeInTheDocument();
    expect(screen.queryByText('Error: xAI is unavailable')).not.toBeInTheDocument();
    expect(posts(requests, '/api/grok/chat')).toEqual([['Status?'], ['Status?']]);
  });

  it('edits a question: the chat goes on from the edit, the original and its answer stay reachable, the title follows', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { requests } = stubFetch({ ...PROVIDERS, 'POST /api/openai/chat': answering() });
    renderChat();
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    await user.type(messageBox(), 'Plan a trip to Rome{Enter}');
    await within(log()).findByText('Answer 1 to: Plan a trip to Rome');

    await user.click(within(log()).getByRole('button', { name: 'Edit message' }));
    const editor = within(log()).getByRole('textbox', { name: 'Edit message' });
    expect(editor).toHaveValue('Plan a trip to Rome');
    await user.clear(editor);
    await user.type(editor, 'Plan a trip to Lisbon{Enter}');
    expect(await within(log()).findByText('Answer 2 to: Plan a trip to Lisbon')).toBeInTheDocument();
    expect(posts(requests)[1]).toEqual(['Plan a trip to Lisbon']);
    expect(within(log()).queryByText('Plan a trip to Rome')).not.toBeInTheDocument();
    expect(within(log()).getByRole('group', { name: 'Versions of this question' })).toHaveTextContent('Version 2 of 2');

    act(() => vi.advanceTimersByTime(1000));
    const [entry] = loadHistory('openai');
    expect(entry!.title).toBe('Plan a trip to Lisbon');
    expect(loadSession('openai', entry!.id)!.messages).toHaveLength(4); // every version is kept

    await user.click(within(log()).getByRole('button', { name: 'Previous version of this question' }));
    expect(within(log()).getByText('Plan a trip to Rome')).toBeInTheDocument();
    expect(within(log()).getByText('Answer 1 to: Plan a trip to Rome')).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(1000));
    await waitFor(() => expect(loadHistory('openai')[0]!.title).toBe('Plan a trip to Rome'));
  });

  it('Escape leaves the edit without sending', async () => {
    const { requests } = stubFetch({ ...PROVIDERS, 'POST /api/openai/chat': answering() });
    renderChat();
    const user = userEvent.setup();
    await user.type(messageBox(), 'Keep me{Enter}');
    await within(log()).findByText('Answer 1 to: Keep me');
    await user.click(within(log()).getByRole('button', { name: 'Edit message' }));
    await user.type(within(log()).getByRole('textbox', { name: 'Edit message' }), ' changed{Escape}');
    expect(within(log()).getByText('Keep me')).toBeInTheDocument();
    expect(posts(requests)).toHaveLength(1);
  });
});

describe('ChatScreen: leaving an answer mid-stream', () => {
  it('keeps it in its chat as far as it got, marked as going on: the server writes the rest (no Stop is sent)', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const { requests } = stubFetch({
      ...PROVIDERS,
      'POST /api/openai/chat': () =>
        new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode('event: delta\ndata: {"text":"Half of it"}\n\n')) }), {
          headers: { 'content-type': 'text/event-stream' },
        }),
    });
    renderChat();
    const user = userEvent.setup();
    await user.type(messageBox(), 'Tell me everything{Enter}');
    await within(log()).findByText('Half of it');
    await user.click(within(screen.getByRole('complementary', { name: 'Chat history' })).getByRole('button', { name: 'New Chat' }));
    expect(screen.getByText('Start a conversation')).toBeInTheDocument();
    const [entry] = loadHistory('openai');
    expect(loadSession('openai', entry!.id)!.messages.map((m) => [m.content, m.note])).toEqual([
      ['Tell me everything', undefined],
      ['Half of it', '(still being written when you left this chat: open it again to see all of it)'],
    ]);
    expect(requests.filter((r) => r.url.endsWith('/stop'))).toEqual([]);
  });
});
