import { formatCompact, formatLimit, formatPercent, formatPrice, pricePrecision } from './number-format.ts';

/**
 * The alerts a user sets (SPEC's thresholds `{type, value (percent), message}`), each type
 * defined once: what is measured, over which candles, against what, in which unit. The runtime
 * measures with each type's `value` (and `measure` for the detail), the wizard and the details
 * show `unit` and `explanation` beside each value, and the alert text (`alertText`) puts the
 * measured value and the configured limit side by side in that unit. Decision record 0026.
 *
 * Alerts are not the template's signals (its decision rules, evaluated with the template's
 * parameters): both are shown, each under its own name.
 */

export const THRESHOLD_TYPES = ['priceChange', 'volumeSpike', 'volatilityAlert', 'volumeAlert'] as const;
export type TThresholdType = (typeof THRESHOLD_TYPES)[number];

/** Candles the volume alerts average over, before the last one. */
export const THRESHOLD_AVERAGE_WINDOW = 20;

/** What a measurement reads of a candle. */
export type TCandleValues = { high: number; low: number; close: number; volume: number };

/** One measurement on the latest candle: the value in the type's unit and the inputs, for people. */
export type TThresholdReading = { measured: number; detail: string };

export type TThresholdDefinition = {
  /** 'Price change': the type's name on screens. */
  label: string;
  /** What follows a number of this type: '%', '% of average volume', ... */
  unit: string;
  /** One line saying what is measured, over which candles, against what. */
  explanation: string;
  /**
   * The value on candle `i` (`candles` oldest first), or null when it cannot be measured. No
   * strings: a test on history asks it of every candle, and the detail only of those that fire.
   */
  value(candles: readonly TCandleValues[], i: number): number | null;
  /** The value with what was measured, for people; null exactly when `value` is null. */
  measure(candles: readonly TCandleValues[], i: number): TThresholdReading | null;
  /** The words of its default message around the value: 'Price change above {value}%'. The
   * message itself (`defaultMessage`) and the pattern that recognises it are both made of it. */
  messageTemplate: TMessageTemplate;
  /** The message a threshold of this type and value has until the user writes their own. */
  defaultMessage(value: number): string;
};

/** A message's words with `{value}` where the value goes. */
type TMessageTemplate = `${string}{value}${string}`;

/** A type as written below: its value, and the detail of a candle whose value is not null. */
type TThresholdSpec = Omit<TThresholdDefinition, 'measure' | 'defaultMessage'> & { detail(candles: readonly TCandleValues[], i: number): string };

/**
 * The definition with `measure` made of its own `value` and `detail`, so the two cannot differ,
 * and its default message of its template, with the value as `formatLimit` writes it.
 */
function define({ detail, ...spec }: TThresholdSpec): TThresholdDefinition {
  return {
    ...spec,
    defaultMessage: (value) => spec.messageTemplate.replace('{value}', () => formatLimit(value)),
    measure(candles, i) {
      const measured = spec.value(candles, i);
      return measured === null ? null : { measured, detail: detail(candles, i) };
    },
  };
}

/** Mean volume of the window before candle i, or null without a full window or any volume. */
function averageVolume(candles: readonly TCandleValues[], i: number): number | null {
  if (i < THRESHOLD_AVERAGE_WINDOW) return null;
  let sum = 0;
  for (let j = i - THRESHOLD_AVERAGE_WINDOW; j < i; j++) sum += candles[j]!.volume;
  const mean = sum / THRESHOLD_AVERAGE_WINDOW;
  return Number.isFinite(mean) && mean > 0 ? mean : null;
}

/** The market's precision, read from the closes the measurement looked at. */
const closesPrecision = (candles: readonly TCandleValues[], i: number) => pricePrecision(candles.slice(Math.max(0, i - THRESHOLD_AVERAGE_WINDOW), i + 1).map((c) => c.close));

function volumeAgainstAverage(candles: readonly TCandleValues[], i: number): number | null {
  const average = averageVolume(candles, i);
  const volume = candles[i]?.volume;
  if (average === null || volume === undefined || !Number.isFinite(volume)) return null;
  return (volume / average) * 100;
}

const volumeDetail = (candles: readonly TCandleValues[], i: number) => `volume ${formatCompact(candles[i]!.volume)} against an average of ${formatCompact(averageVolume(candles, i)!)}`;

const VOLUME_EXPLANATION = `The last candle's volume as a % of the average volume of the ${THRESHOLD_AVERAGE_WINDOW} candles before it (200% is twice the average).`;

export const THRESHOLD_DEFINITIONS: Record<TThresholdType, TThresholdDefinition> = {
  priceChange: define({
    label: 'Price change',
    unit: '%',
    explanation: 'How far the close moved over the last candle, up or down, as a % of the close before it.',
    value(candles, i) {
      const before = candles[i - 1];
      const last = candles[i];
      if (!before || !last || !(before.close > 0) || !Number.isFinite(last.close)) return null;
      return Math.abs((last.close / before.close - 1) * 100);
    },
    detail(candles, i) {
      const [before, last] = [candles[i - 1]!, candles[i]!];
      const decimals = closesPrecision(candles, i);
      return `${last.close / before.close - 1 < 0 ? 'down' : 'up'} from ${formatPrice(before.close, decimals)} to ${formatPrice(last.close, decimals)}`;
    },
    messageTemplate: 'Price change above {value}%',
  }),
  volumeSpike: define({
    label: 'Volume spike',
    unit: '% of average volume',
    explanation: VOLUME_EXPLANATION,
    value: volumeAgainstAverage,
    detail: volumeDetail,
    messageTemplate: 'Volume spike above {value}% of average',
  }),
  volatilityAlert: define({
    label: 'Volatility alert',
    unit: '% of the price',
    explanation: "The last candle's range (high minus low) as a % of its close.",
    value(candles, i) {
      const last = candles[i];
      if (!last || !(last.close > 0) || !Number.isFinite(last.high - last.low)) return null;
      return ((last.high - last.low) / last.close) * 100;
    },
    detail(candles, i) {
      const last = candles[i]!;
      const decimals = closesPrecision(candles, i);
      return `range ${formatPrice(last.high - last.low, decimals)} on a close of ${formatPrice(last.close, decimals)}`;
    },
    messageTemplate: 'Volatility above {value}% of the price',
  }),
  volumeAlert: define({
    label: 'Volume alert',
    unit: '% of average volume',
    explanation: VOLUME_EXPLANATION,
    value: volumeAgainstAverage,
    detail: volumeDetail,
    messageTemplate: 'Volume above {value}% of average',
  }),
};

/** A type's name for people; a type this version does not know reads as stored. */
export const thresholdLabel = (type: string): string => (THRESHOLD_DEFINITIONS as Record<string, TThresholdDefinition | undefined>)[type]?.label ?? type;

/** A threshold's value with its unit: '0.1%', '200% of average volume'. */
export const thresholdValueText = (type: TThresholdType, value: number): string => `${formatLimit(value)}${THRESHOLD_DEFINITIONS[type].unit}`;

/** A threshold as the wizard and templates start it: the message is its default. */
export const defaultThreshold = (type: TThresholdType, value: number) => ({ type, value, message: THRESHOLD_DEFINITIONS[type].defaultMessage(value) });

/** SPEC: a new threshold is a price change of 5 (its message follows, decision 0026). */
export const NEW_THRESHOLD = defaultThreshold('priceChange', 5);

/**
 * Any text `formatLimit` writes for a finite number: a sign for a negative one (the value field
 * holds -1 on the way to 2, and the server refuses it only on save), thousands separators,
 * decimals. A default message for any value a person can type must read as a default, or the
 * message stops following the value at the first negative one (issue 29 item 5).
 */
const NUMBER = String.raw`-?[0-9][0-9,]*(?:\.[0-9]+)?`;
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The pattern of a template's messages, the value's text captured. */
const defaultPattern = (template: TMessageTemplate) => new RegExp(`^${template.split('{value}').map(escapeRegExp).join(`(${NUMBER})`)}$`);

/**
 * Messages nobody wrote: every type's default for any value, and the defaults earlier versions
 * gave (the templates' 'Price moved more than 5%', ..., SPEC's 'Price change alert'). A message
 * that matches is the default, so it follows the threshold's type and value. Data migrations
 * 0005 and 0017 match the same texts in SQL.
 */
export const DEFAULT_MESSAGE_PATTERNS: readonly RegExp[] = [
  ...THRESHOLD_TYPES.map((type) => defaultPattern(THRESHOLD_DEFINITIONS[type].messageTemplate)),
  ...(['Price moved more than {value}%', 'Volume spiked above {value}% of average', 'Volatility above {value}x its average'] as const).map(defaultPattern),
  /^Price change alert$/,
];

/** A default message's value as written in it ('-1' in 'Price change above -1%'), null for one
 * without a value, undefined for a message a person wrote. */
function defaultMessageValue(message: string): string | null | undefined {
  const text = message.trim();
  for (const pattern of DEFAULT_MESSAGE_PATTERNS) {
    const match = pattern.exec(text);
    if (match) return match[1] ?? null;
  }
  return undefined;
}

export const isDefaultMessage = (message: string): boolean => defaultMessageValue(message) !== undefined;

/**
 * The threshold with its message brought in line: an untouched default becomes the default of
 * its current type and value; the user's own words stay as they are. The wizard applies it on
 * every change of type or value, the server on every save. While the value field is empty (or
 * holds no number) the message keeps the last value it had, in the current type's words.
 */
export function followDefaultMessage<T extends { type: TThresholdType; value: number; message: string }>(threshold: T): T {
  const written = defaultMessageValue(threshold.message);
  if (written === undefined) return threshold;
  const { messageTemplate, defaultMessage } = THRESHOLD_DEFINITIONS[threshold.type];
  const message = Number.isFinite(threshold.value)
    ? defaultMessage(threshold.value)
    : written === null
      ? threshold.message
      : messageTemplate.replace('{value}', () => written);
  return message === threshold.message ? threshold : { ...threshold, message };
}

/**
 * An alert as people read it, in the notification, the email and Run History: the user's
 * message, then the market, the measured value against the configured limit in one unit, and
 * what was measured. 'Price change above 0.1% (BTC/USDT on binance: 0.59% > 0.1%, up from
 * 63,873.10 to 64,250.50)'.
 */
export function alertText(threshold: { type: TThresholdType; value: number; message: string }, market: string, reading: TThresholdReading): string {
  const unit = THRESHOLD_DEFINITIONS[threshold.type].unit;
  const comparison = reading.measured > threshold.value ? '>' : '<=';
  return `${threshold.message} (${market}: ${formatPercent(reading.measured)} ${comparison} ${formatLimit(threshold.value)}${unit}, ${reading.detail})`;
}
