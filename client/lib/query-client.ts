import { QueryClient, type QueryFunction } from '@tanstack/react-query';
import type { z } from 'zod';
import { ApiError, apiRequest } from './api-client.ts';

/** SPEC: cached queries use the first element of the query key as the URL; a 401 is an error
 * unless the query asks for null instead. */
export function getQueryFn<T>({ on401 }: { on401: 'returnNull' | 'throw' } = { on401: 'throw' }): QueryFunction<T | null> {
  return async ({ queryKey, signal }) => {
    try {
      return await apiRequest<T>('GET', String(queryKey[0]), undefined, { signal });
    } catch (err) {
      if (on401 === 'returnNull' && err instanceof ApiError && err.status === 401) return null;
      throw err;
    }
  };
}

/** The default query function, its answer parsed with a contract's schema: the data has the type
 * the schema infers, and an answer of another shape fails the query instead of reaching a screen. */
export function parsedQueryFn<S extends z.ZodType>(schema: S): QueryFunction<z.output<S>> {
  const get = getQueryFn<unknown>();
  return async (context) => schema.parse(await get(context));
}

/** SPEC section 4 "Data cache": never stale unless a query says otherwise, no refetch on
 * focus, no polling, no retries. */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        queryFn: getQueryFn(),
        staleTime: Infinity,
        refetchOnWindowFocus: false,
        refetchInterval: false,
        retry: false,
      },
      mutations: { retry: false },
    },
  });
}
