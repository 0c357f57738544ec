import { z } from 'zod';
import { ZAgentConfig } from './agents.ts';
import { formatLimit } from './number-format.ts';
import { CANDLE_TIMEFRAMES, MARKET_FAILURES, MARKET_SOURCES, ZChartData, type TMarketFailure } from './market.ts';

/**
 * "Test on history" (issue 16, decision record 0034): an agent's configuration evaluated on the
 * last N candles of each market it watches, with the same evaluation as a live run, candle by
 * candle. The request carries the configuration as it stands in the wizard or the details
 * (unsaved edits included); the answer is a stream of progress events ending in one result.
 */

/** Candles per market a test evaluates when none are asked for, and at most. */
export const BACKTEST_CANDLES_DEFAULT = 500;
export const BACKTEST_CANDLES_MAX = 5000;
export const BACKTEST_CANDLES_MIN = 50;
/** Markets x candles one test may evaluate: 10 markets of 5,000 candles. */
export const BACKTEST_WORK_MAX = 50_000;
/** Candles after a firing at which the price change is measured. */
export const FORWARD_HORIZONS = [1, 5, 20] as const;
export type TForwardHorizon = (typeof FORWARD_HORIZONS)[number];
/** Above this many notifications on one day the result warns that the agent would flood its owner. */
export const FLOOD_NOTIFICATIONS_PER_DAY = 20;
/** Firings listed per market (the latest); counts and statistics always cover every firing. */
export const BACKTEST_FIRINGS_LISTED = 1000;

/** The field's label on the screen, which its messages name it by. */
export const BACKTEST_CANDLES_LABEL = 'Candles per market';

export const ZBacktestCandles = z
  .number(`${BACKTEST_CANDLES_LABEL} must be a number`)
  .int(`${BACKTEST_CANDLES_LABEL} must be a whole number`)
  .min(BACKTEST_CANDLES_MIN, `${BACKTEST_CANDLES_LABEL} must be at least ${BACKTEST_CANDLES_MIN}`)
  .max(BACKTEST_CANDLES_MAX, `${BACKTEST_CANDLES_LABEL} must be at most ${formatLimit(BACKTEST_CANDLES_MAX)}`);

/** POST /api/agents/backtest: a configuration not saved yet (the wizard). */
export const ZBacktestRequest = z
  .object({ templateId: z.string().min(1).max(100), config: ZAgentConfig, candles: ZBacktestCandles.default(BACKTEST_CANDLES_DEFAULT) })
  .strict();
export type TBacktestRequest = z.input<typeof ZBacktestRequest>;

/** POST /api/agents/:id/backtest: the agent's saved configuration, or `config` in its place. */
export const ZAgentBacktestRequest = z
  .object({ config: ZAgentConfig.optional(), candles: ZBacktestCandles.default(BACKTEST_CANDLES_DEFAULT) })
  .strict();
export type TAgentBacktestRequest = z.input<typeof ZAgentBacktestRequest>;

/** Which way a firing points: the way the rule expects the price to go, if it has one. */
export const ZDirection = z.enum(['up', 'down']).nullable();
export type TDirection = z.infer<typeof ZDirection>;

/** What followed a rule's firings `horizon` candles later, over the firings that far from the end. */
export const ZForwardStats = z.object({
  horizon: z.number().int(),
  /** Firings with a candle `horizon` candles later (the latest firings have none yet). */
  count: z.number().int(),
  /** Mean and median close-to-close change in %, from the firing candle's close; null without firings. */
  average: z.number().nullable(),
  median: z.number().nullable(),
  /** Of the counted firings that point a way, the share (0 to 1) followed by a move that way;
   * null when none points a way. */
  shareInDirection: z.number().nullable(),
});
export type TForwardStats = z.infer<typeof ZForwardStats>;

/** One decision rule ('signal'), one alert threshold or one of the owner's conditions, over the period. */
export const ZBacktestRow = z.object({
  kind: z.enum(['signal', 'alert', 'condition']),
  /** Signals: the rule's name ('RSI extreme'); alerts: 'threshold-{index in the config}';
   * conditions: 'condition-{its id}'. */
  key: z.string(),
  /** For people: 'RSI extreme', the alert's label and limit ('Price change > 5%'), or the
   * condition's title (its name, else its plain words). */
  label: z.string(),
  /** Candles on which it fired (a condition: on which it was met). */
  fired: z.number().int(),
  /** Alerts: events the live agent would have notified (a firing after one that did not fire,
   * as alert_states makes it: once per event until it clears). Conditions: the met candles its
   * trigger would have notified ('once' notifies once; a cooldown holds the ones too close to
   * the last; on history every candle is closed, so once per candle and once per candle close
   * read alike; decision 0072). Signals notify nobody: null. */
  notifications: z.number().int().nullable(),
  /** One entry per FORWARD_HORIZONS, in that order. */
  forward: z.array(ZForwardStats),
});
export type TBacktestRow = z.infer<typeof ZBacktestRow>;

export const ZBacktestFiring = z.object({
  /** The row it belongs to (ZBacktestRow.key). */
  key: z.string(),
  /** Open time of the candle (epoch ms) and its close. */
  time: z.number(),
  price: z.number(),
  direction: ZDirection,
  /** What the live run would have recorded: the rule's detail, the alert's text, or the
   * condition's clauses with the values of their sides. */
  detail: z.string(),
  /** Alerts: this firing started an event; conditions: the trigger let it through. Either way
   * the live agent would have notified it. */
  notified: z.boolean(),
  /** Close-to-close change in % after each of FORWARD_HORIZONS candles; null past the end. */
  forward: z.array(z.number().nullable()),
});
export type TBacktestFiring = z.infer<typeof ZBacktestFiring>;

const MARKET_FAILURE_KINDS = Object.keys(MARKET_FAILURES) as [TMarketFailure, ...TMarketFailure[]];

/** How much history arrived: all that was asked for (warm-up included), or less, and why. */
export const ZHistoryCoverage = z.object({
  requested: z.number().int(),
  received: z.number().int(),
  /** Of those, candles served from the database cache rather than fetched again. */
  cached: z.number().int(),
  /** Null when all arrived; 'provider-history': the provider keeps no older candles (Kraken's
   * last 720, Yahoo's 60 days of 5-minute candles); a failure kind: paging stopped on it
   * (e.g. 'rate-limited') and the test uses what arrived. */
  short: z.union([z.literal('provider-history'), z.enum(MARKET_FAILURE_KINDS)]).nullable(),
});
export type THistoryCoverage = z.infer<typeof ZHistoryCoverage>;

export const ZBacktestMarket = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    /** The market as the live run names it: 'AAPL', 'BTC/USDT on binance'. */
    label: z.string(),
    symbol: z.string(),
    source: z.enum(MARKET_SOURCES),
    simulated: z.boolean(),
    timeframe: z.enum(CANDLE_TIMEFRAMES),
    /** Open times (ISO) of the first and the last evaluated candle. */
    from: z.string(),
    to: z.string(),
    /** Candles evaluated (after the warm-up the indicators need). */
    evaluated: z.number().int(),
    history: ZHistoryCoverage,
    rows: z.array(ZBacktestRow),
    /** The latest BACKTEST_FIRINGS_LISTED firings, oldest first; `firingsOmitted` older ones left out. */
    firings: z.array(ZBacktestFiring),
    firingsOmitted: z.number().int(),
    /** The evaluated candles with a marker at every listed firing (signals and alerts). */
    chart: ZChartData,
  }),
  z.object({
    ok: z.literal(false),
    label: z.string(),
    symbol: z.string(),
    source: z.enum(MARKET_SOURCES),
    simulated: z.boolean(),
    failure: z.enum(MARKET_FAILURE_KINDS),
    /** MARKET_FAILURES[failure] or our own sentence: never a provider's text. */
    error: z.string(),
  }),
]);
export type TBacktestMarket = z.infer<typeof ZBacktestMarket>;

export const ZBacktestResult = z.object({
  templateId: z.string(),
  /** Candles asked for per market. */
  candles: z.number().int(),
  /** True when any market's candles were simulated (MARKET_DATA=simulated): not a real market. */
  simulated: z.boolean(),
  /** The schedule's time zone: days are counted in it. */
  timeZone: z.string(),
  /** The alert settings the counts assume; with both off the live agent would notify nobody. */
  channels: z.object({ email: z.boolean(), inApp: z.boolean() }),
  markets: z.array(ZBacktestMarket),
  /** Rules history cannot replay (the on-chain ones: the source keeps no history), with why. */
  notTested: z.array(z.object({ name: z.string(), reason: z.string() })),
  /** Each signal and alert over every market, as the markets' rows are. */
  summary: z.array(ZBacktestRow),
  /** One notification per run that raised at least one new alert or notified a condition (its
   * trigger let it through), as the live agent sends, after its per-hour cap (decision 0041):
   * what the owner would have received. */
  notifications: z.object({
    /** Alert notifications sent plus alert storm notices. */
    total: z.number().int(),
    /** The agent's cap, and the alert notifications it would have held back (each held period
     * sends one alert storm notice instead, counted in `total` and `stormNotices`). */
    maxPerHour: z.number().int(),
    held: z.number().int(),
    stormNotices: z.number().int(),
    /** Calendar days (in timeZone) from the first evaluated candle to the last. */
    days: z.number().int(),
    perDay: z.number(),
    worstDay: z.object({ date: z.string(), count: z.number().int() }).nullable(),
    /** Days with more than FLOOD_NOTIFICATIONS_PER_DAY notifications. */
    floodDays: z.number().int(),
  }),
});
export type TBacktestResult = z.infer<typeof ZBacktestResult>;

/** The answer's stream (application/x-ndjson): progress while history loads, then the result or an error. */
export const ZBacktestEvent = z.discriminatedUnion('type', [
  /** `market` is the market's label; `loaded` of `total` candles so far. */
  z.object({ type: z.literal('progress'), market: z.string(), loaded: z.number().int(), total: z.number().int() }),
  z.object({ type: z.literal('result'), result: ZBacktestResult }),
  /** A failure after the answer began (its status is already 200): a sentence for people. */
  z.object({ type: z.literal('error'), error: z.string() }),
]);
export type TBacktestEvent = z.infer<typeof ZBacktestEvent>;

export const BACKTEST_CONTENT_TYPE = 'application/x-ndjson';
