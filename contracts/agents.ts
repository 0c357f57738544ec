import { z } from 'zod';
import { CHANNEL_CHOICE_RULE, MAX_CHANNELS } from './channels.ts';
import {
  ALL_SOURCES,
  defaultValue,
  parametersSchema,
  ZParameterDefinition,
  ZParameterValue,
  type TParameterDefinitions,
  type TParameterSources,
  type TParametersOf,
} from './agent-parameters.ts';
import { ZAgentHealth } from './agent-health.ts';
import { ZRunResult } from './market.ts';
import { defaultThreshold, THRESHOLD_TYPES, thresholdLabel } from './alert-thresholds.ts';
import { formatLimit } from './number-format.ts';
import { CHAT_PROVIDERS } from './chat.ts';
import { ZConditions } from './conditions.ts';
import { ZWatchlist } from './watchlist.ts';

/** Agent templates, schedules and thresholds from SPEC sections 3 and 9, exactly. */

export const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;
export type TWeekday = (typeof WEEKDAYS)[number];

/**
 * One frequency list, ordered by period, one entry per period (docs/decisions/0032): SPEC
 * section 9's options with SPEC section 5's names where it has them. Real-time is every minute
 * (DESIGN section 7), so section 9's '1min' is the same entry, not a second one.
 */
export const FREQUENCIES = ['realtime', '5min', '15min', '30min', 'hourly', 'daily', 'weekly'] as const;
export type TFrequency = (typeof FREQUENCIES)[number];
export const FREQUENCY_LABELS: Record<TFrequency, string> = {
  realtime: 'Real-time',
  '5min': 'Every 5 minutes',
  '15min': 'Every 15 minutes',
  '30min': 'Every 30 minutes',
  hourly: 'Hourly',
  daily: 'Daily',
  weekly: 'Weekly',
};
/** Values stored or sent before the list had one entry per period, and the entry each now is. */
export const FORMER_FREQUENCIES = { '1min': 'realtime' } as const satisfies Record<string, TFrequency>;

/**
 * The list entry a stored or sent frequency names: a current one as it is, a former one mapped
 * (agents saved before keep their schedule without a data migration); undefined for anything
 * else.
 */
export function currentFrequency(frequency: string): TFrequency | undefined {
  if ((FREQUENCIES as readonly string[]).includes(frequency)) return frequency as TFrequency;
  return (FORMER_FREQUENCIES as Record<string, TFrequency>)[frequency];
}

// --- Requests -------------------------------------------------------------------------------

const FORMER_FREQUENCY_VALUES = Object.keys(FORMER_FREQUENCIES) as Array<keyof typeof FORMER_FREQUENCIES>;

/** The schedule's rules beyond its shape, which the server checks (validate-config.ts) and the
 * schedule's hint states. */
export const ACTIVE_DAYS_RULE = 'Choose at least one of the active days';
export const ACTIVE_HOURS_ORDER = 'The start of the active hours must be before their end';

/** A time of day as the schedule holds it, named by its field ('Start of the active hours'). */
const ZTime = (label: string) => z.string(`${label} must be a time such as 09:30`).regex(/^([01]\d|2[0-3]):[0-5]\d$/, `${label} must be a time such as 09:30`);
/** A zone's longest IANA name, with room to spare. */
const TIME_ZONE_MAX = 64;
const TIME_ZONE_RULE = 'Time zone must be an IANA time zone such as Europe/Paris';

export const ZSchedule = z
  .object({
    // A former value ('1min', SPEC section 9's name) is accepted and read as its entry.
    frequency: z
      .enum([...FREQUENCIES, ...FORMER_FREQUENCY_VALUES], `Frequency must be one of ${FREQUENCIES.map((f) => FREQUENCY_LABELS[f]).join(', ')}`)
      .transform((frequency) => currentFrequency(frequency)!),
    daysActive: z
      .array(z.enum(WEEKDAYS, 'Active days must be weekday names such as Monday'))
      .min(1, ACTIVE_DAYS_RULE)
      .max(WEEKDAYS.length, `Active days must be at most ${WEEKDAYS.length}`),
    /** Local time HH:mm in the schedule's time zone. */
    activeHours: z.object({ start: ZTime('Start of the active hours'), end: ZTime('End of the active hours') }).optional(),
    /** IANA time zone the active hours are in (sent by the browser). */
    timeZone: z
      .string(TIME_ZONE_RULE)
      .min(1, TIME_ZONE_RULE)
      .max(TIME_ZONE_MAX, `Time zone must be at most ${TIME_ZONE_MAX} characters`)
      .refine(isTimeZone, TIME_ZONE_RULE),
  })
  .strict();
export type TSchedule = z.infer<typeof ZSchedule>;

/** A threshold's limits: the schema refuses with them and the editor's hint states them. */
export const THRESHOLD_VALUE_MAX = 10_000;
export const THRESHOLD_MESSAGE_MAX = 200;
const THRESHOLD_VALUE_RULE = `Value must be a number from 0 to ${formatLimit(THRESHOLD_VALUE_MAX)}`;
/** Most alert thresholds one agent may set. */
export const THRESHOLDS_MAX = 20;

export const ZThreshold = z
  .object({
    type: z.enum(THRESHOLD_TYPES, `Type must be one of ${THRESHOLD_TYPES.map(thresholdLabel).join(', ')}`),
    value: z.number(THRESHOLD_VALUE_RULE).min(0, THRESHOLD_VALUE_RULE).max(THRESHOLD_VALUE_MAX, THRESHOLD_VALUE_RULE),
    message: z
      .string('Message is required')
      .trim()
      .min(1, 'Message is required')
      .max(THRESHOLD_MESSAGE_MAX, `Message must be at most ${formatLimit(THRESHOLD_MESSAGE_MAX)} characters`),
  })
  .strict();
export type TThreshold = z.infer<typeof ZThreshold>;

/** Notifications one agent may create per hour before its alerts are held back (docs/decisions/0041). */
export const MAX_PER_HOUR_DEFAULT = 12;
export const MAX_PER_HOUR_MIN = 1;
export const MAX_PER_HOUR_MAX = 1000;
/** The rule the schema refuses with, as the field's hint states it. */
export const MAX_PER_HOUR_RULE = `A whole number from ${MAX_PER_HOUR_MIN} to ${formatLimit(MAX_PER_HOUR_MAX)}; ${MAX_PER_HOUR_DEFAULT} when left empty.`;
/** Its label on the screen, which the schema's messages name it by. */
const PER_HOUR = 'Notifications per hour';

/** The rules the server refuses an "Explain alerts" choice with, as the fields' hints state them. */
export const BRIEF_PROVIDER_RULE = 'Choose one of the assistants you may use';
export const BRIEF_MODEL_RULE = "Choose one of the assistant's text models";

export const ZAlertBriefChoice = z
  .object({
    provider: z.enum(CHAT_PROVIDERS, BRIEF_PROVIDER_RULE),
    model: z.string(BRIEF_MODEL_RULE).trim().min(1, BRIEF_MODEL_RULE).max(100, 'The model must be at most 100 characters'),
  })
  .strict();
export type TAlertBriefChoice = z.infer<typeof ZAlertBriefChoice>;

export const ZNotifications = z
  .object({
    email: z.boolean(),
    inApp: z.boolean(),
    thresholds: z.array(ZThreshold).max(THRESHOLDS_MAX, `Alert thresholds must be at most ${THRESHOLDS_MAX}`),
    /** Optional: configurations stored before the cap existed read as the default. */
    maxPerHour: z
      .number(`${PER_HOUR} must be a number`)
      .int(`${PER_HOUR} must be a whole number`)
      .min(MAX_PER_HOUR_MIN, `${PER_HOUR} must be at least ${MAX_PER_HOUR_MIN}`)
      .max(MAX_PER_HOUR_MAX, `${PER_HOUR} must be at most ${formatLimit(MAX_PER_HOUR_MAX)}`)
      .optional(),
    /** The owner's delivery channels this agent also notifies (docs/decisions/0043). Optional:
     * configurations stored before channels existed read as none. */
    channels: z
      .array(z.uuid(CHANNEL_CHOICE_RULE))
      .max(MAX_CHANNELS, `Choose at most ${MAX_CHANNELS} channels`)
      .refine((ids) => new Set(ids).size === ids.length, 'Each channel may be chosen once')
      .optional(),
    /** "Explain alerts" (docs/decisions/0044): the chat assistant and model that write a brief of
     * each alert notification. Absent: off. Which assistants and models the owner may choose is
     * the server's policy and lists, checked on save (400 on the field). */
    brief: ZAlertBriefChoice.optional(),
  })
  .strict();
export type TNotifications = z.infer<typeof ZNotifications>;

/** The agent's cap on alert notifications per hour: its own, else the default. */
export const notificationsPerHour = (notifications: Pick<TNotifications, 'maxPerHour'>) => notifications.maxPerHour ?? MAX_PER_HOUR_DEFAULT;

/** The shape of a configuration; what each parameter may hold depends on the template, so the
 * server checks `parameters` against the template's own schema (validateAgentConfig). */
export const ZAgentConfig = z
  .object({
    schedule: ZSchedule,
    notifications: ZNotifications,
    parameters: z.record(z.string().max(100, 'A parameter name must be at most 100 characters'), ZParameterValue),
    /** The owner's own conditions (issue 30, docs/decisions/0071). Optional: configurations stored
     * before them read as none. */
    conditions: ZConditions.optional(),
    /** The Custom Monitor's markets (its template requires them; the others refuse them). */
    watchlist: ZWatchlist.optional(),
  })
  .strict();
export type TAgentConfig = z.infer<typeof ZAgentConfig>;

export const ZAgentName = z.string('Please provide a name for your agent').trim().min(1, 'Please provide a name for your agent').max(100, 'Name must be at most 100 characters');

const ZTemplateId = z.string('Choose a template').min(1, 'Choose a template').max(100, 'Template must be at most 100 characters');
/** SPEC's `googleId`, which the server only compares with the session's. */
const ZGoogleId = z.string().max(256, 'Google id must be at most 256 characters');

/** POST /api/agents. `googleId` is SPEC's; the server refuses one that is not the session's. */
export const ZCreateAgent = z
  .object({ templateId: ZTemplateId, name: ZAgentName, config: ZAgentConfig, googleId: ZGoogleId.optional() })
  .strict();
export type TCreateAgent = z.infer<typeof ZCreateAgent>;

export const AGENT_STATUSES = ['running', 'paused'] as const;
export type TAgentStatus = (typeof AGENT_STATUSES)[number];

/** PATCH /api/agents/:id: a status change or a whole new config (SPEC sends the whole config). */
export const ZUpdateAgent = z
  .object({
    status: z.enum(AGENT_STATUSES, "Status must be 'running' or 'paused'").optional(),
    config: ZAgentConfig.optional(),
    name: ZAgentName.optional(),
    googleId: ZGoogleId.optional(),
  })
  .strict()
  .refine((body) => body.status !== undefined || body.config !== undefined || body.name !== undefined, 'Send status, config or name');

export const ZAgentIdParams = z.object({ id: z.uuid('Agent id must be a UUID') });
export const ZAgentQuery = z.object({ googleId: ZGoogleId.optional() }).strict();
/** POST /api/agents/:id/run: run now. The body is optional; SPEC's googleId may ride in it. */
export const ZRunAgent = z.object({ googleId: ZGoogleId.optional() }).strict();
export const ZRunsQuery = z
  .object({
    googleId: ZGoogleId.optional(),
    limit: z.coerce.number().int('Limit must be a whole number').min(1, 'Limit must be at least 1').max(500, 'Limit must be at most 500').default(50),
  })
  .strict();

// --- Templates -------------------------------------------------------------------------------

/** GET /api/agent-templates: one template (SPEC section 3's fields). */
export const ZAgentTemplate = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(['stock', 'crypto', 'other']),
  description: z.string(),
  complexity: z.enum(['Basic', 'Medium', 'Advanced']),
  defaultConfig: z.object({
    schedule: ZSchedule.omit({ timeZone: true }),
    notifications: ZNotifications,
    parameters: z.record(z.string(), ZParameterDefinition),
    /** The Custom Monitor's starting markets. */
    watchlist: ZWatchlist.optional(),
  }),
  implementation: z.object({
    dataSourceEndpoints: z.array(z.string()),
    analysisModules: z.array(z.string()),
    decisionRules: z.array(z.object({ name: z.string(), description: z.string(), condition: z.string() })),
    actionHandlers: z.array(z.string()),
  }),
  ui: z.object({
    icon: z.string(),
    color: z.string(),
    dashboardLayout: z.object({ charts: z.array(z.string()), tables: z.array(z.string()) }),
    chartTypes: z.array(z.string()),
  }),
});
export type TAgentTemplate = z.infer<typeof ZAgentTemplate>;

const STOCK_SCANNER_PARAMETERS = {
  symbols: {
    type: 'textarea',
    label: 'Symbols',
    description: 'Ticker symbols to scan, separated by commas.',
    default: 'AAPL, MSFT, GOOGL, AMZN, META',
    required: true,
  },
  indicators: {
    type: 'multi-select',
    label: 'Indicators',
    description: 'Technical indicators to compute on each run.',
    default: ['SMA', 'EMA', 'RSI'],
    required: true,
    validation: { options: ['SMA', 'EMA', 'RSI', 'MACD', 'Bollinger Bands', 'Stochastic Oscillator'] },
  },
  timeframe: {
    type: 'select',
    label: 'Timeframe',
    description: 'Candle size the indicators are computed on.',
    default: 'daily',
    required: true,
    validation: { options: ['1min', '5min', '15min', '30min', 'hourly', 'daily', 'weekly'] },
  },
  rsiThreshold: {
    type: 'slider',
    label: 'RSI threshold',
    description: 'Alert when RSI rises above this value or falls below 100 minus it.',
    default: 70,
    required: true,
    validation: { min: 0, max: 100 },
  },
  movingAveragePeriod: {
    type: 'number',
    label: 'Moving average period',
    description: 'Number of candles in the moving average.',
    default: 20,
    required: true,
    validation: { min: 5, max: 200 },
  },
  includeVolume: {
    type: 'boolean',
    label: 'Include volume',
    description: 'Also watch trading volume against its average.',
    default: true,
    required: false,
  },
} as const satisfies TParameterDefinitions;

const CRYPTO_MONITOR_PARAMETERS = {
  token: {
    type: 'string',
    label: 'Token',
    description: 'The coin symbol to watch, e.g. BTC or ETH.',
    default: 'BTC',
    required: true,
    validation: { pattern: '^[A-Z]{2,10}$', patternMessage: 'must be 2 to 10 capital letters (e.g. BTC)' },
  },
  exchanges: {
    type: 'multi-select',
    label: 'Exchanges',
    description: 'Exchanges to read prices and volume from.',
    default: ['Binance', 'Coinbase', 'Kraken'],
    required: true,
    validation: {
      options: ['Binance', 'Coinbase', 'Kraken', 'FTX', 'Huobi', 'KuCoin'],
      disabledOptions: { FTX: 'Closed since 2022' },
      optionLabels: { Huobi: 'HTX (Huobi)' },
    },
  },
  timeframe: {
    type: 'select',
    label: 'Timeframe',
    description: 'Candle size for price change and volatility.',
    default: '15min',
    required: true,
    validation: { options: ['1min', '5min', '15min', '30min', '1h', '4h', '1d'] },
  },
  includeOnChainMetrics: {
    type: 'boolean',
    label: 'Include on-chain metrics',
    description: 'Add on-chain data (needs a configured on-chain source).',
    default: true,
    required: true,
    needs: 'onChain',
  },
  volatilityThreshold: {
    type: 'slider',
    label: 'Volatility threshold',
    description: 'Alert when volatility exceeds its average times this factor.',
    default: 2,
    required: true,
    validation: { min: 1, max: 5, step: 0.1 },
  },
  priceChangeThreshold: {
    type: 'number',
    label: 'Price change threshold (%)',
    description: 'Alert when the price changes by more than this percentage.',
    default: 3,
    required: true,
    validation: { min: 0.1, max: 20, step: 0.1 },
  },
  walletTracking: {
    type: 'boolean',
    label: 'Wallet tracking',
    description: 'Follow large wallets (needs a configured on-chain source).',
    default: false,
    required: true,
    needs: 'onChain',
  },
} as const satisfies TParameterDefinitions;

/** The Custom Monitor's parameters (issue 30 item 3): only the candle size; what it watches is its
 * watchlist (config.watchlist), and what it looks for is the owner's conditions and thresholds. */
const CUSTOM_MONITOR_PARAMETERS = {
  timeframe: {
    type: 'select',
    label: 'Timeframe',
    description: 'Candle size the conditions and alerts are evaluated on (a condition may also read a longer one).',
    default: '1h',
    required: true,
    validation: {
      options: ['1min', '5min', '15min', '30min', '1h', '4h', '1d', '1w'],
      optionLabels: { '1min': '1 minute', '5min': '5 minutes', '15min': '15 minutes', '30min': '30 minutes', '1h': '1 hour', '4h': '4 hours', '1d': '1 day', '1w': '1 week' },
    },
  },
} as const satisfies TParameterDefinitions;

/** The Stock Market Scanner's parameters, parsed: what its runs read. */
export const ZStockScannerParameters = parametersSchema(STOCK_SCANNER_PARAMETERS);
export type TStockScannerParameters = TParametersOf<typeof STOCK_SCANNER_PARAMETERS>;
/** The Crypto Market Monitor's parameters, parsed: what its runs read. */
export const ZCryptoMonitorParameters = parametersSchema(CRYPTO_MONITOR_PARAMETERS);
export type TCryptoMonitorParameters = TParametersOf<typeof CRYPTO_MONITOR_PARAMETERS>;
/** The Custom Monitor's parameters, parsed: what its runs read. */
export const ZCustomMonitorParameters = parametersSchema(CUSTOM_MONITOR_PARAMETERS);
export type TCustomMonitorParameters = TParametersOf<typeof CUSTOM_MONITOR_PARAMETERS>;

const WEEKDAYS_MON_FRI: TWeekday[] = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];

export const AGENT_TEMPLATES: readonly TAgentTemplate[] = [
  {
    id: 'stock-market-scanner',
    name: 'Stock Market Scanner',
    type: 'stock',
    description: 'Scans a list of stocks on a schedule, computes technical indicators and alerts you when momentum, trend or volume signals fire.',
    complexity: 'Medium',
    defaultConfig: {
      schedule: { frequency: 'hourly', activeHours: { start: '09:30', end: '16:00' }, daysActive: WEEKDAYS_MON_FRI },
      notifications: {
        email: true,
        inApp: true,
        thresholds: [
          defaultThreshold('priceChange', 5),
          defaultThreshold('volumeSpike', 200),
        ],
      },
      parameters: STOCK_SCANNER_PARAMETERS,
    },
    implementation: {
      dataSourceEndpoints: ['api/market-data/stocks', 'api/market-data/indicators'],
      analysisModules: ['technical-indicators', 'volume-analysis'],
      decisionRules: [
        { name: 'RSI extreme', description: 'RSI above the threshold (overbought) or below 100 minus it (oversold).', condition: 'rsi > rsiThreshold || rsi < 100 - rsiThreshold' },
        { name: 'Moving average crossover', description: 'Price crosses above its moving average.', condition: 'previousClose <= previousMa && close > ma' },
        { name: 'Volume spike', description: 'Volume above twice its average.', condition: 'volume > 2 * averageVolume' },
      ],
      actionHandlers: ['notify-in-app', 'notify-email', 'record-run'],
    },
    ui: { icon: 'trending-up', color: 'blue', dashboardLayout: { charts: ['price', 'indicators'], tables: ['signals'] }, chartTypes: ['candlestick', 'line'] },
  },
  {
    id: 'crypto-market-monitor',
    name: 'Crypto Market Monitor',
    type: 'crypto',
    description: 'Watches a coin across exchanges around the clock and alerts you to price swings, volatility, volume surges and whale moves.',
    complexity: 'Medium',
    defaultConfig: {
      schedule: { frequency: '5min', activeHours: { start: '00:00', end: '23:59' }, daysActive: [...WEEKDAYS] },
      notifications: {
        email: true,
        inApp: true,
        thresholds: [
          defaultThreshold('priceChange', 3),
          defaultThreshold('volatilityAlert', 2),
          defaultThreshold('volumeAlert', 150),
        ],
      },
      parameters: CRYPTO_MONITOR_PARAMETERS,
    },
    implementation: {
      dataSourceEndpoints: ['api/market-data/crypto', 'api/blockchain-data', 'api/exchange-data'],
      analysisModules: ['price-change', 'volatility', 'volume-analysis', 'on-chain'],
      decisionRules: [
        { name: 'Price change', description: 'Percent change above the threshold.', condition: 'abs(percentChange) > priceChangeThreshold' },
        { name: 'Volatility spike', description: 'Volatility above its average times the threshold.', condition: 'volatility > averageVolatility * volatilityThreshold' },
        { name: 'Volume surge', description: 'Volume above 1.5 times its average.', condition: 'volume > 1.5 * averageVolume' },
        { name: 'Whale transaction', description: 'A large on-chain transfer of the token.', condition: 'whaleTransactions.length > 0' },
      ],
      actionHandlers: ['notify-in-app', 'notify-email', 'record-run'],
    },
    ui: { icon: 'bitcoin', color: 'amber', dashboardLayout: { charts: ['price', 'volume'], tables: ['exchanges', 'alerts'] }, chartTypes: ['candlestick', 'bar'] },
  },  {
    id: 'custom-monitor',
    name: 'Custom Monitor',
    type: 'other',
    description: 'Watches a list of stocks and crypto pairs you choose, on any exchange, and alerts you when conditions of your own are met.',
    complexity: 'Advanced',
    defaultConfig: {
      schedule: { frequency: 'hourly', activeHours: { start: '00:00', end: '23:59' }, daysActive: [...WEEKDAYS] },
      notifications: { email: true, inApp: true, thresholds: [] },
      parameters: CUSTOM_MONITOR_PARAMETERS,
      watchlist: [
        { kind: 'stock', symbol: 'AAPL' },
        { kind: 'crypto', symbol: 'BTC/USDT', exchange: 'binance' },
      ],
    },
    implementation: {
      dataSourceEndpoints: ['api/market-data/stocks', 'api/market-data/crypto'],
      analysisModules: ['technical-indicators', 'conditions'],
      // No fixed signals: only the owner's conditions and thresholds decide.
      decisionRules: [],
      actionHandlers: ['notify-in-app', 'notify-email', 'record-run'],
    },
    ui: { icon: 'list-checks', color: 'emerald', dashboardLayout: { charts: ['price'], tables: ['conditions'] }, chartTypes: ['candlestick'] },
  },
];

/** SPEC: default names are the template name plus ' - S&P 500', ' - BTC/ETH' or ' - New'. */
export function defaultAgentName(template: Pick<TAgentTemplate, 'name' | 'type'>): string {
  const suffix = template.type === 'stock' ? ' - S&P 500' : template.type === 'crypto' ? ' - BTC/ETH' : ' - New';
  return `${template.name}${suffix}`;
}

export const findTemplate = (id: string) => AGENT_TEMPLATES.find((t) => t.id === id);

/** Each template's parameter schema, built once from its definitions. */
const PARAMETER_SCHEMAS = new Map(AGENT_TEMPLATES.map((t) => [t.id, parametersSchema(t.defaultConfig.parameters)]));

/** The schema a template's parameters are checked with (undefined for an unknown template). */
export const templateParametersSchema = (templateId: string) => PARAMETER_SCHEMAS.get(templateId);

/**
 * A template's own defaults as a whole configuration, as the wizard starts it: a copy, so a
 * caller may change it. The time zone is the one its active hours are read in; `sources` are the
 * outside sources the server has (a switch needing a missing one starts off).
 */
export function defaultAgentConfig(template: TAgentTemplate, timeZone = 'UTC', sources: TParameterSources = ALL_SOURCES): TAgentConfig {
  const { schedule, notifications, parameters, watchlist } = structuredClone(template.defaultConfig);
  return {
    schedule: { ...schedule, timeZone },
    notifications,
    parameters: Object.fromEntries(Object.entries(parameters).map(([key, definition]) => [key, defaultValue(definition, sources)])),
    ...(watchlist ? { watchlist } : {}),
  };
}

// --- Answers ---------------------------------------------------------------------------------

/** An agent as the API answers it (list, details, and every write). */
export const ZAgent = z.object({
  id: z.string(),
  name: z.string(),
  templateId: z.string(),
  status: z.enum(AGENT_STATUSES),
  lastRun: z.string().nullable(),
  /** Signed percent change text such as '+1.2%', or null when none yet. */
  performance: z.string().nullable(),
  createdAt: z.string(),
  /** When the next run is due (running agents), for the card. */
  nextRunAt: z.string().nullable(),
  config: ZAgentConfig,
  /** Failing or not, from its runs (docs/decisions/0028). */
  health: ZAgentHealth,
});
export type TAgent = z.infer<typeof ZAgent>;

/** POST /api/agents/:id/run. */
export const ZRunQueued = z.object({ runId: z.number().int() });

export const RUN_STATUSES = ['queued', 'running', 'success', 'failure'] as const;

/** One run, as the runtime records it. */
export const ZAgentRun = z.object({
  id: z.number().int(),
  /** 'queued' until the runtime picks it up; then 'running', 'success' or 'failure'. */
  status: z.enum(RUN_STATUSES),
  /** The schedule slot this run is for; null for a run started with run-now. */
  scheduledFor: z.string().nullable(),
  startTime: z.string().nullable(),
  endTime: z.string().nullable(),
  /** Null until the run ends, and for a run that failed before reading any market. */
  result: ZRunResult.nullable(),
  error: z.string().nullable(),
  createdAt: z.string(),
});
export type TAgentRun = z.infer<typeof ZAgentRun>;

/**
 * GET /api/agents/:id/runs: each run as its row holds it. A row recorded by an earlier version
 * may hold a result of another shape; it reads as `result: null` with the JSON as stored in
 * `unreadableResult`, so one old row never hides the rest of the history.
 */
export const ZRunHistory = z.array(
  ZAgentRun.extend({ result: z.unknown() }).transform((run): TRunHistoryEntry => {
    const result = ZRunResult.nullable().safeParse(run.result ?? null);
    return result.success ? { ...run, result: result.data } : { ...run, result: null, unreadableResult: run.result };
  }),
);
export type TRunHistoryEntry = TAgentRun & { unreadableResult?: unknown };
/** The runs answer as sent: what the server builds. */
export type TRunHistoryAnswer = z.input<typeof ZRunHistory>;

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
