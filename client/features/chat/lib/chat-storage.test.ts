import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  MAX_SESSIONS,
  deleteSession,
  historyKey,
  historyTitle,
  loadHistory,
  loadSession,
  newChatId,
  relativeDateLabel,
  saveSession,
  sessionTitle,
  sessionsKey,
  type ChatMessage,
  type ChatSession,
} from './chat-storage.ts';

const user = (content: string): ChatMessage => ({ id: content, role: 'user', content, timestamp: '2025-06-01T10:00:00.000Z' });
const assistant = (content: string): ChatMessage => ({ id: `a-${content}`, role: 'assistant', content, timestamp: '2025-06-01T10:00:01.000Z', model: 'gpt-4o' });
const session = (i: number, overrides: Partial<ChatSession> = {}): ChatSession => ({
  id: `chat-${i}`,
  messages: [user(`question ${i}`)],
  title: `question ${i}`,
  model: 'gpt-4o',
  timestamp: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(),
  ...overrides,
});

beforeEach(() => localStorage.clear());
afterEach(() => vi.restoreAllMocks());

describe('titles', () => {
  it('is the first user message, trimmed; New Chat without one', () => {
    expect(sessionTitle([])).toBe('New Chat');
    expect(sessionTitle([assistant('hello')])).toBe('New Chat');
    expect(sessionTitle([assistant('hi'), user('  What is RPA?  '), user('second')])).toBe('What is RPA?');
  });

  it('keeps 50 characters whole and cuts longer ones to 47 plus ...', () => {
    const fifty = 'x'.repeat(50);
    expect(sessionTitle([user(fifty)])).toBe(fifty);
    const long = `${'a'.repeat(47)}bcdefgh`;
    expect(sessionTitle([user(long)])).toBe(`${'a'.repeat(47)}...`);
    expect(sessionTitle([user(long)])).toHaveLength(50);
  });

  it('cuts a history title to 50 characters', () => {
    expect(historyTitle('y'.repeat(80))).toBe('y'.repeat(50));
  });

  it("makes ids 'chat-' + milliseconds + a random suffix", () => {
    expect(newChatId(1700000000000)).toMatch(/^chat-1700000000000-[a-z0-9]+$/);
    expect(newChatId()).not.toBe(newChatId());
  });
});

describe('relativeDateLabel', () => {
  // Instants in UTC and days read in a named zone: nothing depends on the machine's zone.
  const now = new Date('2025-06-10T06:30:00.000Z'); // Jun 10, 15:30 in Tokyo; Jun 10, 02:30 in New York
  it('shows the time of day today, 24-hour and named', () => {
    expect(relativeDateLabel('2025-06-10T00:05:00.000Z', now, 'Asia/Tokyo')).toBe('09:05 GMT+9');
    expect(relativeDateLabel('2025-06-10T00:05:00.000Z', now, 'America/New_York')).toBe('Yesterday');
  });
  it("says 'Yesterday' for the previous calendar day of the zone, even under 24 hours ago", () => {
    expect(relativeDateLabel('2025-06-09T14:59:00.000Z', now, 'Asia/Tokyo')).toBe('Yesterday'); // Jun 9, 23:59 there
    expect(relativeDateLabel('2025-06-08T16:00:00.000Z', now, 'Asia/Tokyo')).toBe('Yesterday'); // Jun 9, 01:00 there
  });
  it("says '{n} days ago' under a week, then SPEC's full date", () => {
    expect(relativeDateLabel('2025-06-08T03:00:00.000Z', now, 'Asia/Tokyo')).toBe('2 days ago');
    expect(relativeDateLabel('2025-06-04T03:00:00.000Z', now, 'Asia/Tokyo')).toBe('6 days ago');
    expect(relativeDateLabel('2025-06-03T03:00:00.000Z', now, 'Asia/Tokyo')).toBe('Jun 3, 2025');
  });
});

describe('saved chats', () => {
  it('saves under chat-sessions-{service} and chat-history-{service}, newest first', () => {
    saveSession('openai', session(1));
    saveSession('openai', session(2));
    expect(JSON.parse(localStorage.getItem(sessionsKey('openai'))!)).toHaveLength(2);
    const history = loadHistory('openai');
    expect(history.map((h) => h.id)).toEqual(['chat-2', 'chat-1']);
    expect(history[0]).toEqual({ id: 'chat-2', title: 'question 2', timestamp: session(2).timestamp, model: 'gpt-4o', aiService: 'openai' });
    expect(localStorage.getItem(historyKey('claude'))).toBeNull();
    expect(loadSession('openai', 'chat-1')).toEqual(session(1));
  });

  it('replaces a session saved again instead of adding it', () => {
    saveSession('openai', session(1));
    const history = saveSession('openai', session(1, { messages: [user('question 1'), assistant('answer')], timestamp: '2025-02-01T00:00:00.000Z' }));
    expect(history).toHaveLength(1);
    expect(loadSession('openai', 'chat-1')!.messages).toHaveLength(2);
  });

  it('keeps the 50 most recent sessions', () => {
    for (let i = 0; i < MAX_SESSIONS + 5; i++) saveSession('gemini', session(i));
    const history = loadHistory('gemini');
    expect(history).toHaveLength(50);
    expect(JSON.parse(localStorage.getItem(sessionsKey('gemini'))!)).toHaveLength(50);
    expect(history[0]!.id).toBe('chat-54');
    expect(history.at(-1)!.id).toBe('chat-5');
    expect(loadSession('gemini', 'chat-4')).toBeNull();
  });

  it('cuts the history title to 50 characters', () => {
    saveSession('grok', session(1, { title: 'z'.repeat(60) }));
    expect(loadHistory('grok')[0]!.title).toBe('z'.repeat(50));
  });

  it('does not keep data: images (too large) but says how many were left out', () => {
    const image: ChatMessage = { ...assistant(''), images: ['data:image/png;base64,AAAA', 'https://img.example/x.png'] };
    saveSession('grok', session(1, { messages: [user('draw'), image] }));
    const saved = loadSession('grok', 'chat-1')!.messages[1]!;
    expect(saved.images).toEqual(['https://img.example/x.png']);
    expect(saved.imagesNotKept).toBe(1);
  });

  it('deletes a session and its history entry', () => {
    saveSession('openai', session(1));
    saveSession('openai', session(2));
    expect(deleteSession('openai', 'chat-1').map((h) => h.id)).toEqual(['chat-2']);
    expect(loadSession('openai', 'chat-1')).toBeNull();
  });

  it('only logs storage failures: a corrupt value reads as empty, a failed write does not throw', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    localStorage.setItem(historyKey('openai'), '{not json');
    expect(loadHistory('openai')).toEqual([]);
    expect(error).toHaveBeenCalledTimes(1);

    const setItem = vi.spyOn(localStorage, 'setItem').mockImplementation(() => {
      throw new DOMException('Quota exceeded', 'QuotaExceededError');
    });
    try {
      expect(() => saveSession('claude', session(1))).not.toThrow();
      expect(() => deleteSession('claude', 'chat-1')).not.toThrow();
      expect(error).toHaveBeenCalledTimes(5);
    } finally {
      setItem.mockRestore();
    }
    const getItem = vi.spyOn(localStorage, 'getItem').mockImplementation(() => {
      throw new DOMException('Denied', 'SecurityError');
    });
    try {
      expect(loadSession('claude', 'chat-1')).toBeNull();
      expect(error).toHaveBeenCalledTimes(6);
    } finally {
      getItem.mockRestore();
    }
    localStorage.setItem('probe', '1');
    expect(localStorage.getItem('probe')).toBe('1');
  });
});
