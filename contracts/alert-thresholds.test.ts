import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { alertText, defaultThreshold, followDefaultMessage, isDefaultMessage, NEW_THRESHOLD, THRESHOLD_DEFINITIONS, THRESHOLD_TYPES, thresholdValueText, type TCandleValues } from './alert-thresholds.ts';
import { AGENT_TEMPLATES } from './agents.ts';

/** 20 candles at close 100, range 1 (high 100.5, low 99.5), volume 1000, then `last`. */
const series = (last: TCandleValues): TCandleValues[] => [...Array.from({ length: 20 }, () => ({ high: 100.5, low: 99.5, close: 100, volume: 1000 })), last];
const measure = (type: (typeof THRESHOLD_TYPES)[number], candles: TCandleValues[]) => THRESHOLD_DEFINITIONS[type].measure(candles, candles.length - 1);

describe('threshold definitions, worked by hand', () => {
  it('priceChange: the size of the close-to-close change of the last candle, in %', () => {
    // 100 -> 100.59: +0.59%; 100 -> 97: -3%, measured as 3.
    expect(measure('priceChange', series({ high: 101, low: 100, close: 100.59, volume: 1000 }))).toEqual({ measured: expect.closeTo(0.59, 10), detail: 'up from 100.00 to 100.59' });
    expect(measure('priceChange', series({ high: 100, low: 97, close: 97, volume: 1000 }))!.measured).toBeCloseTo(3, 10);
    expect(measure('priceChange', [{ high: 1, low: 1, close: 1, volume: 1 }])).toBeNull();
  });

  it('volumeSpike and volumeAlert: the last volume as a % of the average of the 20 before it', () => {
    const busy = series({ high: 100.5, low: 99.5, close: 100, volume: 3125 });
    for (const type of ['volumeSpike', 'volumeAlert'] as const) {
      // 3125 / 1000 = 312.5%.
      expect(measure(type, busy)).toEqual({ measured: 312.5, detail: 'volume 3.1K against an average of 1K' });
      expect(measure(type, busy.slice(1))).toBeNull(); // 19 candles before the last: no full window
    }
  });

  it('volatilityAlert: the last candle range as a % of its close', () => {
    // (102.4 - 100) / 100 = 2.4%.
    expect(measure('volatilityAlert', series({ high: 102.4, low: 100, close: 100, volume: 1000 }))).toEqual({ measured: expect.closeTo(2.4, 10), detail: 'range 2.40 on a close of 100.00' });
  });

  it('every type has a unit and an explanation', () => {
    for (const type of THRESHOLD_TYPES) {
      expect(THRESHOLD_DEFINITIONS[type].unit.startsWith('%')).toBe(true);
      expect(THRESHOLD_DEFINITIONS[type].explanation.length).toBeGreaterThan(20);
    }
    expect(thresholdValueText('volumeAlert', 150)).toBe('150% of average volume');
  });
});

describe('alert text', () => {
  it('puts the measured value and the configured limit side by side in one unit', () => {
    const threshold = { type: 'priceChange' as const, value: 0.1, message: 'Price change above 0.1%' };
    const reading = measure('priceChange', series({ high: 101, low: 100, close: 100.59, volume: 1000 }))!;
    expect(alertText(threshold, 'BTC/USDT on binance', reading)).toBe('Price change above 0.1% (BTC/USDT on binance: 0.59% > 0.1%, up from 100.00 to 100.59)');
    const volume = { type: 'volumeAlert' as const, value: 150, message: 'Volume above 150% of average' };
    expect(alertText(volume, 'X', measure('volumeAlert', series({ high: 100, low: 100, close: 100, volume: 3125 }))!)).toBe(
      'Volume above 150% of average (X: 312.5% > 150% of average volume, volume 3.1K against an average of 1K)',
    );
  });
});

describe('default messages', () => {
  it('follow type and value until the user writes their own', () => {
    expect(NEW_THRESHOLD).toEqual({ type: 'priceChange', value: 5, message: 'Price change above 5%' });
    expect(followDefaultMessage({ ...NEW_THRESHOLD, value: 0.1 }).message).toBe('Price change above 0.1%');
    expect(followDefaultMessage({ ...NEW_THRESHOLD, type: 'volumeSpike', value: 1500 }).message).toBe('Volume spike above 1,500% of average');
    expect(followDefaultMessage({ type: 'volatilityAlert', value: 2.5, message: 'Volume above 150% of average' }).message).toBe('Volatility above 2.5% of the price');
    const own = { type: 'priceChange' as const, value: 0.1, message: 'BTC is moving' };
    expect(followDefaultMessage(own)).toBe(own);
  });

  it("recognise earlier versions' defaults, whatever number they carry", () => {
    for (const message of ['Price moved more than 3%', 'Volume spiked above 200% of average', 'Volatility above 2x its average', 'Price change alert', 'Volume above 150% of average']) {
      expect(isDefaultMessage(message)).toBe(true);
    }
    expect(followDefaultMessage({ type: 'priceChange', value: 0.1, message: 'Price moved more than 3%' }).message).toBe('Price change above 0.1%');
    expect(isDefaultMessage('Price moved more than 3% today')).toBe(false);
  });

  it('read as a default for every value a person can type: negative, zero, tiny, huge', () => {
    for (const type of THRESHOLD_TYPES) {
      for (const value of [-1, -5, -0, 0, -0.00001, 0.1, 2, 1500, 1e21, -1e21, Number.MAX_VALUE, Number.MIN_VALUE]) {
        expect(isDefaultMessage(THRESHOLD_DEFINITIONS[type].defaultMessage(value)), `${type} ${value}`).toBe(true);
      }
    }
    fc.assert(
      fc.property(fc.constantFrom(...THRESHOLD_TYPES), fc.double({ noNaN: true, noDefaultInfinity: true }), (type, value) => isDefaultMessage(THRESHOLD_DEFINITIONS[type].defaultMessage(value))),
    );
  });

  // Issue 29 item 5: typing -1 then 2 left 'Price change above -1%', and an agent saved at 0.1
  // alerted 'Price change above -5% (… 0.61% > 0.1% …)'.
  it('follow the value through any sequence of edits, invalid ones included', () => {
    const edit = fc.oneof(
      fc.record({ type: fc.constantFrom(...THRESHOLD_TYPES) }),
      fc.record({ value: fc.oneof(fc.double(), fc.integer({ min: -10_000, max: 20_000 }), fc.constantFrom(-1, 2, -5, 0.1, Number.NaN, -0)) }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...THRESHOLD_TYPES), fc.double({ min: 0, max: 10_000, noNaN: true }), fc.array(edit, { maxLength: 12 }), (type, value, edits) => {
        let threshold = defaultThreshold(type, value);
        let lastTyped = value;
        for (const change of edits) {
          threshold = followDefaultMessage({ ...threshold, ...change });
          if ('value' in change && Number.isFinite(change.value)) lastTyped = change.value;
        }
        expect(threshold.message).toBe(THRESHOLD_DEFINITIONS[threshold.type].defaultMessage(lastTyped));
      }),
    );
    // The two sequences, step by step.
    const typed = (values: number[]) => values.reduce((t, value) => followDefaultMessage({ ...t, value }), NEW_THRESHOLD).message;
    expect(typed([-1, 2])).toBe('Price change above 2%');
    expect(typed([-5, 0, 0.1])).toBe('Price change above 0.1%');
    expect(typed([Number.NaN, -1, Number.NaN, 2])).toBe('Price change above 2%');
  });

  it('leave the words a person wrote, negative numbers in them included', () => {
    for (const message of ['Price change above -1% today', 'Price fell -5%', 'Price change above -%', 'Price change above --1%']) {
      expect(isDefaultMessage(message)).toBe(false);
      expect(followDefaultMessage({ type: 'priceChange', value: 2, message }).message).toBe(message);
    }
  });

  it("the templates' thresholds start with their defaults", () => {
    for (const template of AGENT_TEMPLATES) {
      for (const t of template.defaultConfig.notifications.thresholds) expect(t.message).toBe(THRESHOLD_DEFINITIONS[t.type].defaultMessage(t.value));
    }
  });
});
