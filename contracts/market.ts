import { z } from 'zod';
import { ZConditionOutcome } from './condition-outcomes.ts';

/**
 * Market data and what an agent's run records (issue 6). The server writes a TRunResult into
 * agent_runs.result; the details dialog parses it back with ZRunResult for Run History and the
 * chart. Results are kept for as long as the run is, so a field added later must be optional
 * (or defaulted) here: results recorded before it still have to parse.
 */

/** Candle sizes the runtime fetches; the templates' timeframe options map onto these. */
export const CANDLE_TIMEFRAMES = ['1m', '5m', '15m', '30m', '1h', '4h', '1d', '1w'] as const;
export type TCandleTimeframe = (typeof CANDLE_TIMEFRAMES)[number];

export const TIMEFRAME_MS: Record<TCandleTimeframe, number> = {
  '1m': 60_000,
  '5m': 300_000,
  '15m': 900_000,
  '30m': 1_800_000,
  '1h': 3_600_000,
  '4h': 14_400_000,
  '1d': 86_400_000,
  '1w': 604_800_000,
};

/** Where candles come from: stocks from Yahoo, crypto from one ccxt exchange, or simulated. */
export const MARKET_SOURCES = ['yahoo', 'binance', 'coinbase', 'kraken', 'kucoin', 'htx', 'simulated'] as const;
export type TMarketSource = (typeof MARKET_SOURCES)[number];

/**
 * Why a provider of market or on-chain data could not be read. Each kind has one sentence, the
 * only text about the failure a user ever sees: a provider's own words (error bodies, library
 * messages) can carry anything, so they go to the server log only.
 */
export const MARKET_FAILURES = {
  unreachable: 'The data provider could not be reached.',
  timeout: 'The data provider did not answer in time.',
  'rate-limited': 'The data provider is limiting our requests. Later runs will try again.',
  unavailable: 'The data provider is having trouble on its side.',
  'unknown-symbol': 'The data provider does not list this symbol.',
  'unsupported-timeframe': 'The data provider does not offer candles of this size.',
  'no-data': 'The data provider sent no candles for this market.',
  /** Issue 15: the result's error then says how many arrived (tooFewCandlesError). */
  'too-few-candles': 'The data provider sent too few candles for the rules.',
  /** Issue 15: the latest candle is older than the timeframe allows (docs/decisions/0028). */
  stale: 'The data provider sent no fresh candle: the latest one is too old to count as current.',
  'provider-error': 'The data provider refused the request or sent an answer we could not read.',
  'key-rejected': 'The data provider rejected the API key set on this server.',
  'not-configured': 'This data source is not configured on this server.',
  cancelled: 'The request was cancelled because the server was shutting down.',
  internal: 'This market could not be evaluated because of an error on our side. The server log has the details.',
} as const satisfies Record<string, string>;
export type TMarketFailure = keyof typeof MARKET_FAILURES;

const MARKET_FAILURE_KINDS = Object.keys(MARKET_FAILURES) as [TMarketFailure, ...TMarketFailure[]];

/** One OHLCV candle; `time` is its open time in epoch milliseconds (UTC). */
export const ZCandle = z.object({ time: z.number(), open: z.number(), high: z.number(), low: z.number(), close: z.number(), volume: z.number() });
export type TCandle = z.infer<typeof ZCandle>;

/** A rule of the template, evaluated on the latest candle, with the numbers that decided it. */
export const ZRuleOutcome = z.object({
  /** The template's decision rule name, e.g. 'RSI extreme'. */
  name: z.string(),
  /** 'evaluated': fired says the answer; 'insufficient data': too few candles or undefined
   * (flat data: RSI/%K undefined), never fires; 'not configured': needs an on-chain source. */
  status: z.enum(['evaluated', 'insufficient data', 'not configured']),
  fired: z.boolean(),
  /** The inputs and the limit, e.g. { rsi: 74.2, threshold: 70 } (null when undefined). */
  values: z.record(z.string(), z.number().nullable()),
  /** One sentence a user can check, e.g. 'RSI 74.2 > 70'. */
  detail: z.string(),
});
export type TRuleOutcome = z.infer<typeof ZRuleOutcome>;

/** Series for the details chart: the last candles and, index for index, the overlays. */
export const ZChartData = z.object({
  candles: z.array(ZCandle),
  /** Overlay name ('SMA 20', 'EMA 20', 'Bollinger upper', ...) to values (null in warm-up). */
  overlays: z.record(z.string(), z.array(z.number().nullable())),
  /** Candle times where a rule fired, with the rule's name. */
  markers: z.array(z.object({ time: z.number(), rule: z.string() })),
});
export type TChartData = z.infer<typeof ZChartData>;

/**
 * The latest candle against the candles before it (docs/decisions/0044): what a brief compares a
 * move with, so it can say how unusual it is from recorded numbers only. Averages are over the
 * `window` candles before the latest (null without that many, or without a meaningful value).
 */
export const ZRecentMoves = z.object({
  window: z.number().int(),
  /** The latest close-to-close change, signed, in %. */
  changePercent: z.number().nullable(),
  /** The mean size (up or down) of the close-to-close changes of the window's candles, in %. */
  averageAbsChangePercent: z.number().nullable(),
  volume: z.number().nullable(),
  averageVolume: z.number().nullable(),
  /** The latest candle's range (high minus low) as a % of its close, and the window's mean of it. */
  rangePercent: z.number().nullable(),
  averageRangePercent: z.number().nullable(),
});
export type TRecentMoves = z.infer<typeof ZRecentMoves>;

export const ZMarketResult = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    /** The market as watched, e.g. 'AAPL' or 'BTC/USDT'. */
    symbol: z.string(),
    source: z.enum(MARKET_SOURCES),
    simulated: z.boolean(),
    timeframe: z.enum(CANDLE_TIMEFRAMES),
    price: z.number(),
    /** Open time of the latest candle (ISO). */
    candleTime: z.string(),
    /** Latest value of each computed indicator (name to value; null when undefined). */
    indicators: z.record(z.string(), z.number().nullable()),
    rules: z.array(ZRuleOutcome),
    chart: ZChartData,
    /** Absent in runs recorded before issue 17 item 5. */
    recent: ZRecentMoves.optional(),
    /** The owner's conditions on this market (issue 30); absent in runs recorded before them
     * and in runs of agents without any. */
    conditions: z.array(ZConditionOutcome).optional(),
  }),
  z.object({
    ok: z.literal(false),
    symbol: z.string(),
    source: z.enum(MARKET_SOURCES),
    simulated: z.boolean(),
    /** Why. Absent in runs recorded before kinds existed; a kind this version does not know
     * reads as absent, so the stored `error` is shown instead. */
    failure: z.enum(MARKET_FAILURE_KINDS).optional().catch(undefined),
    /** MARKET_FAILURES[failure] (or our sentence with the candle count): never a provider's own text. */
    error: z.string(),
    /** Stale markets: open time of the latest candle that arrived (ISO). */
    candleTime: z.string().optional(),
  }),
]);
export type TMarketResult = z.infer<typeof ZMarketResult>;

/** An alert a run raised (a notification threshold that fired for one market). */
export const ZRunAlert = z.object({ market: z.string(), threshold: z.string(), value: z.number(), limit: z.number(), message: z.string() });
export type TRunAlert = z.infer<typeof ZRunAlert>;

export const ZRunResult = z.object({
  templateId: z.string(),
  markets: z.array(ZMarketResult),
  alerts: z.array(ZRunAlert),
  /** True when any market's data was simulated (MARKET_DATA=simulated). */
  simulated: z.boolean(),
  /** The signed percent change of the watched prices since the previous run, e.g. '+1.2%'. */
  performance: z.string().nullable(),
});
export type TRunResult = z.infer<typeof ZRunResult>;

/** A series too short for any rule says how many candles arrived, not 'no candles'. */
export const tooFewCandlesError = (count: number, needed: number) =>
  count === 0 ? MARKET_FAILURES['no-data'] : `The data provider sent ${count} candle${count === 1 ? '' : 's'}; the rules need at least ${needed}.`;
