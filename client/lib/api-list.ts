import { REQUEST_TIMEOUT_MS } from '../../contracts/constants.ts';
import { toApiError } from './api-client.ts';

export type ListPage<T> = { items: T[]; total: number };

/**
 * GET a paginated list and its total from the `x-total-count` header (apiRequest returns the
 * body only). Same credentials, timeout, ApiError messages and logging as apiRequest. Without
 * the header the total is the number of items received.
 */
export async function apiList<T>(url: string, { signal, timeoutMs = REQUEST_TIMEOUT_MS }: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<ListPage<T>> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onOuterAbort = () => controller.abort();
  signal?.addEventListener('abort', onOuterAbort, { once: true });
  try {
    const res = await fetch(url, { credentials: 'include', headers: { accept: 'application/json' }, signal: controller.signal });
    if (!res.ok) throw await toApiError(res);
    const items = (await res.json()) as T[];
    const header = res.headers.get('x-total-count');
    const total = header !== null && /^\d+$/.test(header.trim()) ? Number(header) : items.length;
    return { items, total };
  } catch (err) {
    const error = timedOut ? new Error(`Request timeout after ${timeoutMs}ms`) : err;
    console.error(`GET ${url} failed:`, error instanceof Error ? error.message : error);
    throw error;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onOuterAbort);
  }
}
