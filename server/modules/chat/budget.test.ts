import { describe, expect, it } from 'vitest';
import { decide, MIN_ANSWER_TOKENS, refusalMessage, type BudgetLimits } from './budget.ts';

const totals = (spentTokens = 0, reservedTokens = 0, spentImages = 0, reservedImages = 0) => ({ spentTokens, reservedTokens, spentImages, reservedImages });
const limits: BudgetLimits = { tokens: 1_000, images: 2 };
const text = (inputTokens: number, maxOutputTokens = 500) => ({ kind: 'text' as const, inputTokens, maxOutputTokens });

describe('decide', () => {
  it('reserves the input plus min(the maximum output, what is left after the input)', () => {
    expect(decide(limits, totals(), text(100))).toEqual({ ok: true, tokens: 600, images: 0, maxOutputTokens: 500 });
    expect(decide(limits, totals(300, 200), text(100))).toEqual({ ok: true, tokens: 500, images: 0, maxOutputTokens: 400 });
    expect(decide(limits, totals(0, 0), text(1_000 - MIN_ANSWER_TOKENS))).toMatchObject({ ok: true, maxOutputTokens: MIN_ANSWER_TOKENS });
  });

  it('never grants more than is left, however the ask is split', () => {
    let reserved = 0;
    for (let i = 0; i < 50; i++) {
      const d = decide(limits, totals(0, reserved), text(37, 200));
      if (d.ok) reserved += d.tokens;
    }
    expect(reserved).toBeLessThanOrEqual(limits.tokens);
    expect(reserved).toBeGreaterThan(limits.tokens - 37 - MIN_ANSWER_TOKENS);
  });

  it('says why it refuses: used up, too large for what is left, or held by calls in flight', () => {
    expect(decide(limits, totals(1_000), text(1))).toMatchObject({ ok: false, reason: 'tokens_used_up' });
    expect(decide(limits, totals(990), text(1))).toMatchObject({ ok: false, reason: 'tokens_used_up' });
    expect(decide(limits, totals(500), text(600))).toEqual({ ok: false, reason: 'input_too_large', limit: 1_000, left: 500, needed: 600 });
    expect(decide(limits, totals(0), text(2_000))).toMatchObject({ ok: false, reason: 'input_too_large', left: 1_000 });
    expect(decide(limits, totals(100, 800), text(200))).toEqual({ ok: false, reason: 'tokens_held', limit: 1_000, left: 100, needed: 200 });
  });

  it('treats 0 as unlimited and passes the maximum output on', () => {
    expect(decide({ tokens: 0, images: 0 }, totals(1e9, 1e9, 1e6, 1e6), text(1e6, 300))).toEqual({ ok: true, tokens: 0, images: 0, maxOutputTokens: 300 });
    expect(decide({ tokens: 0, images: 0 }, totals(0, 0, 1e6, 1e6), { kind: 'image' })).toMatchObject({ ok: true, images: 1 });
  });

  it('counts images on their own quota', () => {
    expect(decide(limits, totals(1_000), { kind: 'image' })).toEqual({ ok: true, tokens: 0, images: 1, maxOutputTokens: null });
    expect(decide(limits, totals(0, 0, 1, 1), { kind: 'image' })).toMatchObject({ ok: false, reason: 'images_held' });
    expect(decide(limits, totals(0, 0, 2, 0), { kind: 'image' })).toMatchObject({ ok: false, reason: 'images_used_up', limit: 2 });
  });
});

describe('refusalMessage', () => {
  const at = new Date('2026-03-01T21:30:00Z');

  it('names the budget, what is left and the reset at 00:00 UTC, with Retry-After until then', () => {
    expect(refusalMessage({ ok: false, reason: 'input_too_large', limit: 200_000, left: 12_345, needed: 250_000 }, at)).toEqual({
      message:
        'This conversation needs about 250,000 tokens, but only 12,345 of your daily AI budget of 200,000 tokens are left. Start a new chat or send less text. It resets at 00:00 UTC (in 2 h 30 min).',
      retryAfterSeconds: 9_000,
    });
    expect(refusalMessage({ ok: false, reason: 'tokens_used_up', limit: 60, left: 0, needed: 5 }, at).message).toBe(
      'Your daily AI budget of 60 tokens is used up. It resets at 00:00 UTC (in 2 h 30 min).',
    );
    expect(refusalMessage({ ok: false, reason: 'images_used_up', limit: 10, left: 0, needed: 1 }, at)).toEqual({
      message: 'Your daily image budget of 10 images is used up. It resets at 00:00 UTC (in 2 h 30 min).',
      retryAfterSeconds: 9_000,
    });
    expect(refusalMessage({ ok: false, reason: 'images_used_up', limit: 1, left: 0, needed: 1 }, at).message).toMatch(/^Your daily image budget of 1 image is used up\./);
  });

  it('asks to retry soon when the user’s own calls in flight hold the budget', () => {
    const held = refusalMessage({ ok: false, reason: 'tokens_held', limit: 1_000, left: 100, needed: 200 }, at);
    expect(held.retryAfterSeconds).toBe(10);
    expect(held.message).toBe(
      'Your answers still in progress hold the rest of your daily AI budget of 1,000 tokens (100 left, this conversation needs about 200). Try again when they finish. It resets at 00:00 UTC (in 2 h 30 min).',
    );
  });
});
