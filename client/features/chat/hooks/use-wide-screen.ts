import { useSyncExternalStore } from 'react';

const WIDE_QUERY = '(min-width: 1024px)';
const wideQuery = () => (typeof window.matchMedia === 'function' ? window.matchMedia(WIDE_QUERY) : null);

/** True on screens where the sidebar sits beside the chat (Tailwind's lg). */
export function useWideScreen(): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const query = wideQuery();
      query?.addEventListener?.('change', onChange);
      return () => query?.removeEventListener?.('change', onChange);
    },
    () => wideQuery()?.matches ?? true,
  );
}
