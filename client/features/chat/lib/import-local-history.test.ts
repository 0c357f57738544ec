import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeChatHistory } from '../../../test/fake-chat-history.ts';
import { stubFetch } from '../../../test/fetch-stub.ts';
import { loadSessions, saveSession, type ChatSession } from './chat-storage.ts';
import { importLocalHistory, importMarkerKey } from './import-local-history.ts';

const ME = 'user-me';
const at = (minute: number) => new Date(Date.UTC(2025, 0, 1, 9, minute)).toISOString();
const local = (id: string, text: string, extra: Partial<ChatSession> = {}): ChatSession => ({
  id,
  title: text,
  model: 'gpt-4o',
  timestamp: at(Number(id.split('-')[1])),
  messages: [
    { id: `${id}-q`, role: 'user', content: text, timestamp: at(0) },
    { id: `${id}-a`, role: 'assistant', content: `Answer to ${text}`, timestamp: at(1), model: 'gpt-4o' },
  ],
  ...extra,
});

beforeEach(() => localStorage.clear());
afterEach(() => localStorage.clear());

describe('importLocalHistory', () => {
  it('brings this browser’s chats to the server once: the legacy ones and the user’s own, never another user’s', async () => {
    saveSession('openai', local('chat-1-a', 'Before owners'));
    saveSession('openai', local('chat-2-b', 'Mine', { userId: ME }));
    saveSession('openai', local('chat-3-c', 'Someone else', { userId: 'user-other' }));
    saveSession('grok', local('chat-4-d', 'On Grok'));
    const server = fakeChatHistory();
    const { requests } = stubFetch({}, server.handle);

    expect(await importLocalHistory(ME)).toBe(true);
    expect([...server.chats.values()].map((c) => [c.id, c.provider, c.messages.map((m) => m.parentId)]).sort()).toEqual([
      ['chat-1-a', 'openai', [null, 'chat-1-a-q']],
      ['chat-2-b', 'openai', [null, 'chat-2-b-q']],
      ['chat-4-d', 'grok', [null, 'chat-4-d-q']],
    ]);
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /api/chat/conversations/import']);
    // They are this user's now (a second user of the browser does not take them), and saved.
    expect(loadSessions('openai').map((s) => [s.id, s.userId, s.unsynced ?? false])).toEqual([
      ['chat-3-c', 'user-other', false],
      ['chat-2-b', ME, false],
      ['chat-1-a', ME, false],
    ]);
    expect(localStorage.getItem(importMarkerKey(ME))).not.toBeNull();

    requests.length = 0;
    expect(await importLocalHistory(ME)).toBe(false);
    expect(requests).toEqual([]);
  });

  it('sends a chat too big for one request in parts, then its branch in view', async () => {
    const messages = Array.from({ length: 1_200 }, (_, i) => ({ id: `m${i}`, role: i % 2 ? ('assistant' as const) : ('user' as const), content: `m${i}`, timestamp: at(0) }));
    saveSession('openai', { id: 'chat-9-big', title: 'Big', model: 'gpt-4o', timestamp: at(9), messages });
    const server = fakeChatHistory();
    const { requests } = stubFetch({}, server.handle);
    await importLocalHistory(ME);
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /api/chat/conversations/import',
      'POST /api/chat/conversations/import',
      'POST /api/chat/conversations/import',
      'POST /api/chat/conversations',
    ]);
    expect(server.chats.get('chat-9-big')).toMatchObject({ leafId: 'm1199' });
    expect(server.chats.get('chat-9-big')!.messages).toHaveLength(1_200);
  });

  it('leaves the marker unset when the server refuses, so the next visit tries again', async () => {
    saveSession('openai', local('chat-1-a', 'Before owners'));
    stubFetch({ 'POST /api/chat/conversations/import': { status: 503, body: { error: 'Service Unavailable' } } });
    await expect(importLocalHistory(ME)).rejects.toThrow('503');
    expect(localStorage.getItem(importMarkerKey(ME))).toBeNull();
    expect(loadSessions('openai')[0]).not.toHaveProperty('userId');
  });
});
