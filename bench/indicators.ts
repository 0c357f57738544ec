import { RSI } from 'trading-signals';
import { rsi } from '../server/modules/market/indicators.ts';
import type { Benchmark } from './types.ts';
import { mulberry32 } from '../tests/support/seeded-random.ts';

const POINTS = 1_000_000;
const QUICK_POINTS = 200_000;
const PERIOD = 14;
const TARGET_RATIO = 5;
const AGREEMENT = 1e-6;

/** A seeded random walk near 100 (mulberry32), so every run measures the same series. */
function randomWalk(length: number, seed: number): Float64Array {
  const rand = mulberry32(seed);
  const values = new Float64Array(length);
  let price = 100;
  for (let i = 0; i < length; i++) values[i] = price = Math.max(1, price + (rand() - 0.5) * 2);
  return values;
}

/** trading-signals' RSI over the whole series, kept per point as ours is. */
function theirRsi(values: Float64Array): Float64Array {
  const indicator = new RSI(PERIOD);
  const out = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = indicator.add(values[i]!) ?? NaN;
  return out;
}

/** Best wall time of `reps` runs, in seconds, after `warmups` unmeasured ones. */
function best(run: () => Float64Array, warmups: number, reps: number): { seconds: number; result: Float64Array } {
  let result = run();
  for (let i = 1; i < warmups; i++) result = run();
  let seconds = Infinity;
  for (let i = 0; i < reps; i++) {
    const started = performance.now();
    result = run();
    seconds = Math.min(seconds, (performance.now() - started) / 1000);
  }
  return { seconds, result };
}

/**
 * RSI(14) over a seeded random walk: our array function against trading-signals 8's RSI fed one
 * value at a time with add() (the package's only RSI since v7 dropped big.js: it is numeric,
 * there is no separate Faster* class any more), both producing every point's value.
 */
const benchmark: Benchmark = {
  name: 'indicators',
  description: `RSI(${PERIOD}) over ${POINTS.toLocaleString('en')} random-walk points (${QUICK_POINTS.toLocaleString('en')} with --quick): ours vs trading-signals' RSI (add() per value), points/s`,
  async run({ quick, log }) {
    const points = quick ? QUICK_POINTS : POINTS;
    const values = randomWalk(points, 42);
    const ours = best(() => rsi(values, PERIOD), 5, quick ? 10 : 20);
    const theirs = best(() => theirRsi(values), 2, quick ? 3 : 5);
    const oursRate = points / ours.seconds;
    const theirRate = points / theirs.seconds;
    log(`  ours ${(ours.seconds * 1000).toFixed(2)} ms, trading-signals ${(theirs.seconds * 1000).toFixed(2)} ms for ${points.toLocaleString('en')} points`);

    // Both seed Wilder's averages with the plain mean of the first 14 changes, so they agree
    // from the first value on, up to rounding (they order the smoothing arithmetic differently).
    let maxDiff = 0;
    for (let i = PERIOD; i < points; i++) maxDiff = Math.max(maxDiff, Math.abs(ours.result[i]! - theirs.result[i]!));
    const lastDiff = Math.abs(ours.result[points - 1]! - theirs.result[points - 1]!);
    log(`  last value: ours ${ours.result[points - 1]}, trading-signals ${theirs.result[points - 1]}; largest difference over the series ${maxDiff.toExponential(2)}`);
    const agree = lastDiff <= AGREEMENT;
    if (!agree) log(`  NOTE: the last values differ by ${lastDiff}, more than ${AGREEMENT}`);

    const ratio = oursRate / theirRate;
    return [
      {
        name: 'rsi-points-per-second',
        unit: 'points/s',
        ours: oursRate,
        reference: theirRate,
        ratio,
        target: `ratio >= ${TARGET_RATIO}`,
        met: ratio >= TARGET_RATIO,
        ...(agree ? {} : { note: `last values differ by ${lastDiff.toExponential(2)}` }),
      },
    ];
  },
};

export default benchmark;
