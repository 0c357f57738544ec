import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { ZEmail, type TPublicConfig } from '../contracts/auth.ts';
import { CHAT_PROVIDERS, DEFAULT_CHAT_POLICY, OLLAMA_TOOL_MODELS, OLLAMA_VISION_MODELS, type TChatPolicy, type TChatProvider } from '../contracts/chat.ts';
import { DEFAULT_EMBEDDING_MODELS, DOCUMENT_LIMITS, EMBEDDING_DIMENSIONS_DEFAULT, EMBEDDING_PROVIDERS, type TEmbeddingProvider } from '../contracts/documents.ts';
import { FAILING_AFTER_RUNS } from '../contracts/agent-health.ts';
import { ROLES, type TRole } from '../contracts/users.ts';
import { SHARE_ROLES_DEFAULT } from '../contracts/share-links.ts';
import { WEB_SEARCH_PROVIDERS, type TWebSearchProvider } from '../contracts/web-search.ts';
import { controlSocketPath, DATA_DIR_TOO_DEEP } from './db/data-dir-lock.ts';

const emptyToUndefined = (value: unknown) => (value === '' ? undefined : value);
const optionalString = z.preprocess(emptyToUndefined, z.string().optional());
const booleanFlag = z.preprocess(
  emptyToUndefined,
  z.enum(['true', 'false', '1', '0']).optional().transform((v) => v === 'true' || v === '1'),
);

const optionalUrl = z.preprocess(emptyToUndefined, z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional());
const positiveInt = (fallback: number, min = 1) => z.preprocess(emptyToUndefined, z.coerce.number().int().min(min).default(fallback));

/** How long a one-time link stays valid (an invite, an article's preview): 1 hour to 30 days. */
const linkLifetimeHours = (fallback: number) =>
  z.preprocess(
    emptyToUndefined,
    z.coerce
      .number({ error: 'must be a whole number of hours' })
      .int('must be a whole number of hours')
      .min(1, 'must be at least 1 hour')
      .max(720, 'must be at most 720 hours (30 days)')
      .default(fallback),
  );

/** `deepseek=admin,openai=signedIn`: who may use which assistant, over the contract's defaults. */
const ZChatPolicy = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .default('')
    .transform((text, ctx) => {
      const policy: Partial<TChatPolicy> = {};
      for (const entry of text.split(',').map((e) => e.trim()).filter(Boolean)) {
        const [name, access] = entry.split('=').map((p) => p.trim());
        if (!(CHAT_PROVIDERS as readonly string[]).includes(name ?? '') || (access !== 'admin' && access !== 'signedIn')) {
          ctx.addIssue({ code: 'custom', message: `'${entry}' is not provider=admin|signedIn (providers: ${CHAT_PROVIDERS.join(', ')})` });
          return z.NEVER;
        }
        policy[name as TChatProvider] = access;
      }
      return policy;
    }),
);

/** CHAT_SHARE_ROLES (issue 32): `admin,guest`, the roles that may share a chat; none by default. */
const ZShareRoles = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return [...SHARE_ROLES_DEFAULT];
      const roles = [...new Set(text.split(',').map((r) => r.trim()).filter(Boolean))];
      for (const role of roles) {
        if (!(ROLES as readonly string[]).includes(role)) {
          ctx.addIssue({ code: 'custom', message: `'${role}' is not a role (${ROLES.join(', ')})` });
          return z.NEVER;
        }
      }
      return roles as TRole[];
    }),
);

/** proxy-addr's names for address ranges, accepted in a TRUST_PROXY list. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** One entry of a TRUST_PROXY list: an IP address, a CIDR range, or a proxy-addr range name. */
function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address = '', bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  const max = family === 4 ? 32 : 128;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= max;
}

/**
 * TRUST_PROXY (docs/decisions/0045): `false`; `true` (one proxy in front, whose address the
 * server sees); the number of proxies in front; or the proxies' own addresses. The client is the
 * address that many hops back in X-Forwarded-For, counted from the right, so an address a client
 * wrote into the header itself is never taken (with a plain `true`, Fastify takes the left-most).
 */
const ZTrustProxy = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .default('false')
    .transform((text, ctx): TrustProxy => {
      const value = text.trim();
      if (value === 'false' || value === '0') return false;
      if (value === 'true') return 1;
      if (/^\d+$/.test(value)) {
        const hops = Number(value);
        if (hops <= 16) return hops;
      } else {
        const list = value.split(',').map((e) => e.trim()).filter(Boolean);
        if (list.length > 0 && list.every(isProxyAddress)) return list;
      }
      ctx.addIssue({ code: 'custom', message: 'must be true, false, the number of proxies in front (1 to 16), or a comma list of the proxies\' addresses (IP, CIDR, loopback)' });
      return z.NEVER;
    }),
);

/**
 * The hosts each market data provider is reached at. A base URL override (for the fakes in
 * tests/fakes/) may name only that host or a loopback address, so outbound calls go nowhere else.
 */
export const MARKET_HOSTS = {
  binance: ['api.binance.com'],
  coinbase: ['api.exchange.coinbase.com'],
  kraken: ['api.kraken.com'],
  kucoin: ['api.kucoin.com'],
  htx: ['api.huobi.pro'],
  yahoo: ['query1.finance.yahoo.com', 'query2.finance.yahoo.com', 'fc.yahoo.com', 'finance.yahoo.com', 'guce.yahoo.com', 'consent.yahoo.com'],
  whaleAlert: ['api.whale-alert.io'],
  // Not market data, but the same rule: a fixed provider host, or a loopback fake.
  telegram: ['api.telegram.org'],
} as const;
export type MarketHostName = keyof typeof MARKET_HOSTS;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);
/** What an OpenID Connect sign-in asks for unless OIDC_SCOPES says otherwise (Google's always). */
export const OIDC_DEFAULT_SCOPES = 'openid email profile';

function marketUrl(name: MarketHostName) {
  return z.preprocess(
    emptyToUndefined,
    z
      .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
      .refine((url) => {
        const host = new URL(url).hostname;
        return LOOPBACK_HOSTS.has(host) || (MARKET_HOSTS[name] as readonly string[]).includes(host);
      }, `must point at ${MARKET_HOSTS[name].join(' or ')}, or a loopback address for a test fake`)
      .transform((url) => url.replace(/\/+$/, ''))
      .optional(),
  );
}

export const ZEnv = z.object({
  NODE_ENV: z.preprocess(emptyToUndefined, z.enum(['development', 'production', 'test']).default('development')),
  PORT: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(65535).default(3000)),
  HOST: z.preprocess(emptyToUndefined, z.string().default('127.0.0.1')),
  DATABASE_URL: z.preprocess(
    emptyToUndefined,
    z
      .url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// or postgresql:// URL' })
      .optional(),
  ),
  DATA_DIR: z.preprocess(emptyToUndefined, z.string().default('./data')),
  AUTH_PROVIDER: z.preprocess(emptyToUndefined, z.enum(['local', 'google', 'oidc'], 'must be local, google or oidc').optional()),
  ALLOW_LOCAL_AUTH: booleanFlag,
  GOOGLE_CLIENT_ID: optionalString,
  GOOGLE_CLIENT_SECRET: optionalString,
  OIDC_ISSUER: z.preprocess(emptyToUndefined, z.url().default('https://accounts.google.com')),
  // Issue 33 item 1: any OpenID Connect provider (AUTH_PROVIDER=oidc, docs/decisions/0089).
  OIDC_ISSUER_URL: z.preprocess(
    emptyToUndefined,
    z
      .url({ protocol: /^https?$/, error: 'must be an https:// URL (http:// only on a loopback address, for a test provider)' })
      .refine((url) => new URL(url).protocol === 'https:' || LOOPBACK_HOSTS.has(new URL(url).hostname), 'must be https:// (http:// only on a loopback address, for a test provider)')
      .optional(),
  ),
  OIDC_CLIENT_ID: optionalString,
  OIDC_CLIENT_SECRET: optionalString,
  OIDC_SCOPES: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .default(OIDC_DEFAULT_SCOPES)
      .transform((text) => [...new Set(text.split(/[\s,]+/).filter(Boolean))].join(' '))
      .refine((scopes) => scopes.split(' ').includes('openid'), "must include 'openid'")
      .refine((scopes) => /^[\x21\x23-\x5b\x5d-\x7e ]+$/.test(scopes), 'must be scope names separated by spaces'),
  ),
  OIDC_BUTTON_LABEL: z.preprocess(emptyToUndefined, z.string().trim().min(1).max(60, 'must be at most 60 characters').default('Sign in with SSO')),
  OIDC_ADMIN_CLAIM: z.preprocess(emptyToUndefined, z.string().trim().regex(/^[\w:/.-]{1,100}$/, 'must be a claim name (letters, digits, _ : / . -; a dot reaches into an object, e.g. realm_access.roles)').optional()),
  OIDC_ADMIN_VALUES: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .default('')
      .transform((list) => [...new Set(list.split(',').map((v) => v.trim()).filter(Boolean))]),
  ),
  ADMIN_EMAILS: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .default('')
      .transform((list) => list.split(',').map((e) => e.trim()).filter(Boolean))
      .pipe(z.array(ZEmail)),
  ),
  PUBLIC_URL: z.preprocess(emptyToUndefined, z.url({ protocol: /^https?$/ }).optional()),
  SESSION_SECRET: z.preprocess(emptyToUndefined, z.string().min(32, 'must be at least 32 characters').optional()),
  TRUST_PROXY: ZTrustProxy,
  HEADERS_TIMEOUT_MS: positiveInt(10_000, 100),
  /** PGlite: the longest a request waits for the embedded database before 503 (docs/decisions/0050). */
  DB_QUEUE_MAX_WAIT_MS: positiveInt(2_000, 10),
  REQUEST_TIMEOUT_MS: positiveInt(30_000, 100),
  IDLE_TIMEOUT_MS: positiveInt(120_000, 100),
  KEEP_ALIVE_TIMEOUT_MS: positiveInt(72_000, 100),
  MAX_CONNECTIONS: positiveInt(4_096),
  // No default here: it depends on TRUST_PROXY (see httpLimits).
  MAX_CONNECTIONS_PER_IP: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).optional()),
  SIGN_IN_RATE_LIMIT: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).default(10)),
  WRITE_RATE_LIMIT: positiveInt(120),
  MCP_RATE_LIMIT: positiveInt(120),
  BACKTEST_RATE_LIMIT: positiveInt(6),
  BACKTEST_CONCURRENCY: positiveInt(4),
  SITE_NAME: z.preprocess(emptyToUndefined, z.string().max(60).default('Axiom Automation')),
  CONTACT_EMAIL: z.preprocess(emptyToUndefined, ZEmail.default('hello@axiom-automation.com')),
  OPENAI_API_KEY: optionalString,
  ANTHROPIC_API_KEY: optionalString,
  GOOGLE_GENERATIVE_AI_API_KEY: optionalString,
  XAI_API_KEY: optionalString,
  DEEPSEEK_API_KEY: optionalString,
  OPENAI_BASE_URL: optionalUrl,
  ANTHROPIC_BASE_URL: optionalUrl,
  GOOGLE_AI_BASE_URL: optionalUrl,
  XAI_BASE_URL: optionalUrl,
  DEEPSEEK_BASE_URL: optionalUrl,
  OLLAMA_BASE_URL: z.preprocess(emptyToUndefined, z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).default('http://127.0.0.1:11434')),
  OLLAMA_MODELS: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .default('llama3.1')
      .transform((list) => [...new Set(list.split(',').map((m) => m.trim()).filter(Boolean))])
      .pipe(z.array(z.string().max(100)).min(1, 'name at least one model')),
  ),
  CHAT_RATE_LIMIT: positiveInt(20),
  CHAT_DAILY_TOKEN_BUDGET: positiveInt(200_000, 0),
  CHAT_DAILY_IMAGE_BUDGET: positiveInt(10, 0),
  // OpenAI refuses fewer than 16; a shorter answer is of no use either.
  CHAT_MAX_OUTPUT_TOKENS: positiveInt(8_192, 16),
  CHAT_TIMEOUT_MS: positiveInt(30_000, 100),
  /** The longest an answer may run in all (docs/decisions/0056): one nobody watches still ends. */
  CHAT_ANSWER_MAX_SECONDS: positiveInt(600, 10),
  CHAT_ANSWER_LEASE_SECONDS: positiveInt(15, 3),
  /** Each user's chat images, uploaded and generated, in MB (docs/decisions/0055). */
  CHAT_IMAGE_STORAGE_MB: positiveInt(200),
  /** The largest document a user may upload, in MB (issue 32, docs/decisions/0081). */
  DOCUMENT_MAX_MB: positiveInt(DOCUMENT_LIMITS.defaultMaxMb),
  /** Ollama models that see images besides the known ones (names before any ':' tag). */
  OLLAMA_VISION_MODELS: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .default('')
      .transform((list) => list.split(',').map((m) => m.trim()).filter(Boolean))
      .pipe(z.array(z.string().max(100))),
  ),
  /** Ollama models that call tools besides the known ones (names before any ':' tag; issue 31). */
  OLLAMA_TOOL_MODELS: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .default('')
      .transform((list) => list.split(',').map((m) => m.trim()).filter(Boolean))
      .pipe(z.array(z.string().max(100))),
  ),
  CHAT_POLICY: ZChatPolicy,
  CHAT_SHARE_ROLES: ZShareRoles,
  /** Web search in chat (issue 32): off unless an engine is named. */
  WEB_SEARCH_PROVIDER: z.preprocess(emptyToUndefined, z.enum(WEB_SEARCH_PROVIDERS, `must be one of ${WEB_SEARCH_PROVIDERS.join(', ')}`).optional()),
  SEARXNG_URL: optionalUrl,
  BRAVE_SEARCH_API_KEY: optionalString,
  TAVILY_API_KEY: optionalString,
  /** The engines' API origins, for test fakes (the real ones by default). */
  BRAVE_SEARCH_BASE_URL: optionalUrl,
  TAVILY_BASE_URL: optionalUrl,
  /** "Explain alerts" (docs/decisions/0044): how long an alert's email and channels wait for its
   * brief, and how long the assistant has to write it. */
  ALERT_BRIEF_WAIT_SECONDS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(300).default(8)),
  ALERT_BRIEF_TIMEOUT_SECONDS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(300).default(20)),
  /** Documents' embeddings (issue 32, docs/decisions/0081): unset, full-text retrieval alone. */
  EMBEDDING_PROVIDER: z.preprocess(emptyToUndefined, z.enum(EMBEDDING_PROVIDERS, { error: `must be one of ${EMBEDDING_PROVIDERS.join(', ')}` }).optional()),
  EMBEDDING_MODEL: z.preprocess(emptyToUndefined, z.string().max(100).optional()),
  EMBEDDING_DIMENSIONS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(64).max(4096).default(EMBEDDING_DIMENSIONS_DEFAULT)),
  EMBEDDING_CACHE_MB: positiveInt(256),
  MARKET_DATA: z.preprocess(emptyToUndefined, z.enum(['live', 'simulated']).default('live')),
  BINANCE_BASE_URL: marketUrl('binance'),
  COINBASE_BASE_URL: marketUrl('coinbase'),
  KRAKEN_BASE_URL: marketUrl('kraken'),
  KUCOIN_BASE_URL: marketUrl('kucoin'),
  HTX_BASE_URL: marketUrl('htx'),
  YAHOO_BASE_URL: marketUrl('yahoo'),
  WHALE_ALERT_BASE_URL: marketUrl('whaleAlert'),
  WHALE_ALERT_API_KEY: optionalString,
  WHALE_ALERT_MIN_USD: positiveInt(1_000_000),
  MARKET_TIMEOUT_MS: positiveInt(10_000, 100),
  MARKET_RETRIES: positiveInt(3, 0),
  SMTP_URL: z.preprocess(emptyToUndefined, z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional()),
  MAIL_FROM: z.preprocess(emptyToUndefined, ZEmail.optional()),
  /** MAIL_FROM's old name, still read (docs/decisions/0019). */
  SMTP_FROM: z.preprocess(emptyToUndefined, ZEmail.optional()),
  /** Loopback receivers for user-supplied URLs (test fakes), over plain http too (docs/decisions/0040). */
  OUTBOUND_ALLOW_LOOPBACK: booleanFlag,
  /** A PEM file trusted instead of the system's certificates for user-supplied URLs: a test fake's own. */
  OUTBOUND_CA_FILE: optionalString,
  /** Key material for channel secrets at rest (docs/decisions/0043); SESSION_SECRET without it. */
  CHANNEL_SECRET_KEY: z.preprocess(emptyToUndefined, z.string().min(32, 'must be at least 32 characters').optional()),
  TELEGRAM_BASE_URL: marketUrl('telegram'),
  CHANNEL_RETRIES: positiveInt(5, 0),
  CHANNEL_RETRY_DELAY_SECONDS: positiveInt(5, 1),
  EMAIL_RETRIES: positiveInt(5, 0),
  /** The live console's streams (docs/decisions/0042). */
  EVENT_STREAMS_PER_USER: positiveInt(10),
  EVENT_STREAM_MAX_MS: positiveInt(15 * 60_000, 50),
  EVENT_SESSION_CHECK_MS: positiveInt(30_000, 50),
  EMAIL_RETRY_DELAY_SECONDS: positiveInt(5, 1),
  /** A worker's health port (docs/decisions/0045): unset, none. */
  WORKER_HEALTH_PORT: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(65535).optional()),
  RUN_WORKERS: z.preprocess(emptyToUndefined, z.enum(['true', 'false', '1', '0']).default('true').transform((v) => v === 'true' || v === '1')),
  WORKER_CONCURRENCY: positiveInt(16),
  RUN_LEASE_SECONDS: positiveInt(30, 2),
  DISPATCH_INTERVAL_MS: positiveInt(1_000, 50),
  DISPATCH_LOOKAHEAD_MS: positiveInt(5_000, 0),
  // Issue 35 item 2, run history that stays small (docs/decisions/0101). 0 is refused rather than
  // read as "for ever": a typo must not change what is kept; a large number keeps runs for years.
  RUN_RETENTION_DAYS: z.preprocess(
    emptyToUndefined,
    z.coerce
      .number({ error: 'must be a whole number of days' })
      .int('must be a whole number of days')
      .min(1, 'must be at least 1 day (to keep runs for years, set a large number such as 3650)')
      .default(90),
  ),
  RUN_RETENTION_KEEP_LAST: z.preprocess(
    emptyToUndefined,
    z.coerce
      .number({ error: 'must be a whole number of runs' })
      .int('must be a whole number of runs')
      .min(FAILING_AFTER_RUNS, `must be at least ${FAILING_AFTER_RUNS} (the latest runs an agent's health reads)`)
      .default(100),
  ),
  // Issue 33 item 4, metrics and traces (docs/decisions/0091): none of them set, no metrics endpoint and no traces.
  METRICS_PORT: z.preprocess(emptyToUndefined, z.coerce.number({ error: 'must be a port number' }).int('must be a port number').min(0, 'must be a port number (0 to 65535)').max(65535, 'must be a port number (0 to 65535)').optional()),
  METRICS_HOST: z.preprocess(emptyToUndefined, z.string().default('127.0.0.1')),
  METRICS_TOKEN: z.preprocess(emptyToUndefined, z.string().min(32, 'must be at least 32 characters (a scraper\'s bearer token)').regex(/^[\x21-\x7e]+$/, 'must be printable characters without spaces').optional()),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalUrl,
  OTEL_SERVICE_NAME: z.preprocess(emptyToUndefined, z.string().max(100).default('automation-hub')),
  // Issue 33 item 2, passkeys (docs/decisions/0092).
  /** How long an invite link stays valid. */
  INVITE_TTL_HOURS: linkLifetimeHours(72),
  /** How long an article's preview link stays valid (issue 34 item 2, docs/decisions/0098). */
  PREVIEW_LINK_TTL_HOURS: linkLifetimeHours(72),
  LOG_LEVEL: z.preprocess(
    emptyToUndefined,
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ),
});

export type Config = {
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  database: { kind: 'pglite'; dataDir: string | null; maxWaitMs: number } | { kind: 'postgres'; url: string };
  dataDir: string;
  auth:
    | { provider: 'local' }
    | ({ provider: 'google' | 'oidc' } & OidcProviderConfig);
  adminEmails: string[];
  /** The development sign-in (email and name, no proof): AUTH_PROVIDER=local outside
   * production, or with ALLOW_LOCAL_AUTH (docs/decisions/0092). */
  localSignIn: boolean;
  /** Passkey accounts, invited by an admin (docs/decisions/0092); null with an identity provider. */
  passkeys: PasskeysConfig | null;
  publicUrl: string;
  publicOrigin: string;
  secureCookies: boolean;
  sessionSecret: string;
  /** Which peers are proxies whose X-Forwarded-For is believed (docs/decisions/0045). */
  trustProxy: TrustProxy;
  http: HttpLimits;
  signInRateLimit: number;
  /** State-changing requests per signed-in user per minute (chat has its own limit). */
  writeRateLimit: number;
  /** Requests to /mcp per access token per minute (its tool calls have their own limit). */
  mcpRateLimit: number;
  /** Test on history: tests per user per minute, and tests loading history at once per process. */
  backtest: { ratePerMinute: number; concurrency: number };
  siteName: string;
  /** How long an article's preview link stays valid, in ms (PREVIEW_LINK_TTL_HOURS). */
  previewLinkTtlMs: number;
  contactEmail: string;
  logLevel: string;
  /** One sentence each for the log at start (warn): settings given under an old name, and
   * test-only settings that weaken a rule (refused in production, said aloud elsewhere). */
  startWarnings: string[];
  chat: ChatConfig;
  /** Documents in chat (docs/decisions/0081): the largest upload, in bytes (DOCUMENT_MAX_MB). */
  documents: { maxBytes: number };
  /** Web search in chat (issue 32): the engine, or null when the operator configured none. */
  webSearch: WebSearchConfig | null;
  alertBriefs: AlertBriefsConfig;
  embeddings: EmbeddingsConfig;
  market: MarketConfig;
  email: EmailConfig;
  outbound: OutboundConfig;
  channels: ChannelsConfig;
  events: EventsConfig;
  runtime: RuntimeConfig;
  metrics: MetricsConfig;
  /** null: no traces (OTEL_EXPORTER_OTLP_ENDPOINT unset). */
  tracing: TracingConfig | null;
};

/** Where Prometheus reads this process's metrics (issue 33 item 4, docs/decisions/0091). */
export type MetricsConfig = {
  /** METRICS_PORT: /metrics on a listener of its own at METRICS_HOST; null: none. */
  port: number | null;
  host: string;
  /** METRICS_TOKEN: asked as a bearer token of every scrape; set, the web app serves /metrics too. */
  token: string | null;
};

/** OpenTelemetry traces over OTLP/HTTP (issue 33 item 4, docs/decisions/0091). */
export type TracingConfig = {
  /** OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
  tracesUrl: string;
  serviceName: string;
};

/**
 * false: no proxy, the peer is the client. A number: that many proxies in front, each appending
 * its peer to X-Forwarded-For (the app must be reachable only through them). A list: the
 * addresses (IP, CIDR, `loopback`) of the proxies; the client is the right-most address in
 * X-Forwarded-For that is not one of them.
 */
export type TrustProxy = false | number | string[];

/** "Explain alerts" (docs/decisions/0044). */
export type AlertBriefsConfig = {
  /** How long an alert's email and channel deliveries wait for its brief (0: not at all); a
   * brief written later follows them. */
  waitSeconds: number;
  /** The longest wait for the assistant's brief (separate from CHAT_TIMEOUT_MS). */
  timeoutSeconds: number;
};

/** The live console's event streams (GET /api/events, docs/decisions/0042). */
export type EventsConfig = {
  /** Open streams per user (tabs); one more is refused 429. */
  perUser: number;
  /** A stream ends after this long and the browser reconnects, resuming where it was: the
   * connections spread again over the processes, and nothing lives for ever. */
  maxStreamMs: number;
  /** How often open streams check that their session and role still stand. */
  sessionCheckMs: number;
};

/** What one client may hold of the server (docs/decisions/0013): each timeout is enforced to
 * within a second, and a connection over a cap is closed as soon as it is accepted. */
export type HttpLimits = {
  /** From a connection's first byte (or its previous answer) to the end of the request's headers. */
  headersTimeoutMs: number;
  /** From a request's first byte to the end of its body. Answers take as long as they need. */
  requestTimeoutMs: number;
  /** Silence in both directions, mid-request or mid-answer (a client that stopped reading). */
  idleTimeoutMs: number;
  /** How long a kept-alive connection may wait for its next request. */
  keepAliveTimeoutMs: number;
  /** Open connections in all; beyond it new ones are closed at once. */
  maxConnections: number;
  /** Open connections per peer address (IPv6: per /64); 0 = no cap. */
  maxConnectionsPerAddress: number;
};

export type MarketConfig = {
  /** 'simulated': deterministic offline data, every result marked simulated. */
  mode: 'live' | 'simulated';
  /** Base URL overrides (test fakes); undefined = the provider's own host. */
  baseUrls: Partial<Record<MarketHostName, string>>;
  whaleAlert: { apiKey: string | null; minUsd: number };
  timeoutMs: number;
  /** Retries after a 429, a 5xx or a timeout, with backoff. */
  retries: number;
};

export type EmailConfig = {
  /** null: alerts that would be emailed are written to the log instead. */
  smtpUrl: string | null;
  from: string;
  retries: number;
  /** First wait before a retry; it doubles each time (with jitter), up to 10 minutes. */
  retryDelaySeconds: number;
};

/** Passkey accounts (issue 33 item 2, docs/decisions/0092): WebAuthn's relying party is PUBLIC_URL. */
export type PasskeysConfig = {
  /** PUBLIC_URL's host name: the domain passkeys are bound to. */
  rpId: string;
  /** PUBLIC_URL's origin: the only page a ceremony may come from. */
  origin: string;
  /** The name authenticators show beside the passkey (SITE_NAME). */
  rpName: string;
  /** How long an invite link stays valid, in ms (INVITE_TTL_HOURS). */
  inviteTtlMs: number;
};

/** Requests to user-supplied URLs (webhooks, chat channels): server/integrations/outbound/. */
export type OutboundConfig = {
  /** OUTBOUND_ALLOW_LOOPBACK: 127.0.0.0/8 and ::1 allowed, plain http to them too; for tests. */
  allowLoopback: boolean;
  /** OUTBOUND_CA_FILE's certificates, trusted instead of the system's (test fakes only). */
  ca?: string;
};

/** Delivery channels (docs/decisions/0043). */
export type ChannelsConfig = {
  /** What the channel secrets' key is derived from, and which setting gave it. */
  secretKey: { material: string; source: 'CHANNEL_SECRET_KEY' | 'SESSION_SECRET' };
  /** The Telegram Bot API's origin (a loopback fake in tests). */
  telegramBaseUrl: string;
  retries: number;
  /** First wait before a retry; it doubles each time, up to 10 minutes. */
  retryDelaySeconds: number;
};

export type RuntimeConfig = {
  /** false: this process serves the web only (another runs `npm run worker`). */
  runWorkers: boolean;
  /** `npm run worker` answers GET /api/health/live and /ready on HOST at this port; null: no port. */
  workerHealthPort: number | null;
  /** Runs one worker executes at once. */
  concurrency: number;
  /** A running run's lease; a run whose lease passes belonged to a dead worker. */
  leaseSeconds: number;
  /** How often due agents are claimed. */
  dispatchIntervalMs: number;
  /** Slots this close ahead are queued early, held until their time. */
  dispatchLookaheadMs: number;
  /** Finished runs older than this many days are removed, beyond each agent's `retentionKeepLast` (docs/decisions/0101). */
  retentionDays: number;
  /** Each agent's latest runs kept however old they are. */
  retentionKeepLast: number;
};

/** A provider's connection: key (null when missing, or when it needs none) and base URL. */
export type AiProviderSettings = { apiKey: string | null; baseUrl: string | undefined };

export type ChatConfig = {
  providers: Record<TChatProvider, AiProviderSettings>;
  /** Model ids Ollama serves (OLLAMA_MODELS); replaces the contract's Llama list. */
  ollamaModels: string[];
  /** Ollama model names that see images: the contract's and OLLAMA_VISION_MODELS. */
  ollamaVisionModels: string[];
  /** Ollama model names that call tools (issue 31): the contract's and OLLAMA_TOOL_MODELS. */
  ollamaToolModels: string[];
  /** Who may use each assistant: the contract's default with CHAT_POLICY applied. */
  access: TChatPolicy;
  rateLimitPerMinute: number;
  /** Input + output tokens per user per UTC day; 0 = unlimited. */
  dailyTokenBudget: number;
  /** Generated images per user per UTC day; 0 = unlimited. */
  dailyImageBudget: number;
  /** The most output tokens asked of a provider per answer (lowered to what the budget leaves). */
  maxOutputTokens: number;
  timeoutMs: number;
  /** The longest an answer may run in all, in ms (CHAT_ANSWER_MAX_SECONDS). */
  answerMaxMs: number;
  /** How long an answer being written stays its writer's without a save (CHAT_ANSWER_LEASE_SECONDS, docs/decisions/0056, 0061). */
  answerLeaseMs: number;
  /** Each user's stored chat images, in bytes (CHAT_IMAGE_STORAGE_MB). */
  imageStorageBytes: number;
  /** Roles that may share a chat as a link (CHAT_SHARE_ROLES; none by default). */
  shareRoles: TRole[];
};

/** The search engine for web search in chat (issue 32); null in Config when none is configured. */
export type WebSearchConfig = {
  provider: TWebSearchProvider;
  /** The engine's origin (SearXNG's own URL, with any path it is served under). */
  baseUrl: string;
  /** Brave's and Tavily's key; SearXNG needs none. */
  apiKey: string | null;
};

const WEB_SEARCH_ORIGINS = { brave: 'https://api.search.brave.com', tavily: 'https://api.tavily.com' } as const;

function webSearchConfig(e: Pick<z.infer<typeof ZEnv>, 'WEB_SEARCH_PROVIDER' | 'SEARXNG_URL' | 'BRAVE_SEARCH_API_KEY' | 'TAVILY_API_KEY' | 'BRAVE_SEARCH_BASE_URL' | 'TAVILY_BASE_URL'>, problems: string[]): WebSearchConfig | null {
  const trim = (url: string) => url.replace(/\/+$/, '');
  switch (e.WEB_SEARCH_PROVIDER) {
    case undefined:
      return null;
    case 'searxng':
      if (!e.SEARXNG_URL) problems.push('SEARXNG_URL: required when WEB_SEARCH_PROVIDER=searxng');
      return { provider: 'searxng', baseUrl: trim(e.SEARXNG_URL ?? ''), apiKey: null };
    case 'brave':
      if (!e.BRAVE_SEARCH_API_KEY) problems.push('BRAVE_SEARCH_API_KEY: required when WEB_SEARCH_PROVIDER=brave');
      return { provider: 'brave', baseUrl: trim(e.BRAVE_SEARCH_BASE_URL ?? WEB_SEARCH_ORIGINS.brave), apiKey: e.BRAVE_SEARCH_API_KEY ?? null };
    case 'tavily':
      if (!e.TAVILY_API_KEY) problems.push('TAVILY_API_KEY: required when WEB_SEARCH_PROVIDER=tavily');
      return { provider: 'tavily', baseUrl: trim(e.TAVILY_BASE_URL ?? WEB_SEARCH_ORIGINS.tavily), apiKey: e.TAVILY_API_KEY ?? null };
  }
}

/** The chat provider whose key and base URL an embedding provider uses (and whose name its usage rows carry). */
export const EMBEDDING_CHAT_PROVIDER: Record<TEmbeddingProvider, TChatProvider> = { openai: 'openai', gemini: 'gemini', ollama: 'llama' };

/**
 * Documents' embeddings (docs/decisions/0081): the provider (its key and base URL are the chat
 * provider's), the model, the dimensions asked (null: the model's own, Ollama), and the bytes the
 * in-process vector cache may hold.
 */
export type EmbeddingsConfig = {
  setup: { provider: TEmbeddingProvider; settings: AiProviderSettings; model: string; dimensions: number | null } | null;
  cacheBytes: number;
  timeoutMs: number;
};

/** Several browsers behind one address (an office) stay well under it; one client cannot hold
 * more. Off by default behind a proxy (TRUST_PROXY). */
const DEFAULT_MAX_CONNECTIONS_PER_IP = 256;

/** An OpenID Connect provider to sign in with: Google's, or the operator's own (issue 33). */
export type OidcProviderConfig = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated, always with openid. */
  scopes: string;
  /** What the sign-in button says. */
  buttonLabel: string;
  /** Admin iff this claim holds one of the values, at every sign-in; null: ADMIN_EMAILS decides. */
  adminClaim: { claim: string; values: string[] } | null;
};

export class ConfigError extends Error {}

/**
 * Parses the environment once at start. A bad value stops the process with a message that
 * names the variable, instead of failing later in a request.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  overrides: { inMemoryDatabase?: boolean } = {},
): Config {
  const parsed = ZEnv.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const problems: string[] = [];

  const provider = e.AUTH_PROVIDER ?? (e.GOOGLE_CLIENT_ID ? 'google' : 'local');
  let auth: Config['auth'] = { provider: 'local' };
  if (provider === 'google') {
    if (!e.GOOGLE_CLIENT_ID) problems.push('GOOGLE_CLIENT_ID: required when AUTH_PROVIDER=google');
    if (!e.GOOGLE_CLIENT_SECRET) problems.push('GOOGLE_CLIENT_SECRET: required when AUTH_PROVIDER=google');
    auth = {
      provider: 'google',
      clientId: e.GOOGLE_CLIENT_ID ?? '',
      clientSecret: e.GOOGLE_CLIENT_SECRET ?? '',
      issuer: e.OIDC_ISSUER,
      scopes: OIDC_DEFAULT_SCOPES,
      buttonLabel: 'Sign in with Google',
      adminClaim: null,
    };
  }
  if (provider === 'oidc') {
    for (const name of ['OIDC_ISSUER_URL', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'] as const) {
      if (!e[name]) problems.push(`${name}: required when AUTH_PROVIDER=oidc`);
    }
    auth = {
      provider: 'oidc',
      issuer: e.OIDC_ISSUER_URL ?? '',
      clientId: e.OIDC_CLIENT_ID ?? '',
      clientSecret: e.OIDC_CLIENT_SECRET ?? '',
      scopes: e.OIDC_SCOPES,
      buttonLabel: e.OIDC_BUTTON_LABEL,
      adminClaim: e.OIDC_ADMIN_CLAIM ? { claim: e.OIDC_ADMIN_CLAIM, values: e.OIDC_ADMIN_VALUES } : null,
    };
  }
  if (e.OIDC_ADMIN_CLAIM && e.OIDC_ADMIN_VALUES.length === 0) problems.push('OIDC_ADMIN_VALUES: name at least one value when OIDC_ADMIN_CLAIM is set');
  if (e.OIDC_ADMIN_VALUES.length > 0 && !e.OIDC_ADMIN_CLAIM) problems.push('OIDC_ADMIN_CLAIM: required when OIDC_ADMIN_VALUES is set (the claim they are looked for in)');
  if ((e.OIDC_ADMIN_CLAIM || e.OIDC_ISSUER_URL) && provider !== 'oidc') problems.push('AUTH_PROVIDER: set it to oidc to use OIDC_ISSUER_URL and OIDC_ADMIN_CLAIM');
  if (e.NODE_ENV === 'production') {
    // Without a provider and without ALLOW_LOCAL_AUTH, passkeys are the only way in
    // (docs/decisions/0092): browsers offer them on https only (http://localhost aside), and
    // never for an IP address.
    if (provider === 'local' && !e.ALLOW_LOCAL_AUTH) {
      const url = new URL(e.PUBLIC_URL ?? `http://localhost:${e.PORT}`);
      if (url.protocol !== 'https:' && url.hostname !== 'localhost') {
        problems.push('PUBLIC_URL: passkey sign-in needs an https:// address in production (without a provider, passkeys are the only sign-in; ALLOW_LOCAL_AUTH=true allows the development sign-in)');
      } else if (isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0) {
        problems.push('PUBLIC_URL: passkeys are bound to a host name, not an IP address');
      }
    }
    if (!e.SESSION_SECRET) problems.push('SESSION_SECRET: required when NODE_ENV=production');
    // It would let any user's webhook reach services on the server's own host.
    if (e.OUTBOUND_ALLOW_LOOPBACK) problems.push('OUTBOUND_ALLOW_LOOPBACK: refused in production; loopback receivers are for test fakes');
    if (e.OUTBOUND_CA_FILE) problems.push("OUTBOUND_CA_FILE: refused in production; it replaces the system's certificates, for test fakes");
  }
  if (e.HEADERS_TIMEOUT_MS > e.REQUEST_TIMEOUT_MS) problems.push('HEADERS_TIMEOUT_MS: must not be longer than REQUEST_TIMEOUT_MS, which includes the headers');
  if (e.IDLE_TIMEOUT_MS <= e.CHAT_TIMEOUT_MS) problems.push('IDLE_TIMEOUT_MS: must be longer than CHAT_TIMEOUT_MS, or a chat answer waiting for its provider would be cut');
  if (!e.DATABASE_URL && !overrides.inMemoryDatabase && controlSocketPath(e.DATA_DIR) === null) problems.push(DATA_DIR_TOO_DEEP);
  if (!e.RUN_WORKERS && !e.DATABASE_URL) {
    problems.push('RUN_WORKERS: false needs DATABASE_URL; the embedded database runs its agents in the web process');
  }
  if (e.METRICS_PORT !== undefined && e.METRICS_PORT !== 0 && (e.METRICS_PORT === e.PORT || e.METRICS_PORT === e.WORKER_HEALTH_PORT)) problems.push('METRICS_PORT: must differ from PORT and WORKER_HEALTH_PORT (the worker serves /metrics on its health port)');
  const webSearch = webSearchConfig(e, problems);
  if (e.EMBEDDING_PROVIDER === 'openai' && !e.OPENAI_API_KEY) problems.push('EMBEDDING_PROVIDER: openai needs OPENAI_API_KEY');
  if (e.EMBEDDING_PROVIDER === 'gemini' && !e.GOOGLE_GENERATIVE_AI_API_KEY) problems.push('EMBEDDING_PROVIDER: gemini needs GOOGLE_GENERATIVE_AI_API_KEY');
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);

  const chatProviders: ChatConfig['providers'] = {
    openai: { apiKey: e.OPENAI_API_KEY ?? null, baseUrl: e.OPENAI_BASE_URL },
    anthropic: { apiKey: e.ANTHROPIC_API_KEY ?? null, baseUrl: e.ANTHROPIC_BASE_URL },
    gemini: { apiKey: e.GOOGLE_GENERATIVE_AI_API_KEY ?? null, baseUrl: e.GOOGLE_AI_BASE_URL },
    grok: { apiKey: e.XAI_API_KEY ?? null, baseUrl: e.XAI_BASE_URL },
    deepseek: { apiKey: e.DEEPSEEK_API_KEY ?? null, baseUrl: e.DEEPSEEK_BASE_URL },
    llama: { apiKey: null, baseUrl: e.OLLAMA_BASE_URL.replace(/\/+$/, '') },
  };
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  const dataDir = path.resolve(e.DATA_DIR);
  const database: Config['database'] = e.DATABASE_URL
    ? { kind: 'postgres', url: e.DATABASE_URL }
    : { kind: 'pglite', dataDir: overrides.inMemoryDatabase ? null : dataDir, maxWaitMs: e.DB_QUEUE_MAX_WAIT_MS };

  const sessionSecret = e.SESSION_SECRET ?? (overrides.inMemoryDatabase ? randomBytes(32).toString('hex') : storedSecret(dataDir));
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    database,
    dataDir,
    auth,
    adminEmails: e.ADMIN_EMAILS,
    localSignIn: provider === 'local' && (e.NODE_ENV !== 'production' || e.ALLOW_LOCAL_AUTH),
    // Browsers bind passkeys to a host name, never an IP address: at such a PUBLIC_URL (a
    // development server at 127.0.0.1) nothing could use them, so none are offered.
    passkeys:
      provider === 'local' && isIP(new URL(publicUrl).hostname.replace(/^\[|\]$/g, '')) === 0
        ? { rpId: new URL(publicUrl).hostname, origin: new URL(publicUrl).origin, rpName: e.SITE_NAME, inviteTtlMs: e.INVITE_TTL_HOURS * 3_600_000 }
        : null,
    publicUrl,
    publicOrigin: new URL(publicUrl).origin,
    secureCookies: publicUrl.startsWith('https:'),
    sessionSecret,
    trustProxy: e.TRUST_PROXY,
    http: {
      headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
      idleTimeoutMs: e.IDLE_TIMEOUT_MS,
      keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: e.MAX_CONNECTIONS,
      // Behind a reverse proxy every connection comes from the proxy: a per-address cap would
      // cap the proxy (all users together), so it is off unless set; the proxy caps per client.
      maxConnectionsPerAddress: e.MAX_CONNECTIONS_PER_IP ?? (e.TRUST_PROXY !== false ? 0 : DEFAULT_MAX_CONNECTIONS_PER_IP),
    },
    signInRateLimit: e.SIGN_IN_RATE_LIMIT,
    writeRateLimit: e.WRITE_RATE_LIMIT,
    mcpRateLimit: e.MCP_RATE_LIMIT,
    backtest: { ratePerMinute: e.BACKTEST_RATE_LIMIT, concurrency: e.BACKTEST_CONCURRENCY },
    siteName: e.SITE_NAME,
    previewLinkTtlMs: e.PREVIEW_LINK_TTL_HOURS * 3_600_000,
    contactEmail: e.CONTACT_EMAIL,
    logLevel: e.LOG_LEVEL,
    startWarnings: [...deprecations(e), ...testOnlySettings(e), ...openMetrics(e)],
    chat: {
      providers: chatProviders,
      ollamaModels: e.OLLAMA_MODELS,
      ollamaVisionModels: [...new Set([...OLLAMA_VISION_MODELS, ...e.OLLAMA_VISION_MODELS])],
      ollamaToolModels: [...new Set([...OLLAMA_TOOL_MODELS, ...e.OLLAMA_TOOL_MODELS])],
      access: { ...DEFAULT_CHAT_POLICY, ...e.CHAT_POLICY },
      rateLimitPerMinute: e.CHAT_RATE_LIMIT,
      dailyTokenBudget: e.CHAT_DAILY_TOKEN_BUDGET,
      dailyImageBudget: e.CHAT_DAILY_IMAGE_BUDGET,
      maxOutputTokens: e.CHAT_MAX_OUTPUT_TOKENS,
      timeoutMs: e.CHAT_TIMEOUT_MS,
      answerMaxMs: e.CHAT_ANSWER_MAX_SECONDS * 1000,
      answerLeaseMs: e.CHAT_ANSWER_LEASE_SECONDS * 1000,
      imageStorageBytes: e.CHAT_IMAGE_STORAGE_MB * 1024 * 1024,
      shareRoles: e.CHAT_SHARE_ROLES,
    },
    documents: { maxBytes: e.DOCUMENT_MAX_MB * 1024 * 1024 },
    webSearch,
    alertBriefs: { waitSeconds: e.ALERT_BRIEF_WAIT_SECONDS, timeoutSeconds: e.ALERT_BRIEF_TIMEOUT_SECONDS },
    embeddings: {
      setup: e.EMBEDDING_PROVIDER
        ? {
            provider: e.EMBEDDING_PROVIDER,
            settings: chatProviders[EMBEDDING_CHAT_PROVIDER[e.EMBEDDING_PROVIDER]],
            model: e.EMBEDDING_MODEL ?? DEFAULT_EMBEDDING_MODELS[e.EMBEDDING_PROVIDER],
            dimensions: e.EMBEDDING_PROVIDER === 'ollama' ? null : e.EMBEDDING_DIMENSIONS,
          }
        : null,
      cacheBytes: e.EMBEDDING_CACHE_MB * 1024 * 1024,
      timeoutMs: e.CHAT_TIMEOUT_MS,
    },
    market: {
      mode: e.MARKET_DATA,
      baseUrls: Object.fromEntries(
        (
          [
            ['binance', e.BINANCE_BASE_URL],
            ['coinbase', e.COINBASE_BASE_URL],
            ['kraken', e.KRAKEN_BASE_URL],
            ['kucoin', e.KUCOIN_BASE_URL],
            ['htx', e.HTX_BASE_URL],
            ['yahoo', e.YAHOO_BASE_URL],
            ['whaleAlert', e.WHALE_ALERT_BASE_URL],
          ] as const
        ).filter(([, url]) => url !== undefined),
      ),
      whaleAlert: { apiKey: e.WHALE_ALERT_API_KEY ?? null, minUsd: e.WHALE_ALERT_MIN_USD },
      timeoutMs: e.MARKET_TIMEOUT_MS,
      retries: e.MARKET_RETRIES,
    },
    email: {
      smtpUrl: e.SMTP_URL ?? null,
      from: e.MAIL_FROM ?? e.SMTP_FROM ?? `alerts@${new URL(publicUrl).hostname}`,
      retries: e.EMAIL_RETRIES,
      retryDelaySeconds: e.EMAIL_RETRY_DELAY_SECONDS,
    },
    outbound: { allowLoopback: e.OUTBOUND_ALLOW_LOOPBACK, ...(e.OUTBOUND_CA_FILE ? { ca: readCaFile(e.OUTBOUND_CA_FILE) } : {}) },
    channels: {
      secretKey: e.CHANNEL_SECRET_KEY
        ? { material: e.CHANNEL_SECRET_KEY, source: 'CHANNEL_SECRET_KEY' }
        : { material: sessionSecret, source: 'SESSION_SECRET' },
      telegramBaseUrl: e.TELEGRAM_BASE_URL ?? 'https://api.telegram.org',
      retries: e.CHANNEL_RETRIES,
      retryDelaySeconds: e.CHANNEL_RETRY_DELAY_SECONDS,
    },
    events: { perUser: e.EVENT_STREAMS_PER_USER, maxStreamMs: e.EVENT_STREAM_MAX_MS, sessionCheckMs: e.EVENT_SESSION_CHECK_MS },
    runtime: {
      runWorkers: e.RUN_WORKERS,
      workerHealthPort: e.WORKER_HEALTH_PORT ?? null,
      concurrency: e.WORKER_CONCURRENCY,
      leaseSeconds: e.RUN_LEASE_SECONDS,
      dispatchIntervalMs: e.DISPATCH_INTERVAL_MS,
      dispatchLookaheadMs: e.DISPATCH_LOOKAHEAD_MS,
      retentionDays: e.RUN_RETENTION_DAYS,
      retentionKeepLast: e.RUN_RETENTION_KEEP_LAST,
    },
    metrics: { port: e.METRICS_PORT ?? null, host: e.METRICS_HOST, token: e.METRICS_TOKEN ?? null },
    tracing: tracingConfig(e),
  };
}

/** The OTLP/HTTP traces URL as the OpenTelemetry specification derives it from its variables. */
function tracingConfig(e: Pick<z.infer<typeof ZEnv>, 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' | 'OTEL_SERVICE_NAME'>): TracingConfig | null {
  const tracesUrl = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (e.OTEL_EXPORTER_OTLP_ENDPOINT ? `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces` : null);
  return tracesUrl ? { tracesUrl, serviceName: e.OTEL_SERVICE_NAME } : null;
}

function readCaFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    throw new ConfigError(`Invalid configuration:\n  OUTBOUND_CA_FILE: ${file} could not be read`);
  }
}

/** Old names still read, and what to say about each one set. */
function deprecations(e: Pick<z.infer<typeof ZEnv>, 'MAIL_FROM' | 'SMTP_FROM'>): string[] {
  if (e.SMTP_FROM === undefined) return [];
  return [
    e.MAIL_FROM === undefined
      ? 'SMTP_FROM is deprecated and will stop working: rename it to MAIL_FROM'
      : 'SMTP_FROM is ignored because MAIL_FROM is set: remove SMTP_FROM (its old name)',
  ];
}

/** Metrics on a listener other machines reach, without a token (docs/decisions/0091). */
function openMetrics(e: Pick<z.infer<typeof ZEnv>, 'METRICS_PORT' | 'METRICS_HOST' | 'METRICS_TOKEN'>): string[] {
  if (e.METRICS_PORT === undefined || e.METRICS_TOKEN !== undefined || LOOPBACK_HOSTS.has(e.METRICS_HOST) || e.METRICS_HOST.startsWith('127.')) return [];
  return [`METRICS_HOST is ${e.METRICS_HOST} and METRICS_TOKEN is unset: anyone who reaches port ${e.METRICS_PORT} reads the metrics (routes, models, counts). Keep it on a private network, or set METRICS_TOKEN`];
}

/** Test-only settings that are on, and what each one weakens. */
function testOnlySettings(e: Pick<z.infer<typeof ZEnv>, 'OUTBOUND_ALLOW_LOOPBACK' | 'OUTBOUND_CA_FILE'>): string[] {
  return [
    ...(e.OUTBOUND_ALLOW_LOOPBACK
      ? [
          'OUTBOUND_ALLOW_LOOPBACK is on: webhooks and chat channels may point at 127.0.0.0/8 and ::1, over plain http too, so anyone who adds a channel can make this server call services on its own host. It is for tests: turn it off anywhere else',
        ]
      : []),
    ...(e.OUTBOUND_CA_FILE
      ? [`OUTBOUND_CA_FILE is set: webhooks and chat channels trust the certificates in ${e.OUTBOUND_CA_FILE} instead of the system's. It is for tests: unset it anywhere else`]
      : []),
  ];
}

/**
 * What `npm run backup` and `npm run restore` work on: the embedded database's DATA_DIR, or
 * PostgreSQL (pg_dump's) when DATABASE_URL is set. Only those two are read: nothing is written
 * (loadConfig would create DATA_DIR/session-secret in a directory about to be restored).
 */
export function backupTarget(env: NodeJS.ProcessEnv = process.env): { kind: 'pglite'; dataDir: string } | { kind: 'postgres' } {
  const parsed = ZEnv.pick({ DATA_DIR: true, DATABASE_URL: true }).safeParse(env);
  if (!parsed.success) throw new ConfigError(`Invalid configuration:\n${parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`);
  return parsed.data.DATABASE_URL ? { kind: 'postgres' } : { kind: 'pglite', dataDir: path.resolve(parsed.data.DATA_DIR) };
}

/**
 * Where `npm run worker:health` asks this host's worker: HOST and WORKER_HEALTH_PORT from the
 * worker's own environment (nothing else is read, so the check writes nothing and needs no
 * secret). A wildcard HOST is asked on loopback.
 */
export function workerHealthUrl(env: NodeJS.ProcessEnv = process.env): string {
  const parsed = ZEnv.pick({ HOST: true, WORKER_HEALTH_PORT: true }).safeParse(env);
  if (!parsed.success) throw new ConfigError(`Invalid configuration:\n${parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`);
  const { HOST: host, WORKER_HEALTH_PORT: port } = parsed.data;
  if (!port) throw new ConfigError('Invalid configuration:\n  WORKER_HEALTH_PORT: required to ask the worker; set it for the worker and for this check');
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${isIP(reachable) === 6 ? `[${reachable}]` : reachable}:${port}`;
}

/** For process entry points: the config, or the message naming the bad variable and exit 1. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
}

/** Outside production a missing SESSION_SECRET is generated once and kept in DATA_DIR, so
 * restarts keep in-flight sign-ins valid. */
function storedSecret(dataDir: string): string {
  const file = path.join(dataDir, 'session-secret');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const secret = randomBytes(32).toString('hex');
    writeFileSync(file, secret, { mode: 0o600 });
    return secret;
  }
}

export function publicConfig(config: Config): TPublicConfig {
  return {
    siteName: config.siteName,
    contactEmail: config.contactEmail,
    authProvider: config.auth.provider,
    ...(config.auth.provider === 'oidc' ? { signInLabel: config.auth.buttonLabel } : {}),
    localSignIn: config.localSignIn,
    passkeys: config.passkeys !== null,
    chatPolicy: config.chat.access,
    shareRoles: config.chat.shareRoles,
    // The on-chain source is Whale Alert, there exactly when its key is (createWhaleAlertSource).
    sources: { onChain: config.market.whaleAlert.apiKey !== null },
  };
}
