import { describe, expect, it } from 'vitest';
import { DELIVERY_FAILURES } from '../../../contracts/channels.ts';
import { judge } from './send-to-channel.ts';

const NOW = new Date('2026-11-27T10:00:00.000Z');
const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
  status,
  headers,
  body: typeof body === 'string' ? body : JSON.stringify(body),
  truncated: false,
});

describe("judging a receiver's answer (docs/decisions/0062)", () => {
  it("takes the longest wait a Discord 429 names: its docs' resource limit says 1337 s in Retry-After", () => {
    // The example of Discord's rate-limits page: the bucket resets in 64.57 s, the resource in 1336.57.
    const outcome = judge('discord', answer(429, { message: 'The resource is being rate limited.', retry_after: 1336.57, global: false }, { 'retry-after': '1337', 'x-ratelimit-reset-after': '64.57', 'x-ratelimit-scope': 'shared' }), NOW);
    expect(outcome).toMatchObject({ ok: false, retryable: true, retryAfterSeconds: 1337, error: DELIVERY_FAILURES['rate-limited'] });
    // Its body alone (a proxy dropped the headers) is enough.
    expect(judge('discord', answer(429, { message: 'You are being rate limited.', retry_after: 64.57, global: true }), NOW)).toMatchObject({ retryAfterSeconds: 64.57 });
  });

  it('reads Retry-After as seconds or as an HTTP date, from any receiver', () => {
    expect(judge('slack', answer(429, 'rate_limited', { 'retry-after': '30' }), NOW)).toMatchObject({ retryable: true, retryAfterSeconds: 30 });
    expect(judge('webhook', answer(503, '', { 'retry-after': 'Fri, 27 Nov 2026 10:02:00 GMT' }), NOW)).toMatchObject({ retryable: true, retryAfterSeconds: 120, error: DELIVERY_FAILURES['receiver-error'] });
    expect(judge('webhook', answer(503, '', { 'retry-after': 'soon' }), NOW)).not.toHaveProperty('retryAfterSeconds');
    expect(judge('webhook', answer(429, ''), NOW)).not.toHaveProperty('retryAfterSeconds');
  });

  it("reads Telegram's flood wait and a supergroup's new chat id from `parameters`", () => {
    const flood = judge('telegram', answer(429, { ok: false, error_code: 429, description: 'Too Many Requests: retry after 3000', parameters: { retry_after: 3000 } }), NOW);
    expect(flood).toMatchObject({ ok: false, retryable: true, retryAfterSeconds: 3000 });
    const moved = judge('telegram', answer(400, { ok: false, error_code: 400, description: 'Bad Request: group chat was upgraded to a supergroup chat', parameters: { migrate_to_chat_id: -1001234567890123 } }), NOW);
    expect(moved).toMatchObject({ ok: false, retryable: false, movedTo: '-1001234567890123' });
    // Anything but a chat id is not followed.
    expect(judge('telegram', answer(400, { ok: false, error_code: 400, description: 'Bad Request: x', parameters: { migrate_to_chat_id: 'https://x' } }), NOW)).not.toHaveProperty('movedTo');
  });

  it("gives an undocumented refusal the status's sentence", () => {
    expect(judge('slack', answer(404, 'something_new'), NOW)).toMatchObject({ error: DELIVERY_FAILURES.gone, retryable: false, detail: { status: 404, code: 'something_new' } });
    expect(judge('discord', answer(403, { message: 'Missing Permissions', code: 50013 }), NOW)).toMatchObject({ error: DELIVERY_FAILURES.refused });
    expect(judge('telegram', answer(400, { ok: false, error_code: 400, description: 'Bad Request: message is too long' }), NOW)).toMatchObject({ error: DELIVERY_FAILURES.refused });
    expect(judge('telegram', answer(200, { ok: true, result: {} }), NOW)).toEqual({ ok: true });
  });
});
