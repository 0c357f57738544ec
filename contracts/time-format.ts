/**
 * Times and dates for people, the same on every screen, notification, email and channel message
 * (docs/decisions/0066). Every reading is made in a zone the caller names, never the machine's:
 * the browser shows times in the reader's zone (Settings, else the browser's), the server writes
 * them in the owner's (Settings, else UTC). A reading with a time of day carries its zone's
 * short name ('Mar 4, 2026 10:15 EST', '10:14 GMT+9'); a date alone does not.
 * Patterns are SPEC's date-fns tokens (yyyy, MMM, d, HH, mm, ss). Zod-free, Intl only: public
 * pages and the server import it alike.
 */

/** An instant as the API and the database give it: a Date, epoch ms, or an ISO string. */
export type TInstant = Date | number | string;

/** SPEC's formats (section 9). */
export const DATE_TIME = 'MMM d, yyyy HH:mm';
export const DATE = 'MMM d, yyyy';
export const RUN_TIME = 'MMM d, HH:mm:ss';
/** A time within the year, where the year goes without saying (a chart's candles, a stale feed). */
export const DAY_TIME = 'MMM d, HH:mm';
/** A time of day: 24-hour, as every time the product shows. */
export const CLOCK = 'HH:mm';

type Parts = { year: string; month: string; day: string; hour: string; minute: string; second: string; timeZoneName: string };

const readers = new Map<string, Intl.DateTimeFormat>();
/** One formatter per zone (building one costs far more than using it), every field at once. */
function reader(zone: string): Intl.DateTimeFormat {
  let format = readers.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'short',
    });
    readers.set(zone, format);
  }
  return format;
}

function partsOf(at: Date, zone: string): Parts {
  const parts = { year: '', month: '', day: '', hour: '', minute: '', second: '', timeZoneName: '' };
  for (const part of reader(zone).formatToParts(at)) if (part.type in parts) parts[part.type as keyof Parts] = part.value;
  return parts;
}

/** The instant as a Date, or null when there is none or it is not a time. */
function toDate(at: TInstant | null | undefined): Date | null {
  if (at === null || at === undefined || at === '') return null;
  const date = at instanceof Date ? at : new Date(at);
  return Number.isNaN(date.getTime()) ? null : date;
}

const TOKENS: Record<string, (p: Parts) => string> = {
  yyyy: (p) => p.year,
  MMM: (p) => p.month,
  d: (p) => p.day,
  HH: (p) => p.hour,
  mm: (p) => p.minute,
  ss: (p) => p.second,
};

/** The reading of `pattern` without the zone's name: a chart's axis, where the caption names it once. */
export function formatInZone(at: TInstant, pattern: string, zone: string): string {
  const date = toDate(at);
  if (!date) return '';
  const parts = partsOf(date, zone);
  return pattern.replace(/([A-Za-z])\1*/g, (token) => {
    const write = TOKENS[token];
    if (!write) throw new Error(`time-format: unsupported token '${token}' in '${pattern}'`);
    return write(parts);
  });
}

/** The zone's short name at that instant: 'EST' or 'EDT' for New York, 'GMT+9' for Tokyo, 'UTC'. */
export function zoneLabel(at: TInstant, zone: string): string {
  const date = toDate(at);
  return date ? partsOf(date, zone).timeZoneName : '';
}

/**
 * The instant in `zone` by `pattern`, the zone named after it when the pattern has a time of day
 * ('Mar 15, 2027 09:30 EDT'); `fallback` when there is no instant or it is not a time.
 */
export function formatTime(at: TInstant | null | undefined, pattern: string, zone: string, fallback = ''): string {
  const date = toDate(at);
  if (!date) return fallback;
  const text = formatInZone(date, pattern, zone);
  return pattern.includes('H') ? `${text} ${zoneLabel(date, zone)}` : text;
}

/** The calendar date in `zone`, 'yyyy-MM-dd'. */
export function dayOf(at: TInstant, zone: string): string {
  const date = toDate(at);
  if (!date) return '';
  const { year, month, day } = partsOf(date, zone);
  const monthNumber = MONTHS.indexOf(month) + 1;
  return `${year}-${String(monthNumber).padStart(2, '0')}-${day.padStart(2, '0')}`;
}
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Calendar days from `earlier` to `later` in `zone` (0: the same day there; 1: the day before). */
export function calendarDaysBetween(later: TInstant, earlier: TInstant, zone: string): number {
  return Math.round((Date.parse(dayOf(later, zone)) - Date.parse(dayOf(earlier, zone))) / 86_400_000);
}

/**
 * A past instant as short as it reads unambiguously at `now`: the time of day on the same day,
 * the day too within the year, the year too before ('18:00 GMT+9', 'Jan 5, 18:00 GMT+9',
 * 'Jan 5, 2024 18:00 GMT+9').
 */
export function formatSince(at: TInstant, now: TInstant, zone: string): string {
  if (dayOf(at, zone) === dayOf(now, zone)) return formatTime(at, CLOCK, zone);
  return formatTime(at, formatInZone(at, 'yyyy', zone) === formatInZone(now, 'yyyy', zone) ? DAY_TIME : DATE_TIME, zone);
}

/** The wall clock of `zone` at an instant as a datetime-local field holds it: 'yyyy-MM-ddTHH:mm'. */
export function wallTimeOf(at: TInstant, zone: string): string {
  const date = toDate(at);
  if (!date) return '';
  const p = partsOf(date, zone);
  return `${dayOf(date, zone)}T${p.hour === '24' ? '00' : p.hour}:${p.minute}`;
}

const DAY_MS = 86_400_000;

/**
 * The instant the wall clock of `zone` reads 'yyyy-MM-ddTHH:mm' (a datetime-local field, taken in
 * the owner's zone as every time is shown in it); null for anything else. A wall time a clock
 * change repeats reads as its first; one it skips, with the offset before the change, so as long
 * after the change as it is after the skipped start (02:30 where 02:00 jumps to 03:00 is 03:30).
 */
export function instantOfWallTime(wall: string, zone: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(wall);
  if (!m) return null;
  const asUtc = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]));
  if (Number.isNaN(asUtc)) return null;
  // How far the zone's clock is ahead of UTC at an instant.
  const offsetAt = (t: number) => {
    const p = partsOf(new Date(t), zone);
    return Date.UTC(Number(p.year), MONTHS.indexOf(p.month), Number(p.day), Number(p.hour) % 24, Number(p.minute), Number(p.second)) - Math.floor(t / 1000) * 1000;
  };
  // The wall time is its instant plus the offset in force then: the offset a day before or a day
  // after (no zone changes its clock twice within two days). Both read it when a change repeats it.
  const before = offsetAt(asUtc - DAY_MS);
  const readers = [asUtc - before, asUtc - offsetAt(asUtc + DAY_MS)].filter((t) => wallTimeOf(t, zone) === wall);
  return new Date(readers.length > 0 ? Math.min(...readers) : asUtc - before);
}
