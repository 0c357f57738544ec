/**
 * A date and time as a person enters it in a zone (an `<input type="datetime-local">`'s
 * 'yyyy-MM-ddTHH:mm') and the instant it names, both ways. The expiry of a condition is taken and
 * shown in the owner's Settings zone (docs/decisions/0066, 0071) and stored as an ISO instant.
 */

const formats = new Map<string, Intl.DateTimeFormat>();
function partsIn(zone: string, at: number): Record<string, number> {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    formats.set(zone, format);
  }
  return Object.fromEntries(format.formatToParts(at).filter((p) => p.type !== 'literal').map((p) => [p.type, Number(p.value)]));
}

/** The zone's offset from UTC at an instant, in ms. */
function offsetAt(zone: string, at: number): number {
  const p = partsIn(zone, at);
  return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) - Math.floor(at / 1000) * 1000;
}

/** 'yyyy-MM-ddTHH:mm' in `zone` for an ISO instant; '' for none. */
export function toZonedInput(iso: string | undefined, zone: string): string {
  if (!iso) return '';
  const at = Date.parse(iso);
  if (!Number.isFinite(at)) return '';
  const p = partsIn(zone, at);
  const two = (n: number | undefined) => String(n).padStart(2, '0');
  return `${String(p.year).padStart(4, '0')}-${two(p.month)}-${two(p.day)}T${two(p.hour)}:${two(p.minute)}`;
}

/**
 * The ISO instant a wall-clock time in `zone` names; null when the text is not one. A time the
 * clocks skip (spring forward) reads as the hour after; one they repeat, as its first.
 */
export function fromZonedInput(text: string, zone: string): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(text);
  if (!match) return null;
  const [, y, mo, d, h, mi] = match.map(Number) as [number, number, number, number, number, number];
  const wall = Date.UTC(y, mo - 1, d, h, mi);
  // The offset at the guess, then at the instant it gives: two steps settle across a change.
  let at = wall - offsetAt(zone, wall);
  at = wall - offsetAt(zone, at);
  const earlier = wall - offsetAt(zone, at - 3600_000);
  if (earlier < at && toZonedInput(new Date(earlier).toISOString(), zone) === text) at = earlier;
  return new Date(at).toISOString();
}
