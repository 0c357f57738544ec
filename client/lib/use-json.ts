import { useEffect, useState } from 'react';
import { apiRequest } from './api-client.ts';

export type JsonState<T> = { status: 'pending' } | { status: 'error' } | { status: 'success'; data: T };

/**
 * A GET answer read once per mount, without the query cache: for the landing page, which loads
 * before (and often without) the rest of the app. Failures are logged by the request helper.
 */
export function useJson<T>(url: string): JsonState<T> {
  const [state, setState] = useState<{ url: string; result: JsonState<T> }>({ url, result: { status: 'pending' } });

  useEffect(() => {
    const controller = new AbortController();
    apiRequest<T>('GET', url, undefined, { signal: controller.signal }).then(
      (data) => setState({ url, result: { status: 'success', data } }),
      () => {
        if (!controller.signal.aborted) setState({ url, result: { status: 'error' } });
      },
    );
    return () => controller.abort();
  }, [url]);

  // A new URL is pending until its own answer arrives, never shown the previous one's.
  return state.url === url ? state.result : { status: 'pending' };
}
