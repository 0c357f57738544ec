/**
 * Technical indicators over whole series, defined as TA-Lib defines them (default
 * compatibility, SMA-seeded EMAs, Wilder's RSI) so a user can check our numbers against any
 * charting tool built on TA-Lib. Every output is a Float64Array as long as the input, NaN where
 * TA-Lib gives no value (the warm-up) and where the value is undefined.
 *
 * Deliberate differences from TA-Lib, all where TA-Lib's answer is a placeholder:
 * - RSI with no movement at all (average gain + average loss = 0) and stochastic %K over a
 *   range whose high equals its low are NaN, not 0: 0 would read as "oversold" and fire rules
 *   on flat data.
 * - TA-Lib treats tiny values as zero in RSI and Bollinger bands (TA_IS_ZERO: below 1e-8 in
 *   0.4 to 0.6), which zeroes real values for tokens priced around 1e-6 and below; we compare
 *   with exact zero.
 * - A NaN or infinite input makes SMA, Bollinger and stochastic values NaN only for the windows
 *   that contain it; EMA, RSI and MACD are recursive, so it poisons everything after it.
 *
 * Period arguments are integers >= 1 (TA-Lib starts some at 2; period 1 is well defined here).
 */

type Series = ArrayLike<number>;

export type MacdResult = { macd: Float64Array; signal: Float64Array; histogram: Float64Array };
export type BollingerResult = { upper: Float64Array; middle: Float64Array; lower: Float64Array };
export type StochasticResult = { k: Float64Array; d: Float64Array };

function checkPeriod(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be an integer >= 1, got ${value}`);
}

function nanArray(length: number): Float64Array {
  return new Float64Array(length).fill(NaN);
}

/**
 * Mean of each `period`-long window of `src` into `out`, NaN for the first period-1 indices and
 * for every window holding a non-finite value. The sliding sum is compensated (Neumaier), so
 * after millions of steps it is still the window's sum to about one rounding, where a plain
 * running sum drifts by the rounding of every addition and subtraction made so far.
 */
function rollingMean(src: Series, period: number, out: Float64Array): void {
  const n = src.length;
  let sum = 0;
  let comp = 0;
  let bad = 0;
  for (let i = 0; i < n; i++) {
    const x = src[i]!;
    if (Number.isFinite(x)) {
      const t = sum + x;
      comp += Math.abs(sum) >= Math.abs(x) ? sum - t + x : x - t + sum;
      sum = t;
    } else bad++;
    if (i >= period) {
      const old = src[i - period]!;
      if (Number.isFinite(old)) {
        const t = sum - old;
        comp += Math.abs(sum) >= Math.abs(old) ? sum - t - old : -old - t + sum;
        sum = t;
      } else bad--;
    }
    out[i] = i >= period - 1 && bad === 0 ? (sum + comp) / period : NaN;
  }
}

/** Simple moving average; first value at index period-1. */
export function sma(values: Series, period: number): Float64Array {
  checkPeriod('period', period);
  const out = new Float64Array(values.length);
  rollingMean(values, period, out);
  return out;
}

/**
 * Exponential moving average as TA-Lib's default: seeded with the SMA of the first `period`
 * values at index period-1, then prev + (x - prev) * 2/(period+1), in TA-Lib's operation order.
 */
export function ema(values: Series, period: number): Float64Array {
  checkPeriod('period', period);
  const n = values.length;
  const out = nanArray(n);
  if (n < period) return out;
  const k = 2 / (period + 1);
  let seed = 0;
  for (let i = 0; i < period; i++) seed += values[i]!;
  let prev = seed / period;
  out[period - 1] = prev;
  for (let i = period; i < n; i++) {
    prev = (values[i]! - prev) * k + prev;
    out[i] = prev;
  }
  return out;
}

/**
 * Wilder's RSI as TA-Lib computes it: the first value at index `period` from the plain means of
 * the first `period` gains and losses, then avg = (avg * (period-1) + change) / period, and
 * RSI = 100 * avgGain / (avgGain + avgLoss). NaN where avgGain + avgLoss = 0: with no movement
 * at all the RSI is undefined (TA-Lib writes 0), so no RSI rule can fire on flat data.
 */
export function rsi(values: Series, period = 14): Float64Array {
  checkPeriod('period', period);
  const n = values.length;
  // Every index from `period` on is written below; only the warm-up needs filling.
  const out = new Float64Array(n).fill(NaN, 0, Math.min(n, period));
  if (n <= period) return out;
  let gain = 0;
  let loss = 0;
  let prev = values[0]!;
  for (let i = 1; i <= period; i++) {
    const x = values[i]!;
    const change = x - prev;
    prev = x;
    if (change < 0) loss -= change;
    else gain += change;
  }
  gain /= period;
  loss /= period;
  let total = gain + loss;
  out[period] = total !== 0 ? 100 * (gain / total) : NaN;
  const keep = period - 1;
  for (let i = period + 1; i < n; i++) {
    const x = values[i]!;
    const change = x - prev;
    prev = x;
    // Adding +0 to the side that did not move changes no bit, so this is TA-Lib's arithmetic
    // without a branch the CPU mispredicts half the time on a random walk.
    gain = (gain * keep + Math.max(change, 0)) / period;
    loss = (loss * keep + Math.max(-change, 0)) / period;
    total = gain + loss;
    out[i] = total !== 0 ? 100 * (gain / total) : NaN;
  }
  return out;
}

/**
 * MACD as TA-Lib's TA_MACD: both price EMAs are seeded on windows ending at index slow-1 (the
 * fast one with the mean of the `fast` values ending there, not of the first `fast` values),
 * the signal is an EMA of the MACD line seeded with the mean of its first `signal` values, and
 * all three outputs start at (slow-1)+(signal-1) (33 for 12/26/9), as TA-Lib's do, even though
 * the MACD line alone is known from slow-1.
 */
export function macd(values: Series, fast = 12, slow = 26, signal = 9): MacdResult {
  checkPeriod('fast', fast);
  checkPeriod('slow', slow);
  checkPeriod('signal', signal);
  if (fast >= slow) throw new RangeError(`fast (${fast}) must be shorter than slow (${slow})`);
  const n = values.length;
  const line = nanArray(n);
  const signalLine = nanArray(n);
  const histogram = nanArray(n);
  const first = slow - 1 + (signal - 1);
  if (n <= first) return { macd: line, signal: signalLine, histogram };

  const fastK = 2 / (fast + 1);
  const slowK = 2 / (slow + 1);
  const signalK = 2 / (signal + 1);
  let slowSum = 0;
  let fastSum = 0;
  let i = 0;
  for (; i < slow - fast; i++) slowSum += values[i]!;
  for (; i < slow; i++) {
    fastSum += values[i]!;
    slowSum += values[i]!;
  }
  let prevFast = fastSum / fast;
  let prevSlow = slowSum / slow;
  let macdValue = prevFast - prevSlow;
  let prevSignal = macdValue;
  for (; i <= first; i++) {
    const x = values[i]!;
    prevFast = (x - prevFast) * fastK + prevFast;
    prevSlow = (x - prevSlow) * slowK + prevSlow;
    macdValue = prevFast - prevSlow;
    prevSignal += macdValue;
  }
  prevSignal /= signal;
  line[first] = macdValue;
  signalLine[first] = prevSignal;
  histogram[first] = macdValue - prevSignal;
  for (; i < n; i++) {
    const x = values[i]!;
    prevFast = (x - prevFast) * fastK + prevFast;
    prevSlow = (x - prevSlow) * slowK + prevSlow;
    macdValue = prevFast - prevSlow;
    prevSignal = (macdValue - prevSignal) * signalK + prevSignal;
    line[i] = macdValue;
    signalLine[i] = prevSignal;
    histogram[i] = macdValue - prevSignal;
  }
  return { macd: line, signal: signalLine, histogram };
}

/**
 * Below this share of the shifted sum of squares left after subtracting the mean's part, the
 * subtraction has cancelled more than six of the sixteen digits; the window is then summed
 * again around its own mean. That bounds the variance's relative error near 1e-10 whatever
 * the price level, and it happens only when the price has wandered far (in standard deviations)
 * from the last centre or the window turned flat.
 */
const CANCELLATION_LIMIT = 1e-6;

/**
 * Bollinger bands as TA-Lib's BBANDS with an SMA: middle = SMA, upper/lower = middle ± k times
 * the window's population standard deviation (divided by N).
 *
 * The variance comes from compensated sliding sums of (x - c) and (x - c)² around a centre c
 * near the data, so the subtraction behind it does not cancel as the textbook
 * E[x²] - E[x]² does at price levels like 50,000; a spike leaving the window leaves no
 * residue behind either, so a window that turns flat gets a deviation of exactly 0.
 */
export function bollinger(values: Series, period = 20, k = 2): BollingerResult {
  checkPeriod('period', period);
  if (!Number.isFinite(k) || k < 0) throw new RangeError(`k must be a finite number >= 0, got ${k}`);
  const n = values.length;
  const middle = new Float64Array(n);
  rollingMean(values, period, middle);
  const upper = nanArray(n);
  const lower = nanArray(n);

  let centre = 0;
  let s1 = 0;
  let c1 = 0;
  let s2 = 0;
  let c2 = 0;
  // The sums describe the previous index's window; false before any full finite window.
  let synced = false;
  for (let i = period - 1; i < n; i++) {
    const mean = middle[i]!;
    if (Number.isNaN(mean)) {
      synced = false;
      continue;
    }
    if (synced) {
      const dOld = values[i - period]! - centre;
      const sqOld = dOld * dOld;
      const dNew = values[i]! - centre;
      const sqNew = dNew * dNew;
      let t = s1 - dOld;
      c1 += Math.abs(s1) >= Math.abs(dOld) ? s1 - t - dOld : -dOld - t + s1;
      s1 = t;
      t = s1 + dNew;
      c1 += Math.abs(s1) >= Math.abs(dNew) ? s1 - t + dNew : dNew - t + s1;
      s1 = t;
      t = s2 - sqOld;
      c2 += Math.abs(s2) >= sqOld ? s2 - t - sqOld : -sqOld - t + s2;
      s2 = t;
      t = s2 + sqNew;
      c2 += Math.abs(s2) >= sqNew ? s2 - t + sqNew : sqNew - t + s2;
      s2 = t;
    }
    let sum1 = s1 + c1;
    let sum2 = s2 + c2;
    let spread = sum2 - (sum1 * sum1) / period;
    if (!synced || spread < sum2 * CANCELLATION_LIMIT) {
      // Re-centre on this window's mean and sum it afresh (O(period), rare).
      centre = mean;
      s1 = c1 = s2 = c2 = 0;
      for (let j = i - period + 1; j <= i; j++) {
        const d = values[j]! - centre;
        const sq = d * d;
        let t = s1 + d;
        c1 += Math.abs(s1) >= Math.abs(d) ? s1 - t + d : d - t + s1;
        s1 = t;
        t = s2 + sq;
        c2 += s2 >= sq ? s2 - t + sq : sq - t + s2;
        s2 = t;
      }
      sum1 = s1 + c1;
      sum2 = s2 + c2;
      spread = sum2 - (sum1 * sum1) / period;
      synced = true;
    }
    const deviation = k * Math.sqrt(spread > 0 ? spread / period : 0);
    upper[i] = mean + deviation;
    lower[i] = mean - deviation;
  }
  return { upper, middle, lower };
}

/**
 * Slow stochastic as TA-Lib's STOCH with SMA smoothing: fast %K = 100 * (close - lowest low) /
 * (highest high - lowest low) over kPeriod bars, %K = SMA(fast %K, kSmooth), %D = SMA(%K,
 * dPeriod). Both outputs start at (kPeriod-1)+(kSmooth-1)+(dPeriod-1), aligned as TA-Lib
 * outputs them. Where the high equals the low over kPeriod bars, fast %K is undefined (TA-Lib
 * writes 0): NaN, and so are the %K and %D windows that include it.
 */
export function stochastic(high: Series, low: Series, close: Series, kPeriod = 14, kSmooth = 3, dPeriod = 3): StochasticResult {
  checkPeriod('kPeriod', kPeriod);
  checkPeriod('kSmooth', kSmooth);
  checkPeriod('dPeriod', dPeriod);
  const n = close.length;
  if (high.length !== n || low.length !== n) {
    throw new RangeError(`high, low and close must have the same length, got ${high.length}, ${low.length} and ${n}`);
  }
  const fastK = nanArray(n);
  // Monotonic queues of indices (ring buffers) give each window's extremes in O(1) amortised.
  // They hold up to kPeriod + 1 indices: the newest is pushed before the oldest expires.
  let capacity = 1;
  while (capacity < kPeriod + 1) capacity *= 2;
  const mask = capacity - 1;
  const maxQueue = new Int32Array(capacity);
  const minQueue = new Int32Array(capacity);
  let maxHead = 0;
  let maxSize = 0;
  let minHead = 0;
  let minSize = 0;
  let bad = 0;
  for (let i = 0; i < n; i++) {
    const h = high[i]!;
    const l = low[i]!;
    if (Number.isFinite(h) && Number.isFinite(l)) {
      while (maxSize > 0 && high[maxQueue[(maxHead + maxSize - 1) & mask]!]! <= h) maxSize--;
      maxQueue[(maxHead + maxSize) & mask] = i;
      maxSize++;
      while (minSize > 0 && low[minQueue[(minHead + minSize - 1) & mask]!]! >= l) minSize--;
      minQueue[(minHead + minSize) & mask] = i;
      minSize++;
    } else bad++;
    const start = i - kPeriod + 1;
    if (start > 0) {
      const gone = start - 1;
      if (!(Number.isFinite(high[gone]!) && Number.isFinite(low[gone]!))) bad--;
    }
    if (start < 0) continue;
    while (maxSize > 0 && maxQueue[maxHead]! < start) {
      maxHead = (maxHead + 1) & mask;
      maxSize--;
    }
    while (minSize > 0 && minQueue[minHead]! < start) {
      minHead = (minHead + 1) & mask;
      minSize--;
    }
    if (bad > 0) continue;
    const highest = high[maxQueue[maxHead]!]!;
    const lowest = low[minQueue[minHead]!]!;
    // TA-Lib's form, (close - lowest) / ((highest - lowest) / 100), for the same roundings.
    const diff = (highest - lowest) / 100;
    fastK[i] = diff !== 0 ? (close[i]! - lowest) / diff : NaN;
  }
  const k = new Float64Array(n);
  rollingMean(fastK, kSmooth, k);
  const d = new Float64Array(n);
  rollingMean(k, dPeriod, d);
  k.fill(NaN, 0, Math.min(n, kPeriod - 1 + (kSmooth - 1) + (dPeriod - 1)));
  return { k, d };
}

/**
 * Average true range as TA-Lib's ATR (Wilder): the true range of candle i >= 1 is the largest of
 * high - low, |high - previous close| and |low - previous close|; the first ATR, at index
 * `period`, is the plain mean of the true ranges of candles 1..period, then
 * atr = (previous atr * (period - 1) + true range) / period. Recursive like RSI: a NaN input
 * poisons everything after it.
 */
export function atr(high: Series, low: Series, close: Series, period = 14): Float64Array {
  checkPeriod('period', period);
  const n = close.length;
  if (high.length !== n || low.length !== n) {
    throw new RangeError(`high, low and close must have the same length, got ${high.length}, ${low.length} and ${n}`);
  }
  const out = nanArray(n);
  if (n <= period) return out;
  const trueRange = (i: number) => {
    const h = high[i]!;
    const l = low[i]!;
    const previous = close[i - 1]!;
    return Math.max(h - l, Math.abs(h - previous), Math.abs(l - previous));
  };
  let sum = 0;
  for (let i = 1; i <= period; i++) sum += trueRange(i);
  let prev = sum / period;
  out[period] = prev;
  for (let i = period + 1; i < n; i++) {
    prev = (prev * (period - 1) + trueRange(i)) / period;
    out[i] = prev;
  }
  return out;
}

const DAY_MS = 86_400_000;

/**
 * Session VWAP: the volume-weighted mean of the typical price (high + low + close) / 3 over the
 * session's candles so far. The session is the UTC day of the candle's open time; a candle of a
 * day or longer (`candleMs` >= one day) is its own session. NaN while the session has no volume
 * yet (a price weighted by nothing), and for the rest of a session after a non-finite input.
 */
export function vwap(time: Series, high: Series, low: Series, close: Series, volume: Series, candleMs: number): Float64Array {
  const n = close.length;
  if (time.length !== n || high.length !== n || low.length !== n || volume.length !== n) {
    throw new RangeError(`time, high, low, close and volume must have the same length, got ${time.length}, ${high.length}, ${low.length}, ${n} and ${volume.length}`);
  }
  const out = nanArray(n);
  const ownSession = candleMs >= DAY_MS;
  let session = Number.NaN;
  let weighted = 0;
  let volumes = 0;
  for (let i = 0; i < n; i++) {
    const day = Math.floor(time[i]! / DAY_MS);
    if (ownSession || day !== session) {
      session = day;
      weighted = 0;
      volumes = 0;
    }
    const v = volume[i]!;
    weighted += ((high[i]! + low[i]! + close[i]!) / 3) * v;
    volumes += v;
    if (volumes !== 0) out[i] = weighted / volumes;
  }
  return out;
}
