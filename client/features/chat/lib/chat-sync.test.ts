import { describe, expect, it } from 'vitest';
import { CHAT_HISTORY_LIMITS } from '../../../../contracts/chat-history.ts';
import type { ChatMessage, ChatSession } from './chat-storage.ts';
import { requestMessages } from '../hooks/use-chat-send.ts';
import { CHAT_VARIANTS } from './chat-variant.ts';
import { mergeSessions, normalizeMessages, saveFields, saveRequests, sessionFromServer, storedMessage } from './chat-sync.ts';

const at = '2025-06-01T10:00:00.000Z';
const msg = (id: string, parentId: string | null | undefined, extra: Partial<ChatMessage> = {}): ChatMessage => ({
  id,
  ...(parentId !== undefined ? { parentId } : {}),
  role: 'user',
  content: id,
  timestamp: at,
  ...extra,
});
const session = (messages: ChatMessage[], extra: Partial<ChatSession> = {}): ChatSession => ({ id: 'chat-1-a', messages, title: 'T', model: 'gpt-4o', timestamp: at, ...extra });

describe('normalizeMessages', () => {
  it('gives a chat saved before versions its chain of parents', () => {
    expect(normalizeMessages([msg('a', undefined), msg('b', undefined), msg('c', undefined)]).map((m) => [m.id, m.parentId])).toEqual([
      ['a', null],
      ['b', 'a'],
      ['c', 'b'],
    ]);
  });

  it('replaces ids the server refuses, the same way every time, and follows them in parents', () => {
    const messages = [msg('has space', undefined), msg('ok', undefined), msg('ok', undefined)];
    const once = normalizeMessages(messages);
    expect(once.map((m) => [m.id, m.parentId])).toEqual([
      ['legacy-0', null],
      ['ok', 'legacy-0'],
      ['legacy-2', 'ok'],
    ]);
    expect(normalizeMessages(messages)).toEqual(once);
  });

  it('leaves a chat with versions as it is', () => {
    const messages = [msg('q', null), msg('a1', 'q'), msg('a2', 'q')];
    expect(normalizeMessages(messages)).toEqual(messages);
  });
});

describe('saveRequests', () => {
  const fields = saveFields('openai', session([]));

  it('sends only what the server lacks, none still streaming, and a streaming leaf as its question', () => {
    const messages = [msg('q', null), msg('a', 'q', { role: 'assistant' }), msg('q2', 'a'), msg('a2', 'q2', { role: 'assistant', streaming: true })];
    const [request, ...more] = saveRequests({ ...fields, leafId: 'a2' }, messages, new Set(['q', 'a']));
    expect(more).toEqual([]);
    expect(request!.messages.map((m) => m.id)).toEqual(['q2']);
    expect(request!.leafId).toBe('q2');
  });

  it('splits a long chat into requests of at most 500 messages, parents first, the leaf with the last', () => {
    const messages = Array.from({ length: 1_100 }, (_, i) => msg(`m${i}`, i === 0 ? null : `m${i - 1}`));
    const requests = saveRequests({ ...fields, leafId: 'm1099' }, messages, new Set());
    expect(requests.map((r) => [r.messages.length, r.messages[0]!.id, r.leafId])).toEqual([
      [500, 'm0', null],
      [500, 'm500', null],
      [100, 'm1000', 'm1099'],
    ]);
  });

  it('counts an answer’s tool steps in a request’s size (issue 31)', () => {
    const step = { id: 's1', tool: 'test_on_history', args: {}, argsText: 'BTC watch', status: 'ok' as const, summary: '2 markets', durationMs: 900, at: 0, detail: { note: 'z'.repeat(350_000) } };
    const messages = [msg('q', null), msg('a', 'q', { role: 'assistant', content: 'Tested.', toolSteps: [step] }), msg('q2', 'a'), msg('a2', 'q2', { role: 'assistant', content: 'Again.', toolSteps: [{ ...step, id: 's2' }] })];
    const requests = saveRequests(fields, messages, new Set());
    expect(requests.map((r) => r.messages.map((m) => m.id))).toEqual([['q', 'a', 'q2'], ['a2']]);
    expect(requests[0]!.messages[1]!.toolSteps).toEqual([step]);
  });

  it('splits by size too, and keeps what the server takes: no data images, long text shortened with a note', () => {
    const big = 'x'.repeat(250_000);
    const messages = [
      msg('q', null),
      msg('a', 'q', { role: 'assistant', content: big, images: ['data:image/png;base64,AAAA'] }),
      msg('b', 'a', { content: 'y'.repeat(500_000) }),
      msg('c', 'b', { role: 'assistant', content: big }),
    ];
    const requests = saveRequests(fields, messages, new Set());
    // Each shortened to 200,000 characters: three fit in one request (well under 1 MB), not four.
    expect(requests.map((r) => r.messages.map((m) => m.id))).toEqual([['q', 'a', 'b'], ['c']]);
    expect(requests[0]!.messages[1]).toMatchObject({ content: 'x'.repeat(200_000), note: '(shortened when saved)', imagesNotKept: 1 });
  });
});

describe('mergeSessions', () => {
  it('keeps every message of both; the server’s branch unless this browser holds changes it has not seen', () => {
    const server = session([msg('q', null), msg('a', 'q')], { leafId: 'a', title: 'Server' });
    const local = session([msg('q', null), msg('x', 'q')], { leafId: 'x', title: 'Local' });
    expect(mergeSessions(server, local)).toMatchObject({ title: 'Server', leafId: 'a', unsynced: true });
    expect(mergeSessions(server, local).messages.map((m) => m.id)).toEqual(['q', 'a', 'x']);
    expect(mergeSessions(server, { ...local, unsynced: true })).toMatchObject({ title: 'Local', leafId: 'x', unsynced: true });
    expect(mergeSessions(server, session([msg('q', null)]))).toMatchObject({ unsynced: false });
    expect(mergeSessions(server, null)).toBe(server);
  });
});

describe('images and answers being written (docs/decisions/0055, 0056)', () => {
  const id = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
  it('saves our stored images by id and counts the others as not kept', () => {
    const message = msg('q', null, { images: [`/api/chat/images/${id(1)}`, 'data:image/png;base64,AAAA', `/api/chat/images/${id(2)}`] });
    expect(storedMessage(message, at)).toMatchObject({ id: 'q', images: [id(1), id(2)], imagesNotKept: 1 });
    expect(storedMessage(msg('p', null), at)).not.toHaveProperty('images');
  });

  it("reads the server's images as our URLs, and an answer still being written as streaming", () => {
    const conversation = {
      id: 'chat-1-a',
      provider: 'openai' as const,
      title: 'T',
      autoTitle: 'T',
      renamed: false,
      answering: true,
      model: 'gpt-4o',
      createdAt: at,
      updatedAt: at,
      leafId: 'a',
      systemPrompt: '',
      temperature: null,
      messages: [
        { id: 'q', parentId: null, role: 'user' as const, content: 'Look', timestamp: at, images: [id(1)] },
        { id: 'a', parentId: 'q', role: 'assistant' as const, content: 'So f', timestamp: at, model: 'gpt-4o', streaming: true as const },
      ],
    };
    expect(sessionFromServer(conversation, undefined).messages).toMatchObject([
      { id: 'q', images: [`/api/chat/images/${id(1)}`] },
      { id: 'a', streaming: true },
    ]);
  });
});

describe('sources and documents (issue 32, docs/decisions/0088)', () => {
  it('saves an answer’s note on its sources, cut to what the server keeps, and never a question’s', () => {
    const note = 'Documents are searched by their words only.';
    expect(storedMessage(msg('a', 'q', { role: 'assistant', sourcesNote: note }), at)).toMatchObject({ sourcesNote: note });
    expect(storedMessage(msg('a', 'q', { role: 'assistant', sourcesNote: 'x'.repeat(CHAT_HISTORY_LIMITS.maxSourcesNoteChars + 10) }), at).sourcesNote).toHaveLength(CHAT_HISTORY_LIMITS.maxSourcesNoteChars);
    expect(storedMessage(msg('q', null, { sourcesNote: note }), at)).not.toHaveProperty('sourcesNote');
  });
});

describe('requestMessages: the images a model is sent', () => {
  const variant = CHAT_VARIANTS.standard;
  const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  const question = (name: string, images: number[]) => msg(name, null, { images: images.map((n) => `/api/chat/images/${id(n)}`) });

  it('sends the questions’ stored images, the newest first, at most 16 in all', () => {
    const conversation = [question('old', [1, 2, 3, 4]), question('older', [5, 6, 7, 8]), question('mid', [9, 10, 11, 12]), question('new', [13, 14, 15, 16]), question('last', [17])];
    const sent = requestMessages(conversation, variant);
    expect(sent.map((m) => m.images?.length ?? 0)).toEqual([3, 4, 4, 4, 1]);
    expect(sent[0]!.images).toEqual([id(1), id(2), id(3)]);
  });

  it('sends none to a model that reads text only, and none of an answer', () => {
    expect(requestMessages([question('q', [1])], variant, false)).toEqual([{ role: 'user', content: 'q' }]);
    expect(requestMessages([msg('a', null, { role: 'assistant', images: [`/api/chat/images/${id(1)}`] })], variant)).toEqual([{ role: 'assistant', content: 'a' }]);
  });
});
