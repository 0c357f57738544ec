/**
 * Token estimates for the budget: what a request is reserved before the provider says what it
 * used, and what a call that ended without a usage report is charged.
 *
 * Providers bill English-like ASCII text at roughly 4 characters a token. Other scripts cost
 * far more per character (a CJK character is often 1-2 tokens, an emoji 2-3), so counting
 * characters / 4 would undercount them up to 8 times and let a user spend past the budget.
 * Non-ASCII text is counted at one token per 2 UTF-8 bytes instead: 1.5 per CJK character,
 * 1 per Cyrillic or accented letter, 2 per emoji.
 */
export function estimateTextTokens(text: string): number {
  let ascii = 0;
  let otherBytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) ascii++;
    else if (code < 0x800) otherBytes += 2;
    // A surrogate pair (an emoji) is 4 UTF-8 bytes: 2 for each half.
    else if (code >= 0xd800 && code <= 0xdfff) otherBytes += 2;
    else otherBytes += 3;
  }
  return Math.ceil(ascii / 4) + Math.ceil(otherBytes / 2);
}

/** Each message also carries its role and separators in the provider's prompt format. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

export function estimateInputTokens(messages: ReadonlyArray<{ content: string }>): number {
  return messages.reduce((sum, m) => sum + MESSAGE_OVERHEAD_TOKENS + estimateTextTokens(m.content), 0);
}

/**
 * What one image in a question costs each provider, by its size in pixels (docs/decisions/0055),
 * from the providers' published rules, rounded up where they leave room:
 * - OpenAI (GPT-4o, GPT-4.1, o3, o4-mini at the default detail): fitted within 2048 x 2048, the
 *   short side scaled to 768, then 170 tokens per 512-pixel tile plus 85.
 * - Anthropic: about width x height / 750 once the image is within 1568 pixels a side and
 *   about 1.2 megapixels (1092 x 1092; it scales larger ones down), at most ~1,600.
 * - Gemini: 258 tokens for an image within 384 x 384, else 258 per 768 x 768 tile.
 * - xAI publishes no rule: 1,800, more than any size costs the others.
 * - Ollama (vision models such as llama3.2-vision): 1,601, the four tiles and a summary token.
 * DeepSeek reads no images.
 */
export function estimateImageTokens(provider: string, width: number, height: number): number {
  switch (provider) {
    case 'openai': {
      let w = width;
      let h = height;
      const fit = Math.min(1, 2048 / Math.max(w, h));
      w *= fit;
      h *= fit;
      const short = Math.min(1, 768 / Math.min(w, h));
      w *= short;
      h *= short;
      return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
    }
    case 'anthropic': {
      const scale = Math.min(1, 1568 / Math.max(width, height), Math.sqrt(1_200_000 / (width * height)));
      return Math.ceil((width * scale * (height * scale)) / 750);
    }
    case 'gemini':
      return width <= 384 && height <= 384 ? 258 : 258 * Math.ceil(width / 768) * Math.ceil(height / 768);
    case 'llama':
      return 1_601;
    default:
      return 1_800;
  }
}
