import { apiFetch, type RequestOptions } from './api-client.ts';

export type ListPage<T> = { items: T[]; total: number };

/**
 * GET a paginated list and its total from the `x-total-count` header (apiRequest returns the
 * body only). Without the header the total is the number of items received.
 */
export async function apiList<T>(url: string, options: Pick<RequestOptions, 'signal' | 'timeoutMs'> = {}): Promise<ListPage<T>> {
  const res = await apiFetch('GET', url, undefined, options);
  const items = (await res.json()) as T[];
  const header = res.headers.get('x-total-count');
  const total = header !== null && /^\d+$/.test(header.trim()) ? Number(header) : items.length;
  return { items, total };
}
