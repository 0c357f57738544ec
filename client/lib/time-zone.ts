import { useMemo, useSyncExternalStore } from 'react';
import { DEFAULT_TIME_ZONE, formatTime, zoneOr, type TInstant } from '../../contracts/time-format.ts';

/**
 * The one zone every time on screen is shown in (docs/decisions/0066): the signed-in user's
 * from Settings when they chose one, else this browser's. The app hands the Settings zone over
 * once it has it (features/settings: TimeZoneSync); public pages and signed-out visitors use the
 * browser's. Kept here, not in a query, so the public pages read it without the query library.
 */

let settingsZone: string | null = null;
const listeners = new Set<() => void>();

export const browserTimeZone = (): string => zoneOr(Intl.DateTimeFormat().resolvedOptions().timeZone, DEFAULT_TIME_ZONE);

/** The Settings zone (null: none chosen, or signed out). */
export function setSettingsTimeZone(zone: string | null): void {
  if (zone === settingsZone) return;
  settingsZone = zone;
  for (const listener of listeners) listener();
}

/** The zone times are shown in now, outside React. */
export const currentTimeZone = (): string => zoneOr(settingsZone, browserTimeZone());

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

/** Times in one zone: `format` writes an instant by a pattern (contracts/time-format.ts), the zone named after a time of day. */
export type Times = {
  zone: string;
  format(at: TInstant | null | undefined, pattern: string, fallback: string): string;
};

export const timesIn = (zone: string): Times => ({ zone, format: (at, pattern, fallback) => formatTime(at, pattern, zone, fallback) });

/** Times in the zone the reader sees every time in. */
export function useTimes(): Times {
  const zone = useTimeZone();
  return useMemo(() => timesIn(zone), [zone]);
}
