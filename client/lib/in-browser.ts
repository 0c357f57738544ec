import { useSyncExternalStore } from 'react';

const noSubscription = () => () => {};

/**
 * False while React hydrates HTML rendered without a browser (the prerendered landing page, a
 * server-rendered /insights), true from then on and in anything rendered in the browser. What
 * the server cannot know, or did not render, waits for it, so hydration matches the HTML.
 */
export const useInBrowser = (): boolean => useSyncExternalStore(noSubscription, () => true, () => false);

