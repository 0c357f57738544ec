import { useMemo } from 'react';
import { formatTime, type TInstant } from '../../contracts/time-format.ts';
import { useTimeZone } from './time-zone.ts';

/** Times in one zone: `format` writes an instant by a pattern (contracts/time-format.ts), the zone named after a time of day. */
export type Times = {
  zone: string;
  format(at: TInstant | null | undefined, pattern: string, fallback: string): string;
};

export const timesIn = (zone: string): Times => ({ zone, format: (at, pattern, fallback) => formatTime(at, pattern, zone, fallback) });

/** Times in the zone the reader sees every time in (client/lib/time-zone.ts). */
export function useTimes(): Times {
  const zone = useTimeZone();
  return useMemo(() => timesIn(zone), [zone]);
}

