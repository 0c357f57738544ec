import { conditionTimeframeProblems, TIMEFRAME_LABELS, type TCondition, type TIndicatorOperand } from '../../../contracts/conditions.ts';
import { formatLimit } from '../../../contracts/number-format.ts';
import type { TCandle, TCandleTimeframe, TMarketSource } from '../../../contracts/market.ts';
import { watchedMarketLabel, WATCHLIST_EXCHANGE_LABELS, type TWatchedMarket } from '../../../contracts/watchlist.ts';
import { createRateWindow } from '../../lib/rate-window.ts';
import { conditionCandlesNeeded, latestClosedIndex, prepareConditions } from '../conditions/engine.ts';
import type { MarketData } from '../market/market-data.ts';
import { tickOf } from '../runtime/run-executor.ts';
import { count, ToolRefusal, type Tool } from './tool-kit.ts';

/**
 * get_market: the latest closed candles of a market read as a live run reads them
 * (MarketData.getCandles in the current minute's tick: the candles this minute's runs fetched
 * are shared, and one fetch serves every caller of the minute, a failure included), the usual
 * indicators on the latest closed candle, and, with a condition, each of its sides there,
 * computed by the conditions engine that runs and tests use (so the numbers agree with what an
 * agent would record).
 */

export type MarketReadDeps = {
  marketData: Pick<MarketData, 'getCandles'>;
  now?: () => Date;
  /** Reads per user per minute: Test on history's rate (each may fetch history from a provider). */
  ratePerMinute: number;
};

/** The indicators every answer carries, as the builder names them (the engine computes them). */
const STANDARD: ReadonlyArray<TIndicatorOperand> = [
  { indicator: 'sma', period: 20 },
  { indicator: 'ema', period: 20 },
  { indicator: 'ema', period: 50 },
  { indicator: 'rsi', period: 14 },
  { indicator: 'macd', line: 'macd', fast: 12, slow: 26, signal: 9 },
  { indicator: 'macd', line: 'signal', fast: 12, slow: 26, signal: 9 },
  { indicator: 'macd', line: 'histogram', fast: 12, slow: 26, signal: 9 },
  { indicator: 'bollinger', band: 'upper', period: 20, k: 2 },
  { indicator: 'bollinger', band: 'middle', period: 20, k: 2 },
  { indicator: 'bollinger', band: 'lower', period: 20, k: 2 },
  { indicator: 'atr', period: 14 },
  { indicator: 'stochastic', line: 'k', k: 14, d: 3 },
  { indicator: 'stochastic', line: 'd', k: 14, d: 3 },
  { indicator: 'change', candles: 1 },
];
/** The standard indicators as one condition of one clause each (each side's value is what is read). */
const STANDARD_CONDITIONS: TCondition[] = STANDARD.map((left, i) => ({
  id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  when: { kind: 'group', join: 'all', clauses: [{ kind: 'clause', left, operator: 'above', right: { indicator: 'number', value: 0 } }] },
  trigger: { mode: 'once-per-close' },
}));

const sourceOf = (market: TWatchedMarket): TMarketSource => (market.kind === 'stock' ? 'yahoo' : market.exchange);
const marketWords = (market: TWatchedMarket) => (market.kind === 'stock' ? market.symbol : `${market.symbol} on ${WATCHLIST_EXCHANGE_LABELS[market.exchange]}`);

export function getMarketTool({ marketData, now = () => new Date(), ratePerMinute }: MarketReadDeps): Tool<'get_market'> {
  const rate = createRateWindow(ratePerMinute);
  return {
    argsText: ({ market, timeframe, candles, condition }) =>
      `${marketWords(market)}, ${TIMEFRAME_LABELS[timeframe]} candles, the latest ${candles}${condition ? ', with a condition' : ''}`,
    async run({ market, timeframe, candles, condition }, { caller }) {
      if (condition) {
        const problems = conditionTimeframeProblems([condition], timeframe);
        if (problems.length > 0) throw new ToolRefusal('invalid', `The arguments were refused: ${problems.map((p) => `condition.${p.path.replace(/^0\.?/, '')}: ${p.message}`).join('; ')}.`);
      }
      const slot = rate.take(caller.user.id, now().getTime());
      if (!slot.ok) throw new ToolRefusal('rate-limited', `Market data may be read ${ratePerMinute} times a minute. Try again in ${slot.retryAfterSeconds} s.`);

      const conditions = condition ? [...STANDARD_CONDITIONS, condition] : STANDARD_CONDITIONS;
      const needed = conditionCandlesNeeded(conditions, timeframe);
      // The candles asked for, closed, plus the one that may be forming.
      needed.set(timeframe, Math.max(needed.get(timeframe) ?? 0, candles + 1));
      const source = sourceOf(market);
      const series = new Map<TCandleTimeframe, TCandle[]>();
      let simulated = false;
      const tick = tickOf(now());
      for (const [tf, n] of needed) {
        const read = await marketData.getCandles({ source, symbol: market.symbol, timeframe: tf, limit: n }, tick);
        series.set(tf, read.candles);
        simulated ||= read.simulated;
      }
      const own = series.get(timeframe)!;
      const latest = latestClosedIndex(own, timeframe, now().getTime());
      if (latest < 0) throw new ToolRefusal('failed', 'The data provider sent no closed candle for this market yet.');
      const prepared = prepareConditions(conditions, timeframe, series);
      const indicators = Object.fromEntries(STANDARD.map((_, c) => [prepared.outcome(c, latest).clauses[0]!.sides[0]!.label, prepared.outcome(c, latest).clauses[0]!.sides[0]!.at]));
      const closed = own.slice(Math.max(0, latest + 1 - candles), latest + 1);
      const last = own[latest]!;
      const evaluated = condition ? prepared.outcome(conditions.length - 1, latest) : null;
      return {
        data: {
          market: watchedMarketLabel(market),
          source,
          simulated,
          timeframe,
          latestClosedCandle: { ...last, time: new Date(last.time).toISOString() },
          candles: closed.map((c) => [new Date(c.time).toISOString(), c.open, c.high, c.low, c.close, c.volume]),
          candleColumns: ['time', 'open', 'high', 'low', 'close', 'volume'],
          indicators,
          ...(evaluated ? { condition: { met: evaluated.met, clauses: evaluated.clauses } } : {}),
        },
        summary: `${watchedMarketLabel(market)}: close ${formatLimit(last.close)}, ${count(closed.length, 'candle')}${evaluated ? `, condition ${evaluated.met === null ? 'undecided' : evaluated.met ? 'met' : 'not met'}` : ''}${simulated ? ' (simulated)' : ''}`,
      };
    },
  };
}
