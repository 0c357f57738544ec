import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CHAT_PROVIDERS, type TChatProvider } from '../../../../contracts/chat.ts';
import { jsonResponse, never, sseStream, stubFetch, type StubRequest } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import ChatScreen from './chat-screen.tsx';
import { historyKey, loadHistory, loadSession, saveSession, sessionsKey } from '../lib/chat-storage.ts';
import { notify } from '../../../lib/notify.ts';

const notifyError = vi.mocked(notify.error);

/** A whole stream at once: deltas, then done. */
const streamed = (texts: string[], done: Record<string, unknown> = { model: 'gpt-4o' }) =>
  new Response(
    [...texts.map((text) => `event: delta\ndata: ${JSON.stringify({ text })}\n\n`), `event: done\ndata: ${JSON.stringify(done)}\n\n`].join(''),
    { headers: { 'content-type': 'text/event-stream' } },
  );

const PROVIDERS = { 'GET /api/chat/providers': { body: { providers: [] } } };

/** The answer's place in the open chat, as each chat request names it (docs/decisions/0056). */
function keptIn(body: unknown) {
  const { answer, messages } = body as { answer: { questionId: string }; messages: Array<{ content: string }> };
  expect(answer).toEqual({ chatId: expect.stringMatching(/^chat-\d+-[a-z0-9]+$/), id: expect.stringMatching(/^m-/), questionId: expect.stringMatching(/^m-/), questionParentId: expect.toSatisfy((v: unknown) => v === null || typeof v === 'string'), title: expect.any(String) });
  expect(answer.questionId).not.toBe((answer as unknown as { id: string }).id);
  expect(messages.length).toBeGreaterThan(0);
  return answer;
}

function renderChat(provider: TChatProvider = 'openai') {
  return renderWithProviders(<ChatScreen provider={provider} />, { auth: signedInAs('admin'), path: '/chat-console' });
}

const messageBox = () => screen.getByRole('textbox', { name: /^Message / });
const sendButton = () => screen.getByRole('button', { name: 'Send message' });
const log = () => screen.getByRole('log', { name: 'Messages' });

beforeEach(() => {
  localStorage.clear();
  notifyError.mockReset();
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('ChatScreen: sending', () => {
  it('shows the empty state, the default model and a way back', () => {
    stubFetch(PROVIDERS);
    renderChat('anthropic');
    expect(screen.getByRole('heading', { level: 1, name: 'Chat with Claude' })).toBeInTheDocument();
    expect(screen.getByText('Start a conversation with Claude')).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Model' })).toHaveValue('claude-sonnet-4-5');
    expect(screen.getByRole('link', { name: 'Back to Dashboard' })).toHaveAttribute('href', '/dashboard');
  });

  it.each(CHAT_PROVIDERS)('%s: the message input has focus as soon as the screen opens', (provider) => {
    stubFetch(PROVIDERS);
    renderChat(provider);
    expect(messageBox()).toHaveFocus();
  });

  it('sends on Enter, adds a line on Shift+Enter, and posts {messages, model} asking for a stream', async () => {
    const { requests, fetchMock } = stubFetch({ ...PROVIDERS, 'POST /api/openai/chat': () => streamed(['Hi', ' there']) });
    renderChat();
    const user = userEvent.setup();
    await user.type(messageBox(), 'Hello{Shift>}{Enter}{/Shift}world');
    expect(messageBox()).toHaveValue('Hello\nworld');
    expect(requests.filter((r) => r.method === 'POST')).toHaveLength(0);

    await user.keyboard('{Enter}');
    await within(log()).findByText('Hi there');
    const posts = requests.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(1);
    // SPEC's {messages, model}, and where the server keeps the answer (docs/decisions/0056).
    // An admin's chat on a model that calls tools uses their agents by default (issue 31).
    expect(posts[0]!.body).toEqual({ messages: [{ role: 'user', content: 'Hello\nworld' }], model: 'gpt-4o', useAgents: true, answer: keptIn(posts[0]!.body) });
    const init = fetchMock.mock.calls.find(([url]) => url === '/api/openai/chat')![1]!;
    expect(init.headers).toMatchObject({ accept: 'text/event-stream' });
    expect(messageBox()).toHaveValue('');
    expect(within(log()).getByText('Hello\nworld', { normalizer: (s) => s })).toBeInTheDocument();
    expect(within(log()).getByText('GPT-4o')).toBeInTheDocument();
  });

  it('does not send an empty or whitespace-only message', async () => {
    const { requests } = stubFetch(PROVIDERS);
    renderChat();
    const user = userEvent.setup();
    await user.type(messageBox(), '   {Enter}');
    expect(sendButton()).toBeDisabled();
    fireEvent.submit(messageBox().closest('form')!);
    expect(requests.filter((r) => r.method === 'POST')).toHaveLength(0);
    expect(screen.getByText('Start a conversation')).toBeInTheDocument();
  });

  it('disables the input and Send while the request is pending', async () => {
    stubFetch({ ...PROVIDERS, 'POST /api/openai/chat': never });
    renderChat();
    const user = userEvent.setup();
    await user.type(messageBox(), 'Question{Enter}');
    expect(messageBox()).toBeDisabled();
    expect(sendButton()).toBeDisabled();
    expect(screen.getByRole('combobox', { name: 'Model' })).toBeDisabled();
    expect(screen.getByRole('status')).toHaveTextContent('Waiting for the answer');
    expect(screen.getByRole('button', { name: 'Stop' })).toHaveFocus();
  });

  it('shows the answer as it streams, token by token, then the model and copy button', async () => {
    const stream = sseStream();
    stubFetch({ ...PROVIDERS, 'POST /api/openai/chat': () => stream.response });
    renderChat();
    const user = userEvent.setup();
    await user.type(messageBox(), 'Stream please{Enter}');

    act(() => stream.send('delta', { text: 'The first' }));
    expect(await within(log()).findByText('The first')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Copy message' })).not.toBeInTheDocument();
    act(() => stream.send('delta', { text: ' words' }));
    expect(await within(log()).findByText('The first words')).toBeInTheDocument();
    expect(messageBox()).toBeDisabled();

    act(() => {
      stream.send('done', { model: 'gpt-4o', usage: { inputTokens: 3, outputTokens: 3 } });
      stream.close();
    });
    await waitFor(() => expect(messageBox()).toBeEnabled());
    expect(screen.getByRole('button', { name: 'Copy message' })).toBeInTheDocument();
    expect(messageBox()).toHaveFocus();
  });

  it('Stop aborts the stream and keeps the partial answer with (stopped)', async () => {
    const stream = sseStream();
    stubFetch({ ...PROVIDERS, 'POST /api/openai/chat': () => stream.response });
    renderChat();
    const user = userEvent.setup();
    await user.type(messageBox(), 'Long answer{Enter}');
    act(() => stream.send('delta', { text: 'Partial text' }));
    await within(log()).findByText('Partial text');

    await user.click(screen.getByRole('button', { name: 'Stop' }));
    expect(await within(log()).findByText('(stopped)')).toBeInTheDocument();
    expect(within(log()).getByText('Partial text')).toBeInTheDocument();
    expect(stream.state.cancelled).toBe(true);
    expect(messageBox()).toBeEnabled();
    expect(screen.queryByRole('button', { name: 'Stop' })).not.toBeInTheDocument();
    expect(notifyError).not.toHaveBeenCalled();
  });

  it('keeps the partial answer with an error note when the stream fails midway', async () => {
    const stream = sseStream();
    stubFetch({ ...PROVIDERS, 'POST /api/openai/chat': () => stream.response });
    renderChat();
    const user = userEvent.setup();
    await user.type(messageBox(), 'Go{Enter}');
    act(() => {
      stream.send('delta', { text: 'Half an answer' });
      stream.send('error', { message: 'Upstream timed out', partial: true });
      stream.close();
    });
    expect(await within(log()).findByText('The answer was cut short: Upstream timed out')).toBeInTheDocument();
    expect(within(log()).getByText('Half an answer')).toBeInTheDocument();
    expect(within(log()).queryByText(/Sorry, I encountered an error/)).not.toBeInTheDocument();
  });

  it('reads a JSON answer too (a server that does not stream)', async () => {
    stubFetch({ ...PROVIDERS, 'POST /api/openai/chat': { body: { error: false, choices: [{ message: { role: 'assistant', content: '**Bold** answer' } }], model: 'gpt-4o' } } });
    renderChat();
    const user = userEvent.setup();
    await user.type(messageBox(), 'JSON{Enter}');
    expect(await within(log()).findByText('Bold')).toHaveProperty('tagName', 'STRONG');
  });
});

describe('ChatScreen: errors', () => {
  beforeEach(() => vi.spyOn(console, 'error').mockImplementation(() => {}));

  it("shows the 'API Configuration Error' panel for a missing key (JSON)", async () => {
    stubFetch({ ...PROVIDERS, 'POST /api/openai/chat': { status: 503, body: { error: true, message: 'API key not configured: OPENAI_API_KEY' } } });
    renderChat();
    const user = userEvent.setup();
    await user.type(messageBox(), 'Hi{Enter}');
    const panel = await screen.findByRole('alert');
    expect(within(panel).getByRole('heading', { name: 'API Configuration Error' })).toBeInTheDocument();
    expect(panel).toHaveTextContent('OpenAI API key is not configured. Please contact the administrator.');
    expect(panel).toHaveTextContent(/administrator must set up the API key/);
    expect(within(log()).queryByText(/Sorry/)).not.toBeInTheDocument();
    // Where the answer would be: after the message that caused it.
    const question = within(log()).getByText('Hi');
    expect(question.compareDocumentPosition(panel) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it('shows the panel for a missing key reported in the stream', async () => {
    const stream = sseStream();
    stubFetch({ ...PROVIDERS, 'POST /api/gemini/chat': () => stream.response });
    renderChat('gemini');
    const user = userEvent.setup();
    await user.type(messageBox(), 'Hi{Enter}');
    act(() => {
      stream.send('error', { message: 'API key not configured: GOOGLE_GENERATIVE_AI_API_KEY', partial: false });
      stream.close();
    });
    expect(await screen.findByRole('heading', { name: 'API Configuration Error' })).toBeInTheDocument();
    expect(screen.getByText('Google AI API key is not configured. Please contact the administrator.')).toBeInTheDocument();
  });

  it("adds 'Sorry, I encountered an error: ...' for any other request error", async () => {
    stubFetch({ ...PROVIDERS, 'POST /api/anthropic/chat': { status: 429, body: { error: 'Too Many Requests', message: 'Daily token budget reached.' } } });
    renderChat('anthropic');
    const user = userEvent.setup();
    await user.type(messageBox(), 'Hi{Enter}');
    expect(
      await within(log()).findByText('Sorry, I encountered an error: Daily token budget reached. Please try again later.'),
    ).toBeInTheDocument();
    expect(messageBox()).toBeEnabled();
    expect(notifyError).not.toHaveBeenCalled();
  });

  it("uses 'Failed to get response from AI' for a flagged response without a message, and does not send it back", async () => {
    const { requests } = stubFetch({
      ...PROVIDERS,
      'POST /api/openai/chat': (request: StubRequest) =>
        (request.body as { messages: unknown[] }).messages.length === 1 ? jsonResponse({ error: true }) : streamed(['ok']),
    });
    renderChat();
    const user = userEvent.setup();
    await user.type(messageBox(), 'One{Enter}');
    await within(log()).findByText('Sorry, I encountered an error: Failed to get response from AI. Please try again later.');
    await user.type(messageBox(), 'Two{Enter}');
    await within(log()).findByText('ok');
    const second = requests.filter((r) => r.method === 'POST')[1]!.body;
    expect(second).toEqual({
      messages: [
        { role: 'user', content: 'One' },
        { role: 'user', content: 'Two' },
      ],
      model: 'gpt-4o',
      useAgents: true,
      answer: keptIn(second),
    });
  });

  it("toasts 'Error' / 'Failed to send message. Please try again.' on an unexpected failure", async () => {
    stubFetch({
      ...PROVIDERS,
      'POST /api/openai/chat': () => {
        throw new TypeError('Failed to fetch');
      },
    });
    renderChat();
    const user = userEvent.setup();
    await user.type(messageBox(), 'Hi{Enter}');
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith('Error', 'Failed to send message. Please try again.'));
    expect(messageBox()).toBeEnabled();
  });
});

describe('ChatScreen: Grok', () => {
  beforeEach(() => vi.spyOn(console, 'error').mockImplementation(() => {}));

  it("sends through the form with a timestamp and shows 'Thinking...' while pending", async () => {
    const stream = sseStream();
    const { requests } = stubFetch({ ...PROVIDERS, 'POST /api/grok/chat': () => stream.response });
    renderChat('grok');
    expect(screen.getByText('Start a conversation with Grok')).toBeInTheDocument();
    const input = messageBox();
    expect(input.tagName).toBe('INPUT');
    const user = userEvent.setup();
    await user.type(input, 'Hello Grok');
    await user.click(sendButton());
    expect(screen.getByRole('status')).toHaveTextContent('Thinking...');
    const body = requests.find((r) => r.method === 'POST')!.body as { messages: Array<Record<string, unknown>>; model: string };
    expect(body.model).toBe('grok-4');
    expect(body.messages[0]).toMatchObject({ role: 'user', content: 'Hello Grok', timestamp: expect.any(String) });

    act(() => stream.send('delta', { text: 'Hi!' }));
    await within(log()).findByText('Hi!');
    expect(screen.queryByText('Thinking...')).not.toBeInTheDocument();
    act(() => {
      stream.send('done', { model: 'grok-4' });
      stream.close();
    });
    await waitFor(() => expect(input).toBeEnabled());
  });

  it("shows 'Error: {message}' under the input", async () => {
    stubFetch({ ...PROVIDERS, 'POST /api/grok/chat': { status: 502, body: { error: 'Bad Gateway', message: 'xAI is unavailable' } } });
    renderChat('grok');
    const user = userEvent.setup();
    await user.type(messageBox(), 'Hi{Enter}');
    expect(await screen.findByText('Error: xAI is unavailable')).toBeInTheDocument();
    expect(messageBox()).toHaveAccessibleDescription('Error: xAI is unavailable');
  });

  it('has a sidebar toggle', async () => {
    stubFetch(PROVIDERS);
    renderChat('grok');
    const toggle = screen.getByRole('button', { name: 'Toggle chat history sidebar' });
    const before = toggle.getAttribute('aria-expanded');
    await userEvent.setup().click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe(before === 'true' ? 'false' : 'true');
  });

  it('shows generated images from done.images (data: and https only)', async () => {
    stubFetch({
      ...PROVIDERS,
      'POST /api/grok/chat': () => streamed([], { model: 'grok-2-image-1212', images: ['data:image/png;base64,iVBORw0KGgo=', 'javascript:alert(1)', 'https://img.example/a.png'] }),
    });
    renderChat('grok');
    const user = userEvent.setup();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Model' }), 'grok-2-image-1212');
    await user.type(messageBox(), 'Draw a cat{Enter}');
    const images = await within(log()).findAllByRole('img', { name: 'Generated image' });
    expect(images.map((img) => img.getAttribute('src'))).toEqual(['data:image/png;base64,iVBORw0KGgo=', 'https://img.example/a.png']);
  });
});

describe('ChatScreen: copy', () => {
  it('shows a check mark for 2 seconds after copying', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    stubFetch({ ...PROVIDERS, 'POST /api/openai/chat': () => streamed(['Copy me']) });
    renderChat();
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    const writeText = vi.spyOn(navigator.clipboard, 'writeText').mockResolvedValue(undefined);
    await user.type(messageBox(), 'Hi{Enter}');
    await user.click(await screen.findByRole('button', { name: 'Copy message' }));
    expect(writeText).toHaveBeenCalledWith('Copy me');
    expect(screen.getByRole('button', { name: 'Copied' })).toBeInTheDocument();
    expect(screen.getByTestId('copied')).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(1900));
    expect(screen.getByRole('button', { name: 'Copied' })).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(150));
    expect(screen.getByRole('button', { name: 'Copy message' })).toBeInTheDocument();
    expect(screen.queryByTestId('copied')).not.toBeInTheDocument();
  });
});

describe('ChatScreen: history', () => {
  it('saves the chat 1 second after the messages change, titled by the first message', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    stubFetch({ ...PROVIDERS, 'POST /api/openai/chat': () => streamed(['Answer']) });
    renderChat();
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    expect(screen.getByText('No chat history yet')).toBeInTheDocument();
    const long = 'Please explain robotic process automation in detail for me';
    await user.type(messageBox(), `${long}{Enter}`);
    await within(log()).findByText('Answer');
    vi.advanceTimersByTime(0);
    // Time may have advanced while typing; what counts is nothing before the last change + 1 s.
    expect(localStorage.getItem(sessionsKey('openai'))).toBeNull();
    act(() => vi.advanceTimersByTime(1000));
    const [entry] = loadHistory('openai');
    expect(entry).toMatchObject({ title: `${long.slice(0, 47)}...`, model: 'gpt-4o', aiService: 'openai' });
    expect(entry!.id).toMatch(/^chat-\d+-[a-z0-9]+$/);
    expect(loadSession('openai', entry!.id)!.messages.map((m) => m.content)).toEqual([long, 'Answer']);
    const sidebar = screen.getByRole('complementary', { name: 'Chat history' });
    expect(within(sidebar).getByText(`${long.slice(0, 47)}...`)).toBeInTheDocument();
    expect(screen.queryByText('No chat history yet')).not.toBeInTheDocument();
  });

  it('New Chat clears the messages and resets the model; a saved chat restores its messages and model', async () => {
    saveSession('openai', {
      id: 'chat-1-abc',
      title: 'Old question',
      model: 'o3',
      timestamp: new Date().toISOString(),
      messages: [
        { id: 'u', role: 'user', content: 'Old question', timestamp: new Date().toISOString() },
        { id: 'a', role: 'assistant', content: 'Old answer', timestamp: new Date().toISOString(), model: 'o3' },
      ],
    });
    stubFetch(PROVIDERS);
    renderChat();
    const user = userEvent.setup();
    const sidebar = screen.getByRole('complementary', { name: 'Chat history' });
    await user.click(within(sidebar).getByRole('button', { name: /^Old question/ }));
    expect(within(log()).getByText('Old answer')).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Model' })).toHaveValue('o3');
    expect(within(sidebar).getByRole('button', { name: /^Old question/ })).toHaveAttribute('aria-current', 'true');

    await user.click(within(sidebar).getByRole('button', { name: 'New Chat' }));
    expect(within(log()).queryByText('Old answer')).not.toBeInTheDocument();
    expect(screen.getByText('Start a conversation')).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Model' })).toHaveValue('gpt-4o');
  });

  it('deleting the open chat starts a new chat', async () => {
    const now = new Date().toISOString();
    for (const id of ['chat-1-a', 'chat-2-b']) {
      saveSession('openai', { id, title: id, model: 'gpt-4.1', timestamp: now, messages: [{ id: 'u', role: 'user', content: `text of ${id}`, timestamp: now }] });
    }
    stubFetch(PROVIDERS);
    renderChat();
    const user = userEvent.setup();
    const sidebar = screen.getByRole('complementary', { name: 'Chat history' });
    await user.click(within(sidebar).getByRole('button', { name: /^chat-1-a/ }));
    expect(within(log()).getByText('text of chat-1-a')).toBeInTheDocument();

    await user.click(within(sidebar).getByRole('button', { name: 'Delete chat: chat-2-b' }));
    expect(within(log()).getByText('text of chat-1-a')).toBeInTheDocument();

    await user.click(within(sidebar).getByRole('button', { name: 'Delete chat: chat-1-a' }));
    expect(within(log()).queryByText('text of chat-1-a')).not.toBeInTheDocument();
    expect(screen.getByText('Start a conversation')).toBeInTheDocument();
    expect(screen.getByText('No chat history yet')).toBeInTheDocument();
    expect(localStorage.getItem(historyKey('openai'))).toBe('[]');
  });

  it('a storage failure is only logged', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    localStorage.setItem(historyKey('openai'), '{corrupt');
    stubFetch(PROVIDERS);
    renderChat();
    expect(screen.getByText('No chat history yet')).toBeInTheDocument();
    expect(error).toHaveBeenCalledWith('Could not read saved chats (chat-history-openai):', expect.any(SyntaxError));
  });

  it('the history toggle controls the sidebar', async () => {
    stubFetch(PROVIDERS);
    renderChat();
    const user = userEvent.setup();
    const toggle = screen.getByRole('button', { name: 'Show chat history' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    expect(within(screen.getByRole('complementary', { name: 'Chat history' })).getByRole('button', { name: 'New Chat' })).toHaveFocus();
    await user.keyboard('{Escape}');
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(toggle).toHaveFocus();
  });
});
