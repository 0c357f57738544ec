import { describe, expect, it, vi } from 'vitest';
import { stubFetch } from '../test/fetch-stub.ts';
import { ApiError } from './api-client.ts';
import { apiList } from './api-list.ts';

describe('apiList', () => {
  it('returns the items and the x-total-count total, with credentials', async () => {
    const { fetchMock } = stubFetch({ 'GET /api/things?limit=2': new Response('[1,2]', { headers: { 'x-total-count': '7' } }) });
    await expect(apiList<number>('/api/things?limit=2')).resolves.toEqual({ items: [1, 2], total: 7 });
    expect(fetchMock.mock.calls[0]![1]).toMatchObject({ credentials: 'include' });
  });

  it('falls back to the number of items without the header', async () => {
    stubFetch({ 'GET /api/things': { body: ['a'] } });
    await expect(apiList<string>('/api/things')).resolves.toEqual({ items: ['a'], total: 1 });
  });

  it("throws apiRequest's ApiError", async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    stubFetch({ 'GET /api/things': { status: 400, body: { error: 'Invalid request', details: [{ path: 'limit', message: 'limit must be at most 100' }] } } });
    const error = await apiList('/api/things').catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, message: '400: Invalid request (limit: limit must be at most 100)' });
  });
});
