import { useSyncExternalStore } from 'react';

const noSubscription = () => () => {};

/**
 * False while React hydrates HTML rendered without a browser (the prerendered landing page, a
 * server-rendered /insights), true from then on and in anything rendered in the browser. What
 * the server cannot know, or did not render, waits for it, so hydration matches the HTML.
 */
export const useInBrowser = (): boolean => useSyncExternalStore(noSubscription, () => true, () => false);

/**
 * A date (ISO) in the visitor's locale. A page the server rendered shows the locale-free ISO
 * date until it has hydrated (the server cannot know the visitor's locale or time zone, and the
 * browser must first render exactly what the server sent); anything rendered in the browser
 * shows the local date at once.
 */
export function useLocalDate(iso: string): string {
  return useInBrowser() ? new Date(iso).toLocaleDateString() : iso.slice(0, 10);
}
