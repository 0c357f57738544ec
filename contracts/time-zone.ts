/**
 * Time zones by IANA name, and a day's date in one (docs/decisions/0066). Apart from the times'
 * formatting (time-format.ts), and Intl only: every page's shell reads the zone and shows
 * articles' dates, within the first load's script budget.
 */

/** Where no one has chosen a zone and no browser is there to ask (emails, channels, the server). */
export const DEFAULT_TIME_ZONE = 'UTC';

/** One date formatter per zone (building one costs far more than using it); null: a zone this runtime does not know. */
const dayFormats = new Map<string, Intl.DateTimeFormat | null>();
function dayFormat(zone: string): Intl.DateTimeFormat | null {
  let format = dayFormats.get(zone);
  if (format === undefined) {
    try {
      format = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: zone });
    } catch {
      format = null;
    }
    dayFormats.set(zone, format);
  }
  return format;
}

/** The zone is one this runtime knows (an IANA name such as Europe/Paris, or UTC). */
export const isTimeZone = (zone: string): boolean => dayFormat(zone) !== null;

/** `zone` when it is set and known here (a zone saved by a newer runtime may not be), else `fallback`. */
export const zoneOr = (zone: string | null | undefined, fallback: string = DEFAULT_TIME_ZONE): string => (zone && isTimeZone(zone) ? zone : fallback);

/**
 * The calendar day of an instant in `zone` in SPEC's 'MMM d, yyyy' ('Nov 27, 2025'), as every
 * date is shown (time-format.ts writes the same with its patterns); `fallback` for no date.
 */
export function formatDate(at: Date | number | string, zone: string, fallback = ''): string {
  const date = new Date(at);
  const format = dayFormat(zone);
  return format && !Number.isNaN(date.getTime()) ? format.format(date) : fallback;
}
