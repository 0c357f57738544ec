import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import axe from 'axe-core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TSaveConversation } from '../../../../contracts/chat-history.ts';
import { FULL_TEXT_ONLY_NOTE, type TCitation, type TDocument, type TPassageView } from '../../../../contracts/documents.ts';
import { fakeChatHistory } from '../../../test/fake-chat-history.ts';
import { sseStream, stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import ChatScreen from './chat-screen.tsx';
import { linkCitations } from '../lib/citation-links.ts';

// Documents and the web in the chat (issue 32, docs/decisions/0081).

const USER_ID = '00000000-0000-4000-8000-000000000001';
const DOC_ID = '10000000-0000-4000-8000-000000000001';
const PASSAGE_ID = '20000000-0000-4000-8000-000000000001';
const log = () => screen.getByRole('log', { name: 'Messages' });
const messageBox = () => screen.getByRole('textbox', { name: /^Message / });
const renderChat = (saved = false) => renderWithProviders(<ChatScreen provider="openai" />, { auth: signedInAs('admin', saved ? { id: USER_ID } : {}), path: '/chat-console' });

const document = (fields: Partial<TDocument> = {}): TDocument => ({
  id: DOC_ID,
  name: 'terms.pdf',
  type: 'pdf',
  bytes: 1234,
  status: 'ready',
  error: null,
  pages: 3,
  passages: 4,
  embeddingModel: null,
  projectId: null,
  createdAt: '2025-06-01T09:00:00.000Z',
  ...fields,
});
const CITATIONS: TCitation[] = [
  { kind: 'document', n: 1, passageId: PASSAGE_ID, documentId: DOC_ID, fileName: 'terms.pdf', page: 2, sheet: null, heading: 'Payment terms', snippet: 'Invoices unpaid after 30 days cost 2 percent a month.' },
  { kind: 'web', n: 2, url: 'https://example.com/late-fees', title: 'Late fees explained', snippet: 'What late fees are.' },
];
const PASSAGE: TPassageView = {
  id: PASSAGE_ID,
  documentId: DOC_ID,
  fileName: 'terms.pdf',
  page: 2,
  sheet: null,
  heading: 'Payment terms',
  text: 'Invoices unpaid after 30 days cost 2 percent a month.',
  before: 'Payment is due on receipt.',
  after: 'Disputes go to arbitration.',
};

beforeEach(() => localStorage.clear());
afterEach(() => vi.restoreAllMocks());

describe('ChatScreen: documents and sources', () => {
  it('attaches a document, sends it with the question, shows the answer’s [n] as buttons that open the passage, and the note', async () => {
    const server = fakeChatHistory();
    const stream = sseStream();
    const { requests } = stubFetch(
      {
        'GET /api/chat/providers': { body: { providers: [] } },
        'POST /api/documents?name=terms.pdf': { status: 201, body: document() },
        [`GET /api/documents/passages/${PASSAGE_ID}`]: { body: PASSAGE },
        'POST /api/openai/chat': () => stream.response,
      },
      server.handle,
    );
    const { container } = renderChat(true);
    const user = userEvent.setup();
    await user.upload(container.querySelector<HTMLInputElement>('input[type=file][accept*=".pdf"]')!, new File(['%PDF-1.7'], 'terms.pdf', { type: 'application/pdf' }));
    const chips = await screen.findByRole('list', { name: 'Documents for this question' });
    await within(chips).findByText('PDF');
    expect(within(chips).getByText('terms.pdf')).toBeInTheDocument();

    await user.type(messageBox(), 'What if I pay late?{Enter}');
    await waitFor(() => expect(requests.find((r) => r.url === '/api/openai/chat')).toBeDefined());
    const body = requests.find((r) => r.url === '/api/openai/chat')!.body as { messages: Array<{ documents?: string[] }> };
    expect(body.messages.at(-1)!.documents).toEqual([DOC_ID]);
    expect(screen.queryByRole('list', { name: 'Documents for this question' })).toBeNull();
    expect(within(log()).getByRole('list', { name: 'Documents of this question' })).toHaveTextContent('terms.pdf');

    act(() => {
      stream.send('citations', { citations: CITATIONS, retrieval: { mode: 'full-text', noText: [] }, note: FULL_TEXT_ONLY_NOTE });
      stream.send('delta', { text: 'Late invoices cost 2% a month [1], as is usual [2]. See `a[1]` too.' });
      stream.send('done', { model: 'gpt-4o', finish: 'complete' });
      stream.close();
    });
    await within(log()).findByText(FULL_TEXT_ONLY_NOTE);
    const sources = within(log()).getByRole('region', { name: 'Sources' });
    expect(within(sources).getByRole('button', { name: /terms\.pdf, page 2, Payment terms/ })).toBeInTheDocument();
    expect(within(sources).getByRole('button', { name: /Late fees explained/ })).toBeInTheDocument();
    // Code stays as written.
    expect(within(log()).getByText('a[1]')).toBeInTheDocument();

    // [1] in the text opens the passage with its file, page and the text around it.
    await user.click(within(log()).getByRole('button', { name: 'Source 1' }));
    const dialog = await screen.findByRole('dialog', { name: 'Source 1: terms.pdf' });
    expect(dialog).toHaveAccessibleDescription('A passage of your document, page 2, Payment terms.');
    await within(dialog).findByText(PASSAGE.text);
    expect(dialog).toHaveTextContent('Payment is due on receipt.');
    expect(dialog).toHaveTextContent('Disputes go to arbitration.');
    const results = await axe.run(dialog);
    expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    await user.keyboard('{Escape}');

    // [2] opens the web page's title and address, in a new tab without the opener.
    await user.click(within(log()).getByRole('button', { name: 'Source 2' }));
    const web = await screen.findByRole('dialog', { name: 'Source 2: Late fees explained' });
    const link = within(web).getByRole('link', { name: /example\.com\/late-fees/ });
    expect(link).toHaveAttribute('href', 'https://example.com/late-fees');
    expect(link).toHaveAttribute('target', '_blank');
    expect(link).toHaveAttribute('rel', 'noopener noreferrer');
    await user.keyboard('{Escape}');

    // The chat is saved with the question's document and the answer's sources.
    await waitFor(
      () => {
        const saves = requests.filter((r) => r.method === 'POST' && r.url === '/api/chat/conversations').map((r) => r.body as TSaveConversation);
        const messages = saves.flatMap((s) => s.messages);
        expect(messages.find((m) => m.role === 'user')?.documents).toEqual([DOC_ID]);
        expect(messages.find((m) => m.role === 'assistant')?.citations).toEqual(CITATIONS);
      },
      { timeout: 5_000 },
    );
  });

  it('after a reload, shows the answer’s sources with their note and the question’s files by name (a removed one as such), as during the stream', async () => {
    const REMOVED_ID = '10000000-0000-4000-8000-000000000002';
    const server = fakeChatHistory();
    // As the server answers the chat (docs/decisions/0088): the files named from the owner's documents, the note kept with the answer.
    server.seed({
      id: 'chat-1-terms',
      title: 'What if I pay late?',
      messages: [
        {
          id: 'q',
          parentId: null,
          role: 'user',
          content: 'What if I pay late?',
          timestamp: '2025-06-01T09:00:00.000Z',
          documents: [DOC_ID, REMOVED_ID],
          documentFiles: [
            { id: DOC_ID, name: 'terms.pdf', type: 'pdf', status: 'ready' },
            { id: REMOVED_ID, removed: true },
          ],
        },
        {
          id: 'a',
          parentId: 'q',
          role: 'assistant',
          content: 'Late invoices cost 2% a month [1], as is usual [2].',
          timestamp: '2025-06-01T09:01:00.000Z',
          model: 'gpt-4o',
          citations: CITATIONS,
          sourcesNote: FULL_TEXT_ONLY_NOTE,
          retrieval: { mode: 'full-text', noText: [] },
        },
      ],
    });
    stubFetch({ 'GET /api/chat/providers': { body: { providers: [] } } }, server.handle);
    renderChat(true);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: /^What if I pay late\?/ }));
    await within(log()).findByText(FULL_TEXT_ONLY_NOTE);
    const sources = within(log()).getByRole('region', { name: 'Sources' });
    expect(within(sources).getByRole('button', { name: /terms\.pdf, page 2, Payment terms/ })).toBeInTheDocument();
    const files = within(log()).getByRole('list', { name: 'Documents of this question' });
    expect(within(files).getAllByRole('listitem').map((item) => item.textContent)).toEqual(['terms.pdf· PDF', 'Removed file']);
    expect(files).not.toHaveTextContent(/Document \d/);
  });

  it('says when a file has no text to read, and when the server refused one (then the question waits until it is removed)', async () => {
    stubFetch({
      'GET /api/chat/providers': { body: { providers: [] } },
      'POST /api/documents?name=scan.pdf': { status: 201, body: document({ name: 'scan.pdf', status: 'no-text', passages: 0 }) },
      'POST /api/documents?name=fake.pdf': { status: 415, body: { error: 'Unsupported Media Type', message: 'Invalid request', details: [{ path: 'body', message: 'fake.pdf is not a PDF: its bytes are a zip' }] } },
    });
    const { container } = renderChat();
    const user = userEvent.setup();
    const input = container.querySelector<HTMLInputElement>('input[type=file][accept*=".pdf"]')!;
    await user.upload(input, [new File(['x'], 'scan.pdf'), new File(['PK'], 'fake.pdf')]);
    const chips = await screen.findByRole('list', { name: 'Documents for this question' });
    await within(chips).findByText(/No text to read/);
    await within(chips).findByText(/is not a PDF: its bytes are a zip/);
    await user.type(messageBox(), 'Read them');
    expect(screen.getByRole('button', { name: 'Send message' })).toBeDisabled();
    expect(screen.getByText('Remove the files that could not be uploaded, or attach them again.')).toBeInTheDocument();
    await user.click(within(chips).getByRole('button', { name: 'Remove document 2: fake.pdf' }));
    expect(screen.getByRole('button', { name: 'Send message' })).toBeEnabled();
  });

  it('offers Search the web only when the server has an engine; off by default, sent when on, kept with the chat', async () => {
    const server = fakeChatHistory();
    const stream = sseStream();
    const { requests } = stubFetch({ 'GET /api/chat/providers': { body: { providers: [], webSearch: true } }, 'POST /api/openai/chat': () => stream.response }, server.handle);
    renderChat(true);
    const user = userEvent.setup();
    const toggle = await screen.findByRole('switch', { name: 'Search the web' });
    expect(toggle).not.toBeChecked();
    toggle.focus();
    await user.keyboard(' ');
    expect(toggle).toBeChecked();
    await user.type(messageBox(), 'Any news?{Enter}');
    await waitFor(() => expect(requests.find((r) => r.url === '/api/openai/chat')).toBeDefined());
    expect(requests.find((r) => r.url === '/api/openai/chat')!.body).toMatchObject({ webSearch: true });
    act(() => {
      stream.send('done', { model: 'gpt-4o', finish: 'complete', note: 'empty' });
      stream.close();
    });
    await waitFor(() => expect(requests.some((r) => r.method === 'POST' && r.url === '/api/chat/conversations' && (r.body as TSaveConversation).webSearch === true)).toBe(true), { timeout: 5_000 });
  });

  it('has no Search the web switch, and sends no webSearch, when the server has no engine', async () => {
    const stream = sseStream();
    const { requests } = stubFetch({ 'GET /api/chat/providers': { body: { providers: [] } }, 'POST /api/openai/chat': () => stream.response });
    renderChat();
    const user = userEvent.setup();
    await user.type(messageBox(), 'Hello{Enter}');
    await waitFor(() => expect(requests.find((r) => r.url === '/api/openai/chat')).toBeDefined());
    expect(screen.queryByRole('switch', { name: 'Search the web' })).toBeNull();
    expect(requests.find((r) => r.url === '/api/openai/chat')!.body).not.toHaveProperty('webSearch');
  });
});

describe('linkCitations', () => {
  it('links each cited [n] within the sources, leaving code, links, footnotes and numbers past the sources as written', () => {
    expect(linkCitations('A [1] and [2][3], not [9]. `x[1]` and\n```\nlist[1]\n```\n[1](https://a.example) [^1]', 3)).toBe(
      'A [\\[1\\]](#source-1) and [\\[2\\]](#source-2)[\\[3\\]](#source-3), not [9]. `x[1]` and\n```\nlist[1]\n```\n[1](https://a.example) [^1]',
    );
    expect(linkCitations('No sources [1]', 0)).toBe('No sources [1]');
  });
});
