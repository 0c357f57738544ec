import { describe, expect, it } from 'vitest';
import { ApiError, errorMessage } from './api-client.ts';

describe('errorMessage', () => {
  const refused = new ApiError('400: Bad Request', 400, { error: 'Bad Request', message: 'Cannot remove the last admin' });

  it("prefers the server's own sentence", () => {
    expect(errorMessage(refused)).toBe('Cannot remove the last admin');
  });

  it("gives the error's message as thrown on SPEC's screens", () => {
    expect(errorMessage(refused, 'Failed to sign in', { serverWords: false })).toBe('400: Bad Request');
  });

  it('falls back when there is no message', () => {
    expect(errorMessage(new Error(''), 'Failed to log out', { serverWords: false })).toBe('Failed to log out');
    expect(errorMessage('not an error')).toBe('Please try again.');
    expect(errorMessage(new ApiError('403: Forbidden', 403, { error: 'Forbidden' }))).toBe('403: Forbidden');
  });
});
