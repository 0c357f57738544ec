import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { stubFetch } from '../test/fetch-stub.ts';
import { ApiError, apiFetch, errorMessage } from './api-client.ts';
import { createQueryClient } from './query-client.ts';

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

describe('apiFetch', () => {
  /** fetch as the browser does it: pending until answered, rejected with the signal's reason on abort. */
  function pendingFetch() {
    const fetchMock = vi.fn(
      (_url: RequestInfo | URL, init: RequestInit = {}) =>
        new Promise<Response>((_resolve, reject) => {
          if (init.signal?.aborted) reject(init.signal.reason);
          init.signal?.addEventListener('abort', () => reject(init.signal!.reason), { once: true });
        }),
    );
    vi.stubGlobal('fetch', fetchMock);
    return fetchMock;
  }

  let logged: MockInstance<typeof console.error>;
  beforeEach(() => {
    logged = vi.spyOn(console, 'error').mockImplementation(() => {});
  });
  afterEach(() => logged.mockRestore());

  it('passes on an abort its caller asked for, and logs nothing: the request was given up, not failed', async () => {
    const fetchMock = pendingFetch();
    const caller = new AbortController();
    const request = apiFetch('GET', '/api/agents', undefined, { signal: caller.signal });
    await vi.waitFor(() => expect(fetchMock).toHaveBeenCalled());
    caller.abort();
    await expect(request).rejects.toMatchObject({ name: 'AbortError' });
    expect(logged).not.toHaveBeenCalled();
  });

  it('logs nothing for a query TanStack Query cancels (a screen left before its answer came)', async () => {
    const fetchMock = pendingFetch();
    const queryClient = createQueryClient();
    const query = queryClient.fetchQuery({ queryKey: ['/api/agents'] });
    await vi.waitFor(() => expect(fetchMock).toHaveBeenCalled());
    await queryClient.cancelQueries({ queryKey: ['/api/agents'] });
    await expect(query).rejects.toThrow();
    expect(fetchMock.mock.calls[0]![1]!.signal!.aborted).toBe(true);
    expect(logged).not.toHaveBeenCalled();
  });

  it('passes on, unlogged, an abort that came before the call', async () => {
    const fetchMock = pendingFetch();
    const caller = new AbortController();
    caller.abort();
    await expect(apiFetch('GET', '/api/agents', undefined, { signal: caller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(fetchMock.mock.calls[0]![1]!.signal!.aborted).toBe(true);
    expect(logged).not.toHaveBeenCalled();
  });

  it('still logs a failed answer, a timeout and a network failure', async () => {
    stubFetch({ 'GET /api/agents': { status: 500, body: { error: 'Internal Server Error' } } });
    await expect(apiFetch('GET', '/api/agents')).rejects.toThrow('500: Internal Server Error');
    expect(logged).toHaveBeenLastCalledWith('GET /api/agents failed:', '500: Internal Server Error');

    pendingFetch();
    await expect(apiFetch('GET', '/api/agents', undefined, { timeoutMs: 5, signal: new AbortController().signal })).rejects.toThrow('Request timeout after 5ms');
    expect(logged).toHaveBeenLastCalledWith('GET /api/agents failed:', 'Request timeout after 5ms');

    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))));
    await expect(apiFetch('GET', '/api/agents')).rejects.toThrow('Failed to fetch');
    expect(logged).toHaveBeenLastCalledWith('GET /api/agents failed:', 'Failed to fetch');
  });
});
