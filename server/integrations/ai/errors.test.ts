import { APICallError, RetryError } from 'ai';
import { describe, expect, it } from 'vitest';
import { classifyProviderError, userMessage } from './errors.ts';

const apiError = (statusCode: number | undefined, message = 'x') =>
  new APICallError({ message, url: 'https://api.example.com/v1/x?key=secret', requestBodyValues: {}, statusCode, isRetryable: false });

describe('classifyProviderError', () => {
  it.each([
    [401, 'auth'],
    [403, 'auth'],
    [429, 'rate_limited'],
    [500, 'unavailable'],
    [529, 'unavailable'],
    [undefined, 'unavailable'],
    [200, 'unavailable'], // the body broke off mid-answer
    [400, 'failed'],
  ] as const)('sorts status %s as %s', (status, kind) => {
    expect(classifyProviderError(apiError(status)).kind).toBe(kind);
  });

  it.each([
    [400, 'API key not valid. Please pass a valid API key.', 'auth'], // Gemini
    [400, 'Client specified an invalid argument: Incorrect API key provided: xa***01.', 'auth'], // xAI
    [429, 'You exceeded your current quota, please check your plan and billing details. (insufficient_quota)', 'quota'], // OpenAI
    [402, 'Insufficient Balance', 'quota'], // DeepSeek
    [400, 'Your credit balance is too low to access the Anthropic API.', 'quota'],
    [404, 'The model `gpt-9` does not exist or you do not have access to it.', 'model_unavailable'],
    [400, 'Model Not Exist', 'model_unavailable'], // DeepSeek
    [400, 'max_tokens: Field required', 'failed'],
  ] as const)('reads the provider’s words where the status is not enough: %s %s', (status, message, kind) => {
    expect(classifyProviderError(apiError(status, message)).kind).toBe(kind);
  });

  it('unwraps retries and recognises dropped connections and overload inside a stream', () => {
    const retry = new RetryError({ message: 'r', reason: 'maxRetriesExceeded', errors: [apiError(429)] });
    expect(classifyProviderError(retry).kind).toBe('rate_limited');
    expect(classifyProviderError(new TypeError('terminated')).kind).toBe('unavailable');
    expect(classifyProviderError(Object.assign(new Error('connect'), { cause: { code: 'ECONNRESET' } })).kind).toBe('unavailable');
    expect(classifyProviderError(Object.assign(new Error('connect'), { cause: { code: 'ECONNREFUSED' } })).kind).toBe('unreachable');
    expect(classifyProviderError(new Error('Overloaded')).kind).toBe('unavailable');
  });

  it('keeps keys and query strings out of the log cause', () => {
    const { logCause } = classifyProviderError(apiError(401, 'Incorrect API key provided: sk-proj-abcdefghijklmnopqrstuvwxyz012345.'));
    expect(JSON.stringify(logCause)).not.toContain('abcdefghijklmnop');
    expect(JSON.stringify(logCause)).not.toContain('secret');
    expect(logCause).toMatchObject({ status: 401, url: 'https://api.example.com/v1/x' });
  });

  it('words each kind for the user', () => {
    expect(userMessage('timeout', 'Claude', 30_000)).toBe('Claude did not answer within 30 seconds');
    expect(userMessage('auth', 'GPT', 30_000)).toBe('The GPT API key was rejected');
  });
});
