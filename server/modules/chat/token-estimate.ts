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
