import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CONTINUE_PROMPT, type TChatRequest } from '../../../../contracts/chat.ts';
import { fakeChatHistory } from '../../../test/fake-chat-history.ts';
import { stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import ChatScreen from './chat-screen.tsx';

// How an answer ended (issue 29 item 1, docs/decisions/0061): an answer cut short never looks
// complete. The server says how each answer ended; the screen shows why one is not whole, offers
// Continue after the length limit and Retry after a lost connection, and keeps both on reload.

const USER_ID = '00000000-0000-4000-8000-000000000001';
const PROVIDERS = { 'GET /api/chat/providers': { body: { providers: [] } } };
const at = (minute: number) => new Date(Date.UTC(2025, 5, 1, 9, minute)).toISOString();
const LENGTH_NOTE = 'The answer was cut short: it reached its length limit of 8,192 tokens.';

/** An event stream of these events, whole. */
const events = (...list: Array<[string, unknown]>) =>
  new Response(list.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join(''), { headers: { 'content-type': 'text/event-stream' } });
const answer = (text: string) => events(['delta', { text }], ['done', { model: 'gpt-4o', finish: 'complete' }]);
const cutAtLength = () => events(['delta', { text: 'Step one: open the ledger. Step two' }], ['done', { model: 'gpt-4o', finish: 'length', note: LENGTH_NOTE }]);

const renderChat = () => renderWithProviders(<ChatScreen provider="openai" />, { auth: signedInAs('admin', { id: USER_ID }), path: '/chat-console' });
const log = () => screen.getByRole('log', { name: 'Messages' });
const messageBox = () => screen.getByRole('textbox', { name: /^Message / });
const posted = (requests: Array<{ url: string; body: unknown }>) => requests.filter((r) => r.url === '/api/openai/chat').map((r) => r.body as TChatRequest);

beforeEach(() => localStorage.clear());
afterEach(() => {
  vi.restoreAllMocks();
});

describe('ChatScreen: how an answer ended', () => {
  it('an answer cut at the length limit says so, and Continue asks the assistant to go on from there', async () => {
    let replies = 0;
    const { requests } = stubFetch({ ...PROVIDERS, 'POST /api/openai/chat': () => (++replies === 1 ? cutAtLength() : answer('Step three: balance it.')) }, fakeChatHistory().handle);
    renderChat();
    const user = userEvent.setup();
    await user.type(messageBox(), 'How do I close the books?{Enter}');

    expect(await within(log()).findByText(LENGTH_NOTE)).toBeInTheDocument();
    expect(within(log()).getByText('Step one: open the ledger. Step two')).toBeInTheDocument();
    expect(within(log()).getByRole('button', { name: 'Retry' })).toBeInTheDocument();
    await user.click(within(log()).getByRole('button', { name: 'Continue' }));

    // A question of its own after the cut answer, which the assistant is sent whole.
    expect(await within(log()).findByText('Step three: balance it.')).toBeInTheDocument();
    expect(within(log()).getByText(CONTINUE_PROMPT)).toBeInTheDocument();
    expect(within(log()).getByText(LENGTH_NOTE)).toBeInTheDocument(); // the cut answer keeps its note
    const [, next] = posted(requests);
    expect(next!.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'How do I close the books?'],
      ['assistant', 'Step one: open the ledger. Step two'],
      ['user', CONTINUE_PROMPT],
    ]);
    // The answer that went on whole offers no Continue.
    expect(within(log()).queryByRole('button', { name: 'Continue' })).not.toBeInTheDocument();
  });

  it('an answer that is only thought shows why it has no text, not an error, and offers Retry rather than Continue', async () => {
    const note = 'The model used its whole length limit of 8,192 tokens thinking and wrote no answer.';
    stubFetch({ ...PROVIDERS, 'POST /api/openai/chat': () => events(['done', { model: 'o3', finish: 'length', note }]) }, fakeChatHistory().handle);
    renderChat();
    const user = userEvent.setup();
    await user.type(messageBox(), 'Prove it{Enter}');
    expect(await within(log()).findByText(note)).toBeInTheDocument();
    expect(within(log()).queryByText(/Sorry, I encountered an error/)).not.toBeInTheDocument();
    expect(within(log()).queryByRole('button', { name: 'Continue' })).not.toBeInTheDocument();
    expect(within(log()).getByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });

  it('an answer whose connection was lost keeps its text with why, and Retry asks the question again', async () => {
    let replies = 0;
    const { requests } = stubFetch({
      ...PROVIDERS,
      'POST /api/openai/chat': () =>
        ++replies === 1
          ? events(['delta', { text: 'Invoices are' }], ['error', { message: 'GPT closed the connection before the answer was complete', partial: true, finish: 'connection-lost' }])
          : answer('Invoices are bills.'),
    }, fakeChatHistory().handle);
    renderChat();
    const user = userEvent.setup();
    await user.type(messageBox(), 'What are invoices?{Enter}');
    expect(await within(log()).findByText('The answer was cut short: GPT closed the connection before the answer was complete')).toBeInTheDocument();
    expect(within(log()).getByText('Invoices are')).toBeInTheDocument();
    expect(within(log()).queryByRole('button', { name: 'Continue' })).not.toBeInTheDocument();

    await user.click(within(log()).getByRole('button', { name: 'Retry' }));
    expect(await within(log()).findByText('Invoices are bills.')).toBeInTheDocument();
    const [, again] = posted(requests);
    expect(again!.messages.map((m) => m.content)).toEqual(['What are invoices?']);
    // The new answer is a version beside the cut one.
    expect(within(log()).getByRole('group', { name: 'Versions of this answer' })).toHaveTextContent('2 / 2');
  });

  it('keeps the note and Continue on an answer opened from the server (a reload, another device)', async () => {
    const server = fakeChatHistory();
    server.seed({
      id: 'chat-7-cut',
      title: 'Close the books',
      messages: [
        { id: 'q', parentId: null, role: 'user', content: 'Close the books', timestamp: at(0) },
        { id: 'a', parentId: 'q', role: 'assistant', content: 'Step one', timestamp: at(1), model: 'gpt-4o', finish: 'length', note: LENGTH_NOTE },
      ],
    });
    stubFetch(PROVIDERS, server.handle);
    renderChat();
    const user = userEvent.setup();
    await user.click(await within(screen.getByRole('complementary', { name: 'Chat history' })).findByRole('button', { name: /^Close the books/ }));
    expect(await within(log()).findByText(LENGTH_NOTE)).toBeInTheDocument();
    expect(within(log()).getByRole('button', { name: 'Continue' })).toBeInTheDocument();
  });

  it('exports a cut answer with its note when the chat is made into a file in the browser', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    // The server cannot take the chat: the file is made here.
    stubFetch({ ...PROVIDERS, 'POST /api/openai/chat': () => cutAtLength() }, (request) =>
      request.url.startsWith('/api/chat/conversations') ? new Response('{"error":"Service Unavailable"}', { status: 503, headers: { 'content-type': 'application/json' } }) : undefined,
    );
    const files: Blob[] = [];
    vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
      files.push(blob as Blob);
      return 'blob:chat';
    });
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    renderChat();
    const user = userEvent.setup();
    await user.type(messageBox(), 'How do I close the books?{Enter}');
    await within(log()).findByText(LENGTH_NOTE);
    await waitFor(() => expect(messageBox()).toBeEnabled());
    await user.click(screen.getByRole('button', { name: 'Chat options' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Export as Markdown' }));
    await waitFor(() => expect(files).toHaveLength(1));
    expect(await files[0]!.text()).toContain(`Step one: open the ledger. Step two\n\n_${LENGTH_NOTE}_\n`);
    await user.click(screen.getByRole('button', { name: 'Chat options' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Export as JSON' }));
    await waitFor(() => expect(files).toHaveLength(2));
    expect(JSON.parse(await files[1]!.text()).messages[1]).toMatchObject({ content: 'Step one: open the ledger. Step two', finish: 'length', note: LENGTH_NOTE });
  });
});
