import { useSyncExternalStore } from 'react';
import { DATE, formatTime } from '../../contracts/time-format.ts';
import { useTimeZone } from './time-zone.ts';

const noSubscription = () => () => {};

/**
 * False while React hydrates HTML rendered without a browser (the prerendered landing page, a
 * server-rendered /insights), true from then on and in anything rendered in the browser. What
 * the server cannot know, or did not render, waits for it, so hydration matches the HTML.
 */
export const useInBrowser = (): boolean => useSyncExternalStore(noSubscription, () => true, () => false);

/**
 * An article's date, SPEC's 'MMM d, yyyy' on the calendar of the zone every time is shown in
 * (docs/decisions/0066). A page the server rendered shows the UTC date until it has hydrated (the
 * server cannot know the reader's zone, and the browser must first render exactly what the
 * server sent); anything rendered in the browser shows the reader's date at once.
 */
export function useLocalDate(iso: string): string {
  return formatTime(iso, DATE, useTimeZone(), iso.slice(0, 10));
}
