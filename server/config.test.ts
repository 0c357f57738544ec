import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, publicConfig, workerHealthUrl } from './config.ts';

const load = (env: Record<string, string>) => loadConfig(env, { inMemoryDatabase: true });

describe('loadConfig', () => {
  it('has working defaults: local sign-in, PGlite, port 3000', () => {
    const config = load({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      auth: { provider: 'local' },
      database: { kind: 'pglite' },
      publicUrl: 'http://localhost:3000',
      publicOrigin: 'http://localhost:3000',
      secureCookies: false,
      adminEmails: [],
    });
  });

  it('chooses Google when a client id is set, PostgreSQL when DATABASE_URL is set', () => {
    const config = load({ GOOGLE_CLIENT_ID: 'id', GOOGLE_CLIENT_SECRET: 'secret', DATABASE_URL: 'postgres://u@h/db' });
    expect(config.auth).toEqual({
      provider: 'google',
      clientId: 'id',
      clientSecret: 'secret',
      issuer: 'https://accounts.google.com',
      scopes: 'openid email profile',
      buttonLabel: 'Sign in with Google',
      adminClaim: null,
    });
    expect(config.database).toEqual({ kind: 'postgres', url: 'postgres://u@h/db' });
  });

  it('reads any OpenID Connect provider (issue 33): issuer, client, scopes, button label and the admin claim', () => {
    const oidc = { AUTH_PROVIDER: 'oidc', OIDC_ISSUER_URL: 'https://sso.example.com/realms/acme', OIDC_CLIENT_ID: 'hub', OIDC_CLIENT_SECRET: 's' };
    expect(load(oidc).auth).toEqual({
      provider: 'oidc',
      issuer: 'https://sso.example.com/realms/acme',
      clientId: 'hub',
      clientSecret: 's',
      scopes: 'openid email profile',
      buttonLabel: 'Sign in with SSO',
      adminClaim: null,
    });
    const full = load({ ...oidc, OIDC_SCOPES: 'openid,email  profile groups', OIDC_BUTTON_LABEL: 'Sign in with Acme SSO', OIDC_ADMIN_CLAIM: 'groups', OIDC_ADMIN_VALUES: 'automation-admins, ops' });
    expect(full.auth).toMatchObject({ scopes: 'openid email profile groups', buttonLabel: 'Sign in with Acme SSO', adminClaim: { claim: 'groups', values: ['automation-admins', 'ops'] } });
    expect(publicConfig(full)).toMatchObject({ authProvider: 'oidc', signInLabel: 'Sign in with Acme SSO' });
    expect(publicConfig(load({}))).not.toHaveProperty('signInLabel');
    // An operator's provider is a real sign-in: production accepts it without ALLOW_LOCAL_AUTH.
    expect(load({ ...oidc, NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(32) }).auth.provider).toBe('oidc');
    expect(load({ ...oidc, OIDC_ISSUER_URL: 'http://127.0.0.1:9000' }).auth).toMatchObject({ issuer: 'http://127.0.0.1:9000' });
  });

  it('has web search off and sharing off by default, and reads each engine with what it needs', () => {
    expect(load({}).webSearch).toBeNull();
    expect(load({}).chat.shareRoles).toEqual([]);
    expect(load({ CHAT_SHARE_ROLES: 'guest, admin,guest' }).chat.shareRoles).toEqual(['guest', 'admin']);
    expect(() => load({ CHAT_SHARE_ROLES: 'owner' })).toThrow(/CHAT_SHARE_ROLES: 'owner' is not a role \(admin, guest\)/);
    expect(load({ WEB_SEARCH_PROVIDER: 'searxng', SEARXNG_URL: 'http://searxng:8080/' }).webSearch).toEqual({ provider: 'searxng', baseUrl: 'http://searxng:8080', apiKey: null });
    expect(load({ WEB_SEARCH_PROVIDER: 'brave', BRAVE_SEARCH_API_KEY: 'k' }).webSearch).toEqual({ provider: 'brave', baseUrl: 'https://api.search.brave.com', apiKey: 'k' });
    expect(load({ WEB_SEARCH_PROVIDER: 'tavily', TAVILY_API_KEY: 'k', TAVILY_BASE_URL: 'http://127.0.0.1:4000' }).webSearch).toEqual({ provider: 'tavily', baseUrl: 'http://127.0.0.1:4000', apiKey: 'k' });
    expect(() => load({ WEB_SEARCH_PROVIDER: 'searxng' })).toThrow(/SEARXNG_URL: required when WEB_SEARCH_PROVIDER=searxng/);
    expect(() => load({ WEB_SEARCH_PROVIDER: 'brave' })).toThrow(/BRAVE_SEARCH_API_KEY: required when WEB_SEARCH_PROVIDER=brave/);
    expect(() => load({ WEB_SEARCH_PROVIDER: 'tavily' })).toThrow(/TAVILY_API_KEY: required when WEB_SEARCH_PROVIDER=tavily/);
    expect(() => load({ WEB_SEARCH_PROVIDER: 'bing' })).toThrow(/WEB_SEARCH_PROVIDER: must be one of searxng, brave, tavily/);
  });

  it('normalises ADMIN_EMAILS and PUBLIC_URL', () => {
    const config = load({ ADMIN_EMAILS: ' A@Example.com ,b@example.com,', PUBLIC_URL: 'https://app.example.com/' });
    expect(config.adminEmails).toEqual(['a@example.com', 'b@example.com']);
    expect(config.publicUrl).toBe('https://app.example.com');
    expect(config.secureCookies).toBe(true);
  });

  it('takes the alert emails\' sender from MAIL_FROM, and from its old name SMTP_FROM with a deprecation', () => {
    expect(load({}).email.from).toBe('alerts@localhost');
    expect(load({}).startWarnings).toEqual([]);
    expect(load({ MAIL_FROM: 'ops@example.com' })).toMatchObject({ email: { from: 'ops@example.com' }, startWarnings: [] });
    expect(load({ SMTP_FROM: 'old@example.com' })).toMatchObject({
      email: { from: 'old@example.com' },
      startWarnings: ['SMTP_FROM is deprecated and will stop working: rename it to MAIL_FROM'],
    });
    expect(load({ MAIL_FROM: 'ops@example.com', SMTP_FROM: 'old@example.com' })).toMatchObject({
      email: { from: 'ops@example.com' },
      startWarnings: ['SMTP_FROM is ignored because MAIL_FROM is set: remove SMTP_FROM (its old name)'],
    });
  });

  it('refuses a DATA_DIR too long for the embedded database\'s control socket, unless the database is PostgreSQL', () => {
    const long = `/tmp/${'d'.repeat(100)}`;
    expect(() => loadConfig({ DATA_DIR: long })).toThrow(/DATA_DIR: its path, absolute or relative to the working directory, must be at most \d+ characters/);
    expect(loadConfig({ DATA_DIR: long, DATABASE_URL: 'postgres://u@127.0.0.1:5432/db', SESSION_SECRET: 'x'.repeat(32) }).dataDir).toBe(long);
  });

  it('says at start that a test-only setting is on, naming it and what it weakens', () => {
    expect(load({ OUTBOUND_ALLOW_LOOPBACK: 'false' }).startWarnings).toEqual([]);
    const [loopback] = load({ OUTBOUND_ALLOW_LOOPBACK: 'true' }).startWarnings;
    expect(loopback).toMatch(/^OUTBOUND_ALLOW_LOOPBACK is on: webhooks and chat channels may point at 127\.0\.0\.0\/8 and ::1, over plain http too/);
    expect(loopback).toContain('It is for tests');
    expect(load({ OUTBOUND_CA_FILE: '/etc/hostname' }).startWarnings).toEqual([expect.stringMatching(/^OUTBOUND_CA_FILE is set: .*\/etc\/hostname instead of the system's/)]);
  });

  it.each([
    [{ MAIL_FROM: 'not-an-email' }, 'MAIL_FROM'],
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://h/db' }, 'DATABASE_URL'],
    [{ ADMIN_EMAILS: 'not-an-email' }, 'ADMIN_EMAILS'],
    [{ PUBLIC_URL: 'ftp://x' }, 'PUBLIC_URL'],
    [{ AUTH_PROVIDER: 'github' }, 'AUTH_PROVIDER'],
    [{ AUTH_PROVIDER: 'google' }, 'GOOGLE_CLIENT_ID'],
    [{ GOOGLE_CLIENT_ID: 'id' }, 'GOOGLE_CLIENT_SECRET'],
    [{ AUTH_PROVIDER: 'oidc', OIDC_CLIENT_ID: 'id', OIDC_CLIENT_SECRET: 's' }, 'OIDC_ISSUER_URL'],
    [{ AUTH_PROVIDER: 'oidc', OIDC_ISSUER_URL: 'https://sso.example.com', OIDC_CLIENT_SECRET: 's' }, 'OIDC_CLIENT_ID'],
    [{ AUTH_PROVIDER: 'oidc', OIDC_ISSUER_URL: 'https://sso.example.com', OIDC_CLIENT_ID: 'id' }, 'OIDC_CLIENT_SECRET'],
    [{ AUTH_PROVIDER: 'oidc', OIDC_ISSUER_URL: 'http://sso.example.com', OIDC_CLIENT_ID: 'id', OIDC_CLIENT_SECRET: 's' }, 'OIDC_ISSUER_URL'],
    [{ OIDC_SCOPES: 'email profile' }, 'OIDC_SCOPES'],
    [{ OIDC_BUTTON_LABEL: 'x'.repeat(61) }, 'OIDC_BUTTON_LABEL'],
    [{ OIDC_ADMIN_CLAIM: 'groups with spaces' }, 'OIDC_ADMIN_CLAIM'],
    [{ AUTH_PROVIDER: 'oidc', OIDC_ISSUER_URL: 'https://sso.example.com', OIDC_CLIENT_ID: 'id', OIDC_CLIENT_SECRET: 's', OIDC_ADMIN_CLAIM: 'groups' }, 'OIDC_ADMIN_VALUES'],
    [{ AUTH_PROVIDER: 'oidc', OIDC_ISSUER_URL: 'https://sso.example.com', OIDC_CLIENT_ID: 'id', OIDC_CLIENT_SECRET: 's', OIDC_ADMIN_VALUES: 'admins' }, 'OIDC_ADMIN_CLAIM'],
    [{ OIDC_ISSUER_URL: 'https://sso.example.com' }, 'AUTH_PROVIDER'],
    [{ SESSION_SECRET: 'short' }, 'SESSION_SECRET'],
    [{ NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(32), PUBLIC_URL: 'http://hub.example.com' }, 'PUBLIC_URL'],
    [{ NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(32), PUBLIC_URL: 'https://10.0.0.5' }, 'PUBLIC_URL'],
    [{ INVITE_TTL_HOURS: '0' }, 'INVITE_TTL_HOURS'],
    [{ INVITE_TTL_HOURS: 'soon' }, 'INVITE_TTL_HOURS'],
    [{ INVITE_TTL_HOURS: '721' }, 'INVITE_TTL_HOURS'],
    [{ NODE_ENV: 'production', ALLOW_LOCAL_AUTH: 'true' }, 'SESSION_SECRET'],
    [{ OPENAI_BASE_URL: 'not a url' }, 'OPENAI_BASE_URL'],
    [{ OLLAMA_BASE_URL: 'ftp://h' }, 'OLLAMA_BASE_URL'],
    [{ OLLAMA_MODELS: ' , ' }, 'OLLAMA_MODELS'],
    [{ CHAT_RATE_LIMIT: '0' }, 'CHAT_RATE_LIMIT'],
    [{ CHAT_DAILY_TOKEN_BUDGET: '-1' }, 'CHAT_DAILY_TOKEN_BUDGET'],
    [{ CHAT_TIMEOUT_MS: 'soon' }, 'CHAT_TIMEOUT_MS'],
    [{ CHAT_DAILY_IMAGE_BUDGET: '-1' }, 'CHAT_DAILY_IMAGE_BUDGET'],
    [{ CHAT_MAX_OUTPUT_TOKENS: '15' }, 'CHAT_MAX_OUTPUT_TOKENS'],
    [{ CHAT_POLICY: 'openai=everyone' }, 'CHAT_POLICY'],
    [{ CHAT_POLICY: 'mistral=admin' }, 'CHAT_POLICY'],
    [{ WRITE_RATE_LIMIT: '0' }, 'WRITE_RATE_LIMIT'],
    [{ REQUEST_TIMEOUT_MS: 'never' }, 'REQUEST_TIMEOUT_MS'],
    [{ HEADERS_TIMEOUT_MS: '40000' }, 'HEADERS_TIMEOUT_MS'],
    [{ IDLE_TIMEOUT_MS: '30000' }, 'IDLE_TIMEOUT_MS'],
    [{ MAX_CONNECTIONS: '0' }, 'MAX_CONNECTIONS'],
    [{ MAX_CONNECTIONS_PER_IP: '-1' }, 'MAX_CONNECTIONS_PER_IP'],
    [{ TRUST_PROXY: 'yes' }, 'TRUST_PROXY'],
    [{ WORKER_HEALTH_PORT: '70000' }, 'WORKER_HEALTH_PORT'],
    [{ TRUST_PROXY: '17' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '127.0.0.1, example.com' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY'],
  ])('stops with a message naming the variable for %j', (env, variable) => {
    expect(() => load(env)).toThrow(ConfigError);
    expect(() => load(env)).toThrow(new RegExp(`\\b${variable}\\b`));
  });

  it('reads TRUST_PROXY as no proxy, a number of proxies in front (true: one), or the proxies\' addresses', () => {
    expect(load({}).trustProxy).toBe(false);
    expect(load({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(load({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(load({ TRUST_PROXY: 'true' }).trustProxy).toBe(1);
    expect(load({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(load({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(load({ TRUST_PROXY: ' 127.0.0.1 , 10.0.0.0/8,::1,loopback' }).trustProxy).toEqual(['127.0.0.1', '10.0.0.0/8', '::1', 'loopback']);
    // Any proxy makes every connection the proxy's: no per-address cap unless one is set.
    expect(load({ TRUST_PROXY: '10.1.2.3' }).http.maxConnectionsPerAddress).toBe(0);
  });

  it("gives a worker a health port only when WORKER_HEALTH_PORT is set, and tells the health command where to ask", () => {
    expect(load({}).runtime.workerHealthPort).toBeNull();
    expect(load({ WORKER_HEALTH_PORT: '9101' }).runtime.workerHealthPort).toBe(9101);
    expect(workerHealthUrl({ WORKER_HEALTH_PORT: '9101' })).toBe('http://127.0.0.1:9101');
    expect(workerHealthUrl({ WORKER_HEALTH_PORT: '9101', HOST: '0.0.0.0' })).toBe('http://127.0.0.1:9101');
    expect(workerHealthUrl({ WORKER_HEALTH_PORT: '9101', HOST: '::' })).toBe('http://[::1]:9101');
    expect(() => workerHealthUrl({})).toThrow(/WORKER_HEALTH_PORT: required/);
    expect(() => workerHealthUrl({ WORKER_HEALTH_PORT: 'x' })).toThrow(/WORKER_HEALTH_PORT/);
  });

  it('keeps runs 90 days and each agent\'s last 100 by default; refuses 0 days, fractions and fewer runs than an agent\'s health reads (docs/decisions/0101)', () => {
    expect(load({}).runtime).toMatchObject({ retentionDays: 90, retentionKeepLast: 100 });
    expect(load({ RUN_RETENTION_DAYS: '7', RUN_RETENTION_KEEP_LAST: '3' }).runtime).toMatchObject({ retentionDays: 7, retentionKeepLast: 3 });
    expect(() => load({ RUN_RETENTION_DAYS: '0' })).toThrow(/RUN_RETENTION_DAYS: must be at least 1 day \(to keep runs for years, set a large number such as 3650\)/);
    expect(() => load({ RUN_RETENTION_DAYS: '1.5' })).toThrow(/RUN_RETENTION_DAYS: must be a whole number of days/);
    expect(() => load({ RUN_RETENTION_DAYS: 'forever' })).toThrow(/RUN_RETENTION_DAYS: must be a whole number of days/);
    expect(() => load({ RUN_RETENTION_KEEP_LAST: '2' })).toThrow(/RUN_RETENTION_KEEP_LAST: must be at least 3 \(the latest runs an agent's health reads\)/);
  });

  it('limits slow and greedy clients by default: timeouts, connection caps, writes per user', () => {
    expect(load({}).http).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      idleTimeoutMs: 120_000,
      keepAliveTimeoutMs: 72_000,
      maxConnections: 4_096,
      maxConnectionsPerAddress: 256,
    });
    expect(load({}).writeRateLimit).toBe(120);
    // Behind a proxy every connection is the proxy's: no per-address cap unless one is set.
    expect(load({ TRUST_PROXY: 'true' }).http.maxConnectionsPerAddress).toBe(0);
    expect(load({ TRUST_PROXY: 'true', MAX_CONNECTIONS_PER_IP: '1000' }).http.maxConnectionsPerAddress).toBe(1000);
    expect(load({ MAX_CONNECTIONS_PER_IP: '0' }).http.maxConnectionsPerAddress).toBe(0);
  });

  it('refuses loopback receivers for user-supplied URLs unless OUTBOUND_ALLOW_LOOPBACK is set, and it in production', () => {
    expect(load({}).outbound).toEqual({ allowLoopback: false });
    expect(load({ OUTBOUND_ALLOW_LOOPBACK: 'true' }).outbound).toEqual({ allowLoopback: true });
    expect(() => load({ OUTBOUND_ALLOW_LOOPBACK: 'yes' })).toThrow(/OUTBOUND_ALLOW_LOOPBACK/);
    expect(() => load({ NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(32), ALLOW_LOCAL_AUTH: 'true', OUTBOUND_ALLOW_LOOPBACK: 'true' })).toThrow(
      /OUTBOUND_ALLOW_LOOPBACK: refused in production/,
    );
  });

  it('derives the channel secrets key from CHANNEL_SECRET_KEY, else SESSION_SECRET; Telegram only at its host or a loopback fake', () => {
    expect(load({ SESSION_SECRET: 's'.repeat(32) }).channels.secretKey).toEqual({ material: 's'.repeat(32), source: 'SESSION_SECRET' });
    expect(load({ SESSION_SECRET: 's'.repeat(32), CHANNEL_SECRET_KEY: 'c'.repeat(32) }).channels.secretKey).toEqual({ material: 'c'.repeat(32), source: 'CHANNEL_SECRET_KEY' });
    expect(() => load({ CHANNEL_SECRET_KEY: 'short' })).toThrow(/CHANNEL_SECRET_KEY: must be at least 32 characters/);
    expect(load({}).channels.telegramBaseUrl).toBe('https://api.telegram.org');
    expect(load({ TELEGRAM_BASE_URL: 'https://127.0.0.1:8443/' }).channels.telegramBaseUrl).toBe('https://127.0.0.1:8443');
    expect(() => load({ TELEGRAM_BASE_URL: 'https://evil.example.com' })).toThrow(/TELEGRAM_BASE_URL/);
  });

  it('reads OUTBOUND_CA_FILE for test receivers, and refuses it in production', () => {
    expect(() => load({ OUTBOUND_CA_FILE: '/nonexistent/ca.pem' })).toThrow(/OUTBOUND_CA_FILE: \/nonexistent\/ca.pem could not be read/);
    expect(() => load({ NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(32), ALLOW_LOCAL_AUTH: 'true', OUTBOUND_CA_FILE: '/etc/hostname' })).toThrow(
      /OUTBOUND_CA_FILE: refused in production/,
    );
  });

  it('allows local sign-in in production only when asked explicitly', () => {
    const config = load({ NODE_ENV: 'production', ALLOW_LOCAL_AUTH: 'true', SESSION_SECRET: 'x'.repeat(32) });
    expect(config.auth.provider).toBe('local');
    expect(config.localSignIn).toBe(true);
  });

  it('in production without a provider, starts with passkeys as the only sign-in (docs/decisions/0092)', () => {
    const config = load({ NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(32), PUBLIC_URL: 'https://hub.example.com' });
    expect(config.localSignIn).toBe(false);
    expect(config.passkeys).toEqual({ rpId: 'hub.example.com', origin: 'https://hub.example.com', rpName: 'Axiom Automation', inviteTtlMs: 72 * 3_600_000 });
    expect(load({ INVITE_TTL_HOURS: '24' }).passkeys?.inviteTtlMs).toBe(24 * 3_600_000);
    expect(load({ GOOGLE_CLIENT_ID: 'id', GOOGLE_CLIENT_SECRET: 's' }).passkeys).toBeNull();
    expect(load({}).localSignIn).toBe(true);
    expect(load({ PUBLIC_URL: 'http://127.0.0.1:3000' }).passkeys).toBeNull();
  });

  it('has chat defaults: no keys, Ollama on localhost, SPEC limits, the contract policy', () => {
    const { chat } = load({});
    expect(chat.providers.openai).toEqual({ apiKey: null, baseUrl: undefined });
    expect(chat.providers.llama).toEqual({ apiKey: null, baseUrl: 'http://127.0.0.1:11434' });
    expect(chat).toMatchObject({
      ollamaModels: ['llama3.1'],
      rateLimitPerMinute: 20,
      dailyTokenBudget: 200_000,
      dailyImageBudget: 10,
      maxOutputTokens: 8_192,
      timeoutMs: 30_000,
      answerMaxMs: 600_000,
      answerLeaseMs: 15_000,
      imageStorageBytes: 200 * 1024 * 1024,
    });
    expect(chat.ollamaVisionModels).toContain('llama3.2-vision');
    expect(chat.access).toEqual({ openai: 'admin', anthropic: 'admin', gemini: 'admin', grok: 'admin', deepseek: 'signedIn', llama: 'signedIn' });
  });

  it('has no embedding provider by default (full-text retrieval), and reads EMBEDDING_* with the provider\'s key and base URL', () => {
    const plain = load({});
    expect(plain.embeddings).toEqual({ setup: null, cacheBytes: 256 * 1024 * 1024, timeoutMs: plain.chat.timeoutMs });
    const openai = load({ EMBEDDING_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', EMBEDDING_CACHE_MB: '64' });
    expect(openai.embeddings.setup).toEqual({ provider: 'openai', settings: { apiKey: 'sk-x', baseUrl: 'http://127.0.0.1:9/v1' }, model: 'text-embedding-3-small', dimensions: 512 });
    expect(openai.embeddings.cacheBytes).toBe(64 * 1024 * 1024);
    const gemini = load({ EMBEDDING_PROVIDER: 'gemini', GOOGLE_GENERATIVE_AI_API_KEY: 'g', EMBEDDING_DIMENSIONS: '768', EMBEDDING_MODEL: 'text-embedding-004' });
    expect(gemini.embeddings.setup).toMatchObject({ provider: 'gemini', model: 'text-embedding-004', dimensions: 768 });
    // Ollama's models give their own dimensions; its base URL is the Llama assistant's.
    expect(load({ EMBEDDING_PROVIDER: 'ollama', OLLAMA_BASE_URL: 'http://gpu:11434/' }).embeddings.setup).toEqual({ provider: 'ollama', settings: { apiKey: null, baseUrl: 'http://gpu:11434' }, model: 'nomic-embed-text', dimensions: null });
    expect(() => load({ EMBEDDING_PROVIDER: 'openai' })).toThrow(/EMBEDDING_PROVIDER: openai needs OPENAI_API_KEY/);
    expect(() => load({ EMBEDDING_PROVIDER: 'cohere' })).toThrow(/EMBEDDING_PROVIDER: must be one of openai, gemini, ollama/);
    expect(() => load({ EMBEDDING_DIMENSIONS: '3' })).toThrow(/EMBEDDING_DIMENSIONS/);
  });

  it('gives alert briefs an 8 s grace and a 20 s timeout of their own, and reads both in whole seconds', () => {
    expect(load({}).alertBriefs).toEqual({ waitSeconds: 8, timeoutSeconds: 20 });
    expect(load({ ALERT_BRIEF_WAIT_SECONDS: '0', ALERT_BRIEF_TIMEOUT_SECONDS: '45' }).alertBriefs).toEqual({ waitSeconds: 0, timeoutSeconds: 45 });
    const refused: Array<[string, string]> = [
      ['ALERT_BRIEF_WAIT_SECONDS', '-1'],
      ['ALERT_BRIEF_WAIT_SECONDS', '2.5'],
      ['ALERT_BRIEF_TIMEOUT_SECONDS', '0'],
      ['ALERT_BRIEF_TIMEOUT_SECONDS', '301'],
    ];
    for (const [name, value] of refused) expect(() => load({ [name]: value })).toThrow(new RegExp(name));
  });

  it('reads keys, base URLs, models and CHAT_POLICY overrides', () => {
    const { chat } = load({
      OPENAI_API_KEY: 'sk-x',
      OPENAI_BASE_URL: 'http://proxy.local/v1',
      OLLAMA_BASE_URL: 'http://gpu-box:11434/',
      OLLAMA_MODELS: 'llama3.1, qwen2.5,llama3.1',
      CHAT_DAILY_TOKEN_BUDGET: '0',
      CHAT_DAILY_IMAGE_BUDGET: '3',
      CHAT_MAX_OUTPUT_TOKENS: '1024',
      CHAT_POLICY: 'deepseek=admin, openai=signedIn',
      OLLAMA_VISION_MODELS: 'my-vision, llava',
      OLLAMA_TOOL_MODELS: 'my-tools, qwen3',
      CHAT_IMAGE_STORAGE_MB: '50',
      CHAT_ANSWER_MAX_SECONDS: '120',
      CHAT_ANSWER_LEASE_SECONDS: '4',
    });
    expect(chat.ollamaVisionModels).toEqual(expect.arrayContaining(['llava', 'llama3.2-vision', 'my-vision']));
    expect(new Set(chat.ollamaVisionModels).size).toBe(chat.ollamaVisionModels.length);
    expect(chat.ollamaToolModels).toEqual(expect.arrayContaining(['llama3.1', 'qwen3', 'my-tools']));
    expect(new Set(chat.ollamaToolModels).size).toBe(chat.ollamaToolModels.length);
    expect(chat.imageStorageBytes).toBe(50 * 1024 * 1024);
    expect(chat.answerMaxMs).toBe(120_000);
    expect(chat.answerLeaseMs).toBe(4_000);
    expect(chat.providers.openai).toEqual({ apiKey: 'sk-x', baseUrl: 'http://proxy.local/v1' });
    expect(chat.providers.llama.baseUrl).toBe('http://gpu-box:11434');
    expect(chat.ollamaModels).toEqual(['llama3.1', 'qwen2.5']);
    expect(chat.dailyTokenBudget).toBe(0);
    expect(chat.dailyImageBudget).toBe(3);
    expect(chat.maxOutputTokens).toBe(1024);
    expect(chat.access).toMatchObject({ openai: 'signedIn', deepseek: 'admin', anthropic: 'admin', llama: 'signedIn' });
  });
});

// Issue 29 item 11: the crypto template started with on-chain metrics on where no on-chain source
// is configured, so every run said 'Whale transaction: not configured'. The pages tell the
// browser which sources there are, and the wizard starts such a switch off (decision 0065).
describe('publicConfig', () => {
  it('says whether an on-chain source is configured, never its key', () => {
    expect(publicConfig(load({})).sources).toEqual({ onChain: false });
    const configured = publicConfig(load({ WHALE_ALERT_API_KEY: 'whale-key-1234' }));
    expect(configured.sources).toEqual({ onChain: true });
    expect(JSON.stringify(configured)).not.toContain('whale-key-1234');
  });

  // Issue 32: the chat offered Share to every role while the server refused all but CHAT_SHARE_ROLES (decision 0088).
  it('carries the roles that may share a chat: none by default', () => {
    expect(publicConfig(load({})).shareRoles).toEqual([]);
    expect(publicConfig(load({ CHAT_SHARE_ROLES: 'guest,admin' })).shareRoles).toEqual(['guest', 'admin']);
  });
});
