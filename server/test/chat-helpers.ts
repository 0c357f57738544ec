import { asc } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import type { TChatImageType, TChatProvider, TChatStreamEvent } from '../../contracts/chat.ts';
import { SAMPLE_IMAGES } from '../../tests/fakes/sample-images.ts';
import { chatUsage } from '../db/schema.ts';
import type { TestApp } from './test-app.ts';

/** One model per provider for the tests (each on its allowlist). */
export const TEST_MODELS: Record<TChatProvider, string> = {
  openai: 'gpt-4o',
  anthropic: 'claude-sonnet-4-5',
  gemini: 'gemini-2.5-flash',
  grok: 'grok-4',
  deepseek: 'deepseek-chat',
  llama: 'llama3.1',
};

export const ENDPOINT = (provider: TChatProvider) => `/api/${provider}/chat`;

export function chatBody(provider: TChatProvider, text = 'hello there', model = TEST_MODELS[provider]) {
  return { model, messages: [{ role: 'user', content: text }] };
}

/** Parses an event-stream body into its events, in order. */
export function parseEvents(body: string): TChatStreamEvent[] {
  return body
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const event = /^event: (.+)$/m.exec(block)?.[1];
      const data = /^data: (.+)$/m.exec(block)?.[1];
      return { event, data: JSON.parse(data ?? 'null') } as TChatStreamEvent;
    });
}

export async function chat(
  t: TestApp,
  cookie: string,
  provider: TChatProvider,
  options: { stream?: boolean; body?: unknown } = {},
): Promise<LightMyRequestResponse> {
  return t.request({
    method: 'POST',
    url: ENDPOINT(provider),
    cookie,
    payload: (options.body ?? chatBody(provider)) as Record<string, unknown>,
    headers: options.stream ? { accept: 'text/event-stream' } : {},
  });
}

export async function usageRows(t: TestApp) {
  return t.database.db.select().from(chatUsage).orderBy(asc(chatUsage.createdAt));
}

let chats = 0;
/** A chat id no other test uses (SPEC's 'chat-' + time + suffix). */
export const newTestChatId = () => `chat-${Date.now()}-t${(++chats).toString(36)}`;

/** A valid saved conversation: one question and its answer. */
export function conversationBody(id = newTestChatId()) {
  return {
    id,
    provider: 'openai',
    title: 'Hello there',
    model: 'gpt-4o',
    leafId: 'a1',
    updatedAt: '2025-05-01T10:02:00.000Z',
    messages: [
      { id: 'q1', parentId: null, role: 'user', content: 'Hello there', timestamp: '2025-05-01T10:00:00.000Z' },
      { id: 'a1', parentId: 'q1', role: 'assistant', content: 'Reply to: Hello there', timestamp: '2025-05-01T10:01:00.000Z', model: 'gpt-4o' },
    ] as Array<Record<string, string | null>>,
  };
}

/** A valid image upload: a real 1x1 PNG. */
export const imageBody = (kind: keyof typeof SAMPLE_IMAGES = 'png', type: TChatImageType = `image/${kind === 'webpLossless' || kind === 'webpAlpha' ? 'webp' : kind}` as TChatImageType) => ({
  type,
  data: SAMPLE_IMAGES[kind],
});

/** Uploads an image as the user; its id. */
export async function uploadImage(t: TestApp, cookie: string, body: object = imageBody()): Promise<string> {
  const res = await t.request({ method: 'POST', url: '/api/chat/images', cookie, payload: body });
  if (res.statusCode !== 201) throw new Error(`upload: ${res.statusCode} ${res.body}`);
  return res.json<{ id: string }>().id;
}

let presets = 0;
export const presetBody = () => ({ name: `Preset ${++presets}`, systemPrompt: 'Answer briefly.', temperature: 0.5 });
