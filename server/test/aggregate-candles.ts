import { TIMEFRAME_MS, type TCandle, type TCandleTimeframe } from '../../contracts/market.ts';

/**
 * Candles aggregated into a longer timeframe, as a provider builds them: one candle per period
 * that holds any (open of the first, extremes, close of the last, volumes added). Given the
 * candles a live run had seen, the last one is the still-forming candle as it stood then.
 */
export function aggregateCandles(base: readonly TCandle[], timeframe: TCandleTimeframe): TCandle[] {
  const length = TIMEFRAME_MS[timeframe];
  const out: TCandle[] = [];
  for (const c of base) {
    const time = Math.floor(c.time / length) * length;
    const last = out[out.length - 1];
    if (last && last.time === time) {
      last.high = Math.max(last.high, c.high);
      last.low = Math.min(last.low, c.low);
      last.close = c.close;
      last.volume += c.volume;
    } else out.push({ ...c, time });
  }
  return out;
}
