/**
 * en-US number text without Intl, byte for byte what `Intl.NumberFormat('en-US', …)` writes for
 * the options number-format.ts uses, several times faster: a test on history writes tens of
 * thousands of alert texts, and Intl's format() was a third of its time.
 *
 * Intl rounds the number's shortest decimal form (what String(x) shows), half away from zero,
 * not its exact binary value as toFixed does: 1.005 reads '1.01' there and '1.00' from toFixed.
 * So these work on that decimal form's digits. Zod-free and dependency-free like its caller.
 * The property test (decimal-text.test.ts) compares them with Intl on random and edge values.
 */

/** A finite non-negative number's shortest decimal form as digits and the count of them before the point. */
type Decimal = { digits: string; intLength: number };

function decimalOf(magnitude: number): Decimal {
  let text = String(magnitude);
  let exponent = 0;
  const e = text.indexOf('e');
  if (e >= 0) {
    exponent = Number(text.slice(e + 1));
    text = text.slice(0, e);
  }
  const dot = text.indexOf('.');
  const digits = dot < 0 ? text : text.slice(0, dot) + text.slice(dot + 1);
  return { digits, intLength: (dot < 0 ? text.length : dot) + exponent };
}

/** The decimal cut to `fraction` digits after the point, rounded half away from zero. */
function roundTo({ digits, intLength }: Decimal, fraction: number): Decimal {
  // At least one digit before the point, and every digit up to the cut present.
  if (intLength < 1) {
    digits = '0'.repeat(1 - intLength) + digits;
    intLength = 1;
  }
  const keep = intLength + fraction;
  if (digits.length <= keep) return { digits: digits.padEnd(intLength, '0'), intLength };
  const up = digits.charCodeAt(keep) >= 53; // '5' or more: the shortest form is exact, so a 5 is a tie, and ties go away from zero
  digits = digits.slice(0, keep);
  if (!up) return { digits, intLength };
  const chars = digits.split('');
  let i = chars.length - 1;
  while (i >= 0 && chars[i] === '9') chars[i--] = '0';
  if (i >= 0) chars[i] = String.fromCharCode(chars[i]!.charCodeAt(0) + 1);
  else {
    chars.unshift('1');
    intLength++;
  }
  return { digits: chars.join(''), intLength };
}

/**
 * The integer part with leading zeros dropped and thousands separators, from `groupFrom` digits
 * on: 4 as usual ('1,000'), 5 in compact notation, where Intl writes '1000T' but '10,000T'.
 */
function groupedInteger(digits: string, groupFrom: number): string {
  const int = digits.replace(/^0+(?=\d)/, '');
  if (int.length < groupFrom) return int;
  let out = '';
  for (let end = int.length; end > 0; end -= 3) out = (end > 3 ? ',' : '') + int.slice(Math.max(0, end - 3), end) + out;
  return out;
}

function written({ digits, intLength }: Decimal, minFraction: number, negative: boolean, groupFrom = 4): string {
  let fraction = digits.slice(intLength);
  let end = fraction.length;
  while (end > minFraction && fraction.charCodeAt(end - 1) === 48) end--;
  fraction = fraction.slice(0, end).padEnd(minFraction, '0');
  const text = groupedInteger(digits.slice(0, intLength), groupFrom) + (fraction ? `.${fraction}` : '');
  return negative ? `-${text}` : text;
}

/** Beyond this String() no longer gives plain digits Intl would group (1e21 and up); Intl handles those. */
const PLAIN_LIMIT = 1e21;

/**
 * As `Intl.NumberFormat('en-US', { minimumFractionDigits, maximumFractionDigits })`, or null
 * for what it does not cover (not finite, -0, 1e21 and beyond): the caller asks Intl then.
 */
export function fixedText(value: number, minFraction: number, maxFraction: number): string | null {
  if (!Number.isFinite(value) || Object.is(value, -0) || Math.abs(value) >= PLAIN_LIMIT) return null;
  // Intl keeps the sign of a negative number that rounds to zero ('-0').
  return written(roundTo(decimalOf(Math.abs(value)), maxFraction), minFraction, value < 0);
}

const COMPACT_UNITS = ['', 'K', 'M', 'B', 'T'];

/**
 * As `Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 })`, or null
 * where fixedText would be: the unit chosen by the digits before the point, the scaled number
 * rounded to one decimal, and the next unit when rounding reaches 1,000 (999.95K is '1M').
 */
export function compactText(value: number): string | null {
  if (!Number.isFinite(value) || Object.is(value, -0) || Math.abs(value) >= PLAIN_LIMIT) return null;
  const decimal = decimalOf(Math.abs(value));
  const last = COMPACT_UNITS.length - 1;
  let unit = Math.min(last, Math.max(0, Math.floor((decimal.intLength - 1) / 3)));
  let rounded = roundTo({ digits: decimal.digits, intLength: decimal.intLength - 3 * unit }, 1);
  const integerDigits = rounded.digits.slice(0, rounded.intLength).replace(/^0+(?=\d)/, '');
  if (unit < last && integerDigits.length > 3) {
    // Rounded up to exactly 1,000 of this unit: one of the next.
    unit++;
    rounded = { digits: '1', intLength: 1 };
  }
  return written(rounded, 0, value < 0, 5) + COMPACT_UNITS[unit];
}
