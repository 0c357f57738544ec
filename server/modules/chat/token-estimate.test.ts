import { describe, expect, it } from 'vitest';
import { estimateImageTokens, estimateInputTokens, estimateTextTokens, MESSAGE_OVERHEAD_TOKENS } from './token-estimate.ts';

describe('token estimates', () => {
  it('counts ASCII text at 4 characters a token: a 1 MB message is ~262k tokens', () => {
    expect(estimateTextTokens('')).toBe(0);
    expect(estimateTextTokens('abcd')).toBe(1);
    expect(estimateTextTokens('abcde')).toBe(2);
    expect(estimateTextTokens('x'.repeat(1024 * 1024))).toBe(262_144);
  });

  it('does not undercount other scripts: never fewer tokens than characters / 4, far more for CJK and emoji', () => {
    expect(estimateTextTokens('é')).toBe(1); // 2 UTF-8 bytes
    expect(estimateTextTokens('привет')).toBe(6); // Cyrillic: one per letter
    expect(estimateTextTokens('日本語')).toBe(5); // 9 bytes: 1.5 per character
    expect(estimateTextTokens('😀')).toBe(2); // a surrogate pair, 4 bytes
    const cjk = '漢'.repeat(100_000);
    expect(estimateTextTokens(cjk)).toBe(150_000);
    for (const text of ['naïve café', '日本語のテキスト', '😀😀 ok', 'mixed ascii и кириллица']) {
      expect(estimateTextTokens(text)).toBeGreaterThanOrEqual(Math.ceil(text.length / 4));
    }
  });

  it('adds the role and separators of each message', () => {
    expect(estimateInputTokens([{ content: 'abcd' }, { content: 'efgh' }])).toBe(2 + 2 * MESSAGE_OVERHEAD_TOKENS);
  });
});

describe('image token estimates (docs/decisions/0055)', () => {
  it("follows each provider's published rule", () => {
    // OpenAI's own examples: 1024 x 1024 is 765 tokens, 2048 x 4096 is 1105.
    expect(estimateImageTokens('openai', 1024, 1024)).toBe(765);
    expect(estimateImageTokens('openai', 2048, 4096)).toBe(1105);
    expect(estimateImageTokens('openai', 1, 1)).toBe(255);
    // Anthropic: 1092 x 1092 is ~1590; a huge image is scaled down first.
    expect(estimateImageTokens('anthropic', 1092, 1092)).toBe(1590);
    expect(estimateImageTokens('anthropic', 8000, 8000)).toBeLessThanOrEqual(1600);
    expect(estimateImageTokens('gemini', 384, 384)).toBe(258);
    expect(estimateImageTokens('gemini', 1000, 700)).toBe(516);
    expect(estimateImageTokens('grok', 10, 10)).toBe(1800);
    expect(estimateImageTokens('llama', 10, 10)).toBe(1601);
  });
});
