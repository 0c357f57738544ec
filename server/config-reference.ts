/**
 * The operators' reference of every environment variable the server reads (issue 33 item 6):
 * docs/operator/configuration.md is generated from this and from the schema's own defaults by
 * `npm run docs:config` (script/docs-config.ts). Keyed by the schema's keys with `satisfies`, so
 * a variable added to ZEnv without an entry here does not compile, and an entry for a variable
 * the schema lost does not either. Links are relative to docs/operator/.
 */
import type { ZEnv } from './config.ts';

export type ConfigVariable = keyof typeof ZEnv.shape;

/** The reference's sections, in the order they are printed. */
export const CONFIG_AREAS = {
  server: 'Server, database and logs',
  signIn: 'Sign-in',
  http: 'HTTP limits, proxies and rate limits',
  chat: 'AI assistants',
  documents: 'Documents, embeddings and web search',
  market: 'Market data',
  alerts: 'Alerts: email, channels and briefs',
  runtime: 'Agents runtime and the live console',
  observability: 'Metrics and traces',
} as const;

export type VariableDoc = {
  area: keyof typeof CONFIG_AREAS;
  /** What it does, in Markdown (one paragraph). */
  meaning: string;
  /**
   * The default in words, only where the schema has none of its own (a default computed from
   * other variables, or a provider's own address). Where the schema has a default, the generator
   * prints that one and refuses a second text here, so the two cannot disagree.
   */
  defaultText?: string;
};

const PROVIDERS_OWN = "the provider's own";

export const CONFIG_REFERENCE = {
  NODE_ENV: {
    area: 'server',
    meaning:
      '`development`, `production` or `test`. `production` turns the development sign-in off unless `ALLOW_LOCAL_AUTH=true` (without a provider, passkeys are then the only sign-in, and `PUBLIC_URL` must be `https://` and a host name), requires `SESSION_SECRET`, and refuses the test-only `OUTBOUND_ALLOW_LOOPBACK` and `OUTBOUND_CA_FILE`',
  },
  PORT: { area: 'server', meaning: 'the port the server listens on' },
  HOST: { area: 'server', meaning: 'the address the server (and a worker\'s health port) listens on' },
  DATABASE_URL: {
    area: 'server',
    meaning: '`postgres://...` to use PostgreSQL ([PostgreSQL and scaling](postgresql-and-scaling.md)); unset, the embedded PGlite in `DATA_DIR`',
    defaultText: 'unset: PGlite in `DATA_DIR`',
  },
  DATA_DIR: {
    area: 'server',
    meaning:
      'the embedded database (PGlite), open in one process at a time (its path at most 91 characters, absolute or relative to the working directory: a Unix socket lives in it), and `session-secret` when `SESSION_SECRET` is not set. `npm run backup` copies it safely ([Backups](backups-and-upgrades.md#the-embedded-database))',
  },
  AUTH_PROVIDER: {
    area: 'signIn',
    meaning: '`local`, `google` or `oidc` (any OpenID Connect provider: [Sign-in](sign-in.md))',
    defaultText: '`google` if `GOOGLE_CLIENT_ID` is set, else `local`',
  },
  ALLOW_LOCAL_AUTH: {
    area: 'signIn',
    meaning: '`true`: the development sign-in (any email and name, no proof) stays on with `NODE_ENV=production`. Without it, production has passkeys or a provider only ([Passkeys](sign-in.md#passkeys))',
  },
  GOOGLE_CLIENT_ID: { area: 'signIn', meaning: "Google's OpenID Connect client; redirect URI `PUBLIC_URL/api/auth/google/callback` ([Signing in with Google](sign-in.md#signing-in-with-google))" },
  GOOGLE_CLIENT_SECRET: { area: 'signIn', meaning: "the Google client's secret (server only, never logged)" },
  OIDC_ISSUER: { area: 'signIn', meaning: "Google's issuer, overridable so tests use a local issuer (not `OIDC_ISSUER_URL`)" },
  OIDC_ISSUER_URL: {
    area: 'signIn',
    meaning:
      "`AUTH_PROVIDER=oidc`: your provider's issuer (https; plain http only on loopback, for tests); required with `OIDC_CLIENT_ID` and `OIDC_CLIENT_SECRET`. Redirect URI `PUBLIC_URL/api/auth/oidc/callback` ([Sign-in providers](sign-in.md#sign-in-providers))",
  },
  OIDC_CLIENT_ID: { area: 'signIn', meaning: '`AUTH_PROVIDER=oidc`: the client registered at your provider' },
  OIDC_CLIENT_SECRET: { area: 'signIn', meaning: "`AUTH_PROVIDER=oidc`: that client's secret, sent as `client_secret_basic` (server only, never logged)" },
  OIDC_SCOPES: { area: 'signIn', meaning: 'scopes asked for, space- or comma-separated, must include `openid` (add e.g. `groups` for the admin claim)' },
  OIDC_BUTTON_LABEL: { area: 'signIn', meaning: "the sign-in button's words (60 characters at most)" },
  OIDC_ADMIN_CLAIM: {
    area: 'signIn',
    meaning:
      'admin iff this claim (string or list of strings; `a.b` reaches into an object) holds one of `OIDC_ADMIN_VALUES`, decided at every sign-in; a demotion ends the person\'s other sessions. Unset: `ADMIN_EMAILS` decides',
  },
  OIDC_ADMIN_VALUES: { area: 'signIn', meaning: "comma list of the `OIDC_ADMIN_CLAIM` values that make an admin" },
  ADMIN_EMAILS: { area: 'signIn', meaning: 'comma list; these accounts are admins (promoted at each sign-in). When set, the first-account rule is off' },
  INVITE_TTL_HOURS: { area: 'signIn', meaning: 'how long a passkey invite link stays valid, 1 to 720 ([Passkeys](sign-in.md#passkeys))' },
  PUBLIC_URL: {
    area: 'server',
    meaning: 'the origin users reach; used for cookies (`Secure` + `__Host-` on https), the Origin check, redirects, and the host name passkeys are bound to',
    defaultText: '`http://localhost:PORT`',
  },
  SESSION_SECRET: {
    area: 'server',
    meaning:
      'signs short-lived sign-in cookies, and without `CHANNEL_SECRET_KEY` is the key of channel secrets (keep it, or that file, with your backups); required in production (32+ characters)',
    defaultText: 'generated into `DATA_DIR/session-secret` outside production',
  },
  TRUST_PROXY: {
    area: 'http',
    meaning:
      "behind a reverse proxy: `true` for one proxy in front (nginx on the same host), a number for that many, or the proxies' addresses (`127.0.0.1`, `10.0.0.0/8`, `loopback`, comma-separated). The client's IP (rate limits) is then the address the nearest proxy appended to `X-Forwarded-For`, never one the client wrote there (docs/decisions/0045); with a number or `true`, the server must be reachable only through the proxy (`HOST=127.0.0.1`). It also turns the per-address connection cap off unless `MAX_CONNECTIONS_PER_IP` is set (every connection is the proxy's)",
  },
  HEADERS_TIMEOUT_MS: { area: 'http', meaning: "a request's headers must arrive within this (at least 100, at most `REQUEST_TIMEOUT_MS`); else 408 and the connection is closed" },
  DB_QUEUE_MAX_WAIT_MS: {
    area: 'http',
    meaning:
      'embedded database (PGlite) only: the longest a request waits for its turn at the database; past it (or when the queue ahead would take longer) it answers 503 with `Retry-After` instead of hanging',
  },
  REQUEST_TIMEOUT_MS: { area: 'http', meaning: 'the whole request with its body must arrive within this; else 408 and the connection is closed. Answers (chat streams) are not limited by it' },
  IDLE_TIMEOUT_MS: { area: 'http', meaning: 'a connection silent both ways this long is closed; must be longer than `CHAT_TIMEOUT_MS`' },
  KEEP_ALIVE_TIMEOUT_MS: { area: 'http', meaning: "how long a kept-alive connection waits for its next request (keep a proxy's upstream idle timeout below it)" },
  MAX_CONNECTIONS: { area: 'http', meaning: 'open connections in all; more are closed at once' },
  MAX_CONNECTIONS_PER_IP: { area: 'http', meaning: 'open connections per client address (IPv6 per /64); more are closed at once. `0` = no cap', defaultText: '256 (0 with `TRUST_PROXY`)' },
  SIGN_IN_RATE_LIMIT: { area: 'http', meaning: 'sign-in attempts (and passkey ceremonies) per IP per minute; beyond it 429 with `Retry-After`' },
  WRITE_RATE_LIMIT: {
    area: 'http',
    meaning: 'state-changing requests (`POST`/`PUT`/`PATCH`/`DELETE`) per signed-in user per minute, per server process; beyond it 429 with `Retry-After`. The chat has its own limit',
  },
  MCP_RATE_LIMIT: {
    area: 'http',
    meaning: 'requests to `/mcp` per access token per minute, per server process; beyond it 429 with `Retry-After` (its tool calls have their own limit, 60 a minute)',
  },
  BACKTEST_RATE_LIMIT: { area: 'http', meaning: 'Test on history: tests per user per minute (per server process); beyond it 429 with `Retry-After`' },
  BACKTEST_CONCURRENCY: { area: 'http', meaning: 'Test on history: tests loading history at once per server process; beyond it 503 with `Retry-After`' },
  SITE_NAME: { area: 'server', meaning: "the header's name (60 characters at most), also the passkeys' relying party name" },
  PREVIEW_LINK_TTL_HOURS: {
    area: 'server',
    meaning: "how long an article's preview link stays valid, 1 to 720 ([Drafts, scheduling and preview links](../user/publishing.md#drafts-scheduling-and-preview-links))",
  },
  CONTACT_EMAIL: { area: 'server', meaning: 'the contact mailto on the site' },
  OPENAI_API_KEY: { area: 'chat', meaning: 'GPT\'s key (server only, never sent to browsers or logged). Without a provider\'s key, that assistant answers "API key not configured"' },
  ANTHROPIC_API_KEY: { area: 'chat', meaning: "Claude's key (server only, never sent to browsers or logged)" },
  GOOGLE_GENERATIVE_AI_API_KEY: { area: 'chat', meaning: "Gemini's key (server only, never sent to browsers or logged)" },
  XAI_API_KEY: { area: 'chat', meaning: "Grok's key (server only, never sent to browsers or logged)" },
  DEEPSEEK_API_KEY: { area: 'chat', meaning: "DeepSeek's key (server only, never sent to browsers or logged)" },
  OPENAI_BASE_URL: { area: 'chat', meaning: 'for proxies and tests; with the API version path as the SDK expects (`…/v1`)', defaultText: PROVIDERS_OWN },
  ANTHROPIC_BASE_URL: { area: 'chat', meaning: 'for proxies and tests; with the API version path as the SDK expects (`…/v1`)', defaultText: PROVIDERS_OWN },
  GOOGLE_AI_BASE_URL: { area: 'chat', meaning: 'for proxies and tests; with the API version path as the SDK expects (`…/v1beta`)', defaultText: PROVIDERS_OWN },
  XAI_BASE_URL: { area: 'chat', meaning: 'for proxies and tests; with the API version path as the SDK expects (`…/v1`)', defaultText: PROVIDERS_OWN },
  DEEPSEEK_BASE_URL: { area: 'chat', meaning: 'for proxies and tests; without a version path, as the SDK expects', defaultText: PROVIDERS_OWN },
  OLLAMA_BASE_URL: { area: 'chat', meaning: 'the Ollama server for Llama (its OpenAI-compatible `/v1` is used; no key)' },
  OLLAMA_MODELS: { area: 'chat', meaning: 'comma list of the models Ollama serves; the Llama chat accepts only these' },
  CHAT_RATE_LIMIT: { area: 'chat', meaning: 'chat messages per user per minute, all assistants together (per server process)' },
  CHAT_DAILY_TOKEN_BUDGET: { area: 'chat', meaning: 'input + output tokens per user per UTC day, reserved before each call (docs/decisions/0011); `0` = unlimited' },
  CHAT_DAILY_IMAGE_BUDGET: { area: 'chat', meaning: "images generated (Grok's grok-2-image-1212) per user per UTC day; `0` = unlimited" },
  CHAT_MAX_OUTPUT_TOKENS: { area: 'chat', meaning: "the longest answer asked of a provider (at least 16); lowered to the model's own maximum and to what the day's budget leaves" },
  CHAT_TIMEOUT_MS: { area: 'chat', meaning: 'longest wait for a provider: for a whole JSON answer, or between two chunks of a stream (also for embeddings)' },
  CHAT_ANSWER_MAX_SECONDS: { area: 'chat', meaning: 'the longest an answer may run in all (it goes on when the browser leaves; docs/decisions/0056), at least 10' },
  CHAT_ANSWER_LEASE_SECONDS: {
    area: 'chat',
    meaning:
      "an answer being written is saved every second and stays its process's this long after each save; once it lapses (the process died), another process ends it as interrupted and records its usage, estimated (docs/decisions/0061). At least 3",
  },
  CHAT_IMAGE_STORAGE_MB: { area: 'chat', meaning: "each user's chat images, uploaded and generated, kept on the server (docs/decisions/0055)" },
  DOCUMENT_MAX_MB: {
    area: 'documents',
    meaning: 'the largest document (PDF, DOCX, XLSX, CSV, Markdown, text, HTML) a user may upload to a chat or a project, in MB; a larger upload is refused with 413 (docs/decisions/0081)',
  },
  OLLAMA_VISION_MODELS: {
    area: 'chat',
    meaning: 'Ollama models that read images besides the known ones (llama3.2-vision, llama4, llava, gemma3, qwen2.5vl, minicpm-v), names before any `:` tag, comma-separated',
  },
  OLLAMA_TOOL_MODELS: {
    area: 'chat',
    meaning:
      'Ollama models that call tools ("Use my agents") besides the known ones (llama3.1, llama3.2, llama3.3, llama4, qwen2.5, qwen3, mistral, mistral-nemo, command-r), names before any `:` tag, comma-separated',
  },
  CHAT_POLICY: {
    area: 'chat',
    meaning:
      "who may use which assistant, over the defaults (GPT, Claude, Gemini, Grok: `admin`; DeepSeek, Llama: `signedIn`), e.g. `deepseek=admin,openai=signedIn`. The pages' config carries it, and **Users** says from it which chats guests may use",
  },
  CHAT_SHARE_ROLES: {
    area: 'chat',
    meaning: 'comma list of the roles (`admin`, `guest`) that may share a chat as a link ([Share links](../user/share-links.md)); unset, nobody',
  },
  WEB_SEARCH_PROVIDER: { area: 'documents', meaning: '`searxng`, `brave` or `tavily`: web search in chat ([Web search](../user/web-search.md)); unset, off' },
  SEARXNG_URL: { area: 'documents', meaning: 'the SearXNG instance (with its path, if served under one); required with `WEB_SEARCH_PROVIDER=searxng`' },
  BRAVE_SEARCH_API_KEY: { area: 'documents', meaning: "Brave Search's key (server only, never logged); required with `WEB_SEARCH_PROVIDER=brave`" },
  TAVILY_API_KEY: { area: 'documents', meaning: "Tavily's key (server only, never logged); required with `WEB_SEARCH_PROVIDER=tavily`" },
  BRAVE_SEARCH_BASE_URL: { area: 'documents', meaning: 'for proxies and test fakes', defaultText: "the engine's own" },
  TAVILY_BASE_URL: { area: 'documents', meaning: 'for proxies and test fakes', defaultText: "the engine's own" },
  ALERT_BRIEF_WAIT_SECONDS: {
    area: 'alerts',
    meaning: "*Explain alerts*: how long an alert's email and channel messages wait for its brief (0: not at all); a brief written later follows them (0 to 300)",
  },
  ALERT_BRIEF_TIMEOUT_SECONDS: {
    area: 'alerts',
    meaning: "*Explain alerts*: the longest wait for the assistant's brief, apart from `CHAT_TIMEOUT_MS`; then the brief fails as 'took too long' (1 to 300)",
  },
  EMBEDDING_PROVIDER: {
    area: 'documents',
    meaning:
      "the embedding model's provider for documents (`openai`, `gemini` or `ollama`), with that assistant's key and base URL; unset: documents are searched by their words only, and the chat says so (docs/decisions/0081)",
  },
  EMBEDDING_MODEL: {
    area: 'documents',
    meaning: '`text-embedding-3-small` (OpenAI), `gemini-embedding-001` (Gemini), `nomic-embed-text` (Ollama) by default; a change re-embeds the passages in the background',
    defaultText: "the provider's",
  },
  EMBEDDING_DIMENSIONS: { area: 'documents', meaning: "dimensions asked of OpenAI and Gemini (64 to 4096); Ollama's models give their own" },
  EMBEDDING_CACHE_MB: {
    area: 'documents',
    meaning: 'the vectors each server process keeps in memory for retrieval (int8, ~0.5 KB a passage at 512 dimensions), least recently used users leaving first',
  },
  MARKET_DATA: { area: 'market', meaning: '`simulated`: deterministic offline candles, every result marked simulated' },
  BINANCE_BASE_URL: { area: 'market', meaning: "for the test fakes: only Binance's own host or a loopback address is accepted", defaultText: PROVIDERS_OWN },
  COINBASE_BASE_URL: { area: 'market', meaning: "for the test fakes: only Coinbase's own host or a loopback address is accepted", defaultText: PROVIDERS_OWN },
  KRAKEN_BASE_URL: { area: 'market', meaning: "for the test fakes: only Kraken's own host or a loopback address is accepted", defaultText: PROVIDERS_OWN },
  KUCOIN_BASE_URL: { area: 'market', meaning: "for the test fakes: only KuCoin's own host or a loopback address is accepted", defaultText: PROVIDERS_OWN },
  HTX_BASE_URL: { area: 'market', meaning: "for the test fakes: only HTX's own host or a loopback address is accepted", defaultText: PROVIDERS_OWN },
  YAHOO_BASE_URL: { area: 'market', meaning: "for the test fakes: only Yahoo Finance's own hosts or a loopback address are accepted", defaultText: PROVIDERS_OWN },
  WHALE_ALERT_BASE_URL: { area: 'market', meaning: "for the test fakes: only Whale Alert's own host or a loopback address is accepted", defaultText: PROVIDERS_OWN },
  WHALE_ALERT_API_KEY: { area: 'market', meaning: 'on-chain whale transactions (crypto agents); without a key those rules say *not configured*' },
  WHALE_ALERT_MIN_USD: { area: 'market', meaning: 'the smallest whale transaction asked of Whale Alert, in US dollars' },
  MARKET_TIMEOUT_MS: { area: 'market', meaning: 'per request to a market data provider; 429, 5xx and timeouts are retried with backoff' },
  MARKET_RETRIES: { area: 'market', meaning: 'retries of a market data request that failed with 429, 5xx or a timeout' },
  SMTP_URL: { area: 'alerts', meaning: 'where alert emails and invites go (`smtp://` or `smtps://`); unset: written to the log (an invite\'s link is shown to the admin instead)' },
  MAIL_FROM: { area: 'alerts', meaning: "the emails' sender", defaultText: '`alerts@<PUBLIC_URL host>`' },
  SMTP_FROM: { area: 'alerts', meaning: "`MAIL_FROM`'s old name, still read with a warning at start (ignored when `MAIL_FROM` is set; docs/decisions/0019)" },
  OUTBOUND_ALLOW_LOOPBACK: {
    area: 'alerts',
    meaning:
      '`true` (tests only; refused with `NODE_ENV=production`): user-supplied URLs such as webhooks may point at 127.0.0.0/8 or `::1`, over plain `http://` too, so the test fakes can receive them; a server or worker started with it logs a warning saying so. Otherwise they must be `https://` and reach public addresses only ([SECURITY.md](../../SECURITY.md))',
  },
  OUTBOUND_CA_FILE: {
    area: 'alerts',
    meaning:
      "tests only (refused with `NODE_ENV=production`, warned about at start otherwise): a PEM file trusted instead of the system's certificates for user-supplied URLs, the fake receivers' own",
  },
  CHANNEL_SECRET_KEY: {
    area: 'alerts',
    meaning:
      'at least 32 characters: the key for channel secrets at rest (URLs, bot tokens, signing secrets) is derived from it. Changing it (or `SESSION_SECRET` without it) makes saved channels undeliverable until they are added again, so a database restored elsewhere needs the same value ([Backups](backups-and-upgrades.md))',
    defaultText: '`SESSION_SECRET`',
  },
  TELEGRAM_BASE_URL: { area: 'alerts', meaning: "for the test fake: only Telegram's host or a loopback address is accepted", defaultText: '`https://api.telegram.org`' },
  CHANNEL_RETRIES: {
    area: 'alerts',
    meaning: 'retries of a failed channel delivery: after the wait the receiver asks for (at most an hour; asked more, the delivery fails), else with doubling delays (up to 10 minutes)',
  },
  CHANNEL_RETRY_DELAY_SECONDS: { area: 'alerts', meaning: "the first wait before a channel delivery's retry, doubling after each" },
  EMAIL_RETRIES: { area: 'alerts', meaning: 'retries of a failed alert email, with doubling delays' },
  EVENT_STREAMS_PER_USER: { area: 'runtime', meaning: 'live console streams (`GET /api/events`, one per tab) a user may hold open per server process; beyond it 429' },
  EVENT_STREAM_MAX_MS: { area: 'runtime', meaning: 'a live console stream ends after this long and the browser reconnects, resuming where it was' },
  EVENT_SESSION_CHECK_MS: { area: 'runtime', meaning: 'how often open streams check that their session still stands and their user is still an admin' },
  EMAIL_RETRY_DELAY_SECONDS: { area: 'alerts', meaning: "the first wait before an alert email's retry, doubling after each" },
  WORKER_HEALTH_PORT: {
    area: 'runtime',
    meaning: '`npm run worker` answers `GET /api/health/live` and `/api/health/ready` (and `/metrics`) on `HOST` at this port (unset: no port); `npm run worker:health` asks it',
  },
  RUN_WORKERS: { area: 'runtime', meaning: '`false`: this process serves the web only (PostgreSQL; run `npm run worker` elsewhere)' },
  WORKER_CONCURRENCY: {
    area: 'runtime',
    meaning: 'run jobs one process works on at once, in up to 4 fetch loops; a scheduled job is a batch of up to 200 runs of one slot, a run-now one run (docs/decisions/0052, 0104)',
  },
  RUN_LEASE_SECONDS: {
    area: 'runtime',
    meaning: 'a run whose worker stops renewing this lease (a worker killed outright; one stopped finishes its runs) is recorded as failed with the error `interrupted`',
  },
  DISPATCH_INTERVAL_MS: { area: 'runtime', meaning: 'how often due agents are claimed' },
  DISPATCH_LOOKAHEAD_MS: {
    area: 'runtime',
    meaning: "slots this far ahead are dispatched early, their jobs held until the slot, so thousands of agents due at one second start at the slot rather than after their runs' inserts",
  },
  RUN_RETENTION_DAYS: {
    area: 'runtime',
    meaning:
      "finished runs (their results too) older than this are removed by the hourly maintenance, in batches of 1,000, except each agent's `RUN_RETENTION_KEEP_LAST` latest runs and its latest success; queued and running runs are never removed. At least 1 (0 is refused: for years, set 3650). Size it with [the operator guide](postgresql-and-scaling.md#run-history-and-its-size)",
  },
  RUN_RETENTION_KEEP_LAST: {
    area: 'runtime',
    meaning: "each agent's latest runs kept however old, so a paused or rarely due agent keeps its history (two pages of the console's run history); at least 3, the runs an agent's health reads",
  },
  METRICS_PORT: {
    area: 'observability',
    meaning:
      'the web process serves Prometheus metrics at `GET /metrics` on a listener of its own at `METRICS_HOST` (unset: none; must differ from `PORT` and `WORKER_HEALTH_PORT`) ([Metrics and traces](metrics-and-traces.md))',
  },
  METRICS_HOST: { area: 'observability', meaning: "the metrics listener's address. One other than loopback without `METRICS_TOKEN` is warned about at start" },
  METRICS_TOKEN: {
    area: 'observability',
    meaning:
      "at least 32 printable characters: asked as `Authorization: Bearer <token>` of every scrape (`METRICS_PORT`, the worker's `WORKER_HEALTH_PORT`), and with it the web process also serves `GET /metrics` on its own port. Unset, the public port answers `/metrics` 404",
  },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    area: 'observability',
    meaning:
      "an OpenTelemetry collector's OTLP/HTTP address (`http://collector:4318`): traces are sent to `/v1/traces` under it, as JSON (unset: no traces, nothing of the SDK runs). `OTEL_EXPORTER_OTLP_HEADERS` (`key=value,...`) is sent with each export (the exporter reads it itself)",
  },
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: { area: 'observability', meaning: 'the traces URL whole, instead of `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`' },
  OTEL_SERVICE_NAME: { area: 'observability', meaning: "the traces' `service.name` (web and worker processes tell themselves apart by `service.instance.role`)" },
  LOG_LEVEL: {
    area: 'server',
    meaning:
      'pino level (`silent` … `trace`). At `info` each request is one JSON line when it ends, `request completed` (or `request closed before its answer finished`, a stream the browser left): method, URL (query values named like credentials hidden), client address, status, `responseTime` in ms, `reqId` and the signed-in `userId`; `warn` leaves them out',
  },
} satisfies Record<ConfigVariable, VariableDoc>;
