import { useSyncExternalStore } from 'react';
import { DEFAULT_TIME_ZONE, formatDate } from '../../contracts/time-zone.ts';

/**
 * The one zone every time on screen is shown in (docs/decisions/0066): the signed-in user's
 * from Settings when they chose one, else this browser's. The app hands the Settings zone over
 * once it has it (features/settings: TimeZoneSync); public pages and signed-out visitors use the
 * browser's. Kept here, not in a query, so the public pages read it without the query library;
 * times are formatted by client/lib/times.ts, loaded by the screens that show them.
 */

let settingsZone: string | null = null;
const listeners = new Set<() => void>();

export const browserTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** The Settings zone (null: none chosen, or signed out), one this browser knows. */
export function setSettingsTimeZone(zone: string | null): void {
  settingsZone = zone;
  for (const listener of listeners) listener();
}

/** The zone times are shown in now. */
const currentTimeZone = (): string => settingsZone ?? browserTimeZone();

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

/**
 * The zone times are shown in. On the server, and while React hydrates what the server
 * rendered, it is UTC (the server cannot know the reader's zone, and hydration must match its
 * HTML); the reader's zone follows at once.
 */
export const useTimeZone = (): string => useSyncExternalStore(subscribe, currentTimeZone, () => DEFAULT_TIME_ZONE);

/**
 * A date as every page shows it, SPEC's 'MMM d, yyyy', on the calendar of the zone every time is
 * shown in (an article's, a user's). A page the server rendered shows the UTC date until it has
 * hydrated (the server cannot know the reader's zone, and the browser must first render exactly
 * what the server sent); anything rendered in the browser shows the reader's date at once.
 */
export function useLocalDate(iso: string): string {
  return formatDate(iso, useTimeZone(), iso.slice(0, 10));
}
