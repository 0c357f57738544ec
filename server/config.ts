import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ZEmail, type TPublicConfig } from '../contracts/auth.ts';

const emptyToUndefined = (value: unknown) => (value === '' ? undefined : value);
const optionalString = z.preprocess(emptyToUndefined, z.string().optional());
const booleanFlag = z.preprocess(
  emptyToUndefined,
  z.enum(['true', 'false', '1', '0']).optional().transform((v) => v === 'true' || v === '1'),
);

const ZEnv = z.object({
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
  AUTH_PROVIDER: z.preprocess(emptyToUndefined, z.enum(['local', 'google']).optional()),
  ALLOW_LOCAL_AUTH: booleanFlag,
  GOOGLE_CLIENT_ID: optionalString,
  GOOGLE_CLIENT_SECRET: optionalString,
  OIDC_ISSUER: z.preprocess(emptyToUndefined, z.url().default('https://accounts.google.com')),
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
  TRUST_PROXY: booleanFlag,
  SIGN_IN_RATE_LIMIT: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).default(10)),
  SITE_NAME: z.preprocess(emptyToUndefined, z.string().max(60).default('Axiom Automation')),
  CONTACT_EMAIL: z.preprocess(emptyToUndefined, ZEmail.default('hello@axiom-automation.com')),
  LOG_LEVEL: z.preprocess(
    emptyToUndefined,
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ),
});

export type Config = {
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  database: { kind: 'pglite'; dataDir: string | null } | { kind: 'postgres'; url: string };
  dataDir: string;
  auth:
    | { provider: 'local' }
    | { provider: 'google'; clientId: string; clientSecret: string; issuer: string };
  adminEmails: string[];
  publicUrl: string;
  publicOrigin: string;
  secureCookies: boolean;
  sessionSecret: string;
  trustProxy: boolean;
  signInRateLimit: number;
  siteName: string;
  contactEmail: string;
  logLevel: string;
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
    };
  }
  if (e.NODE_ENV === 'production') {
    if (provider === 'local' && !e.ALLOW_LOCAL_AUTH) {
      problems.push('AUTH_PROVIDER: local sign-in is refused in production; configure Google or set ALLOW_LOCAL_AUTH=true');
    }
    if (!e.SESSION_SECRET) problems.push('SESSION_SECRET: required when NODE_ENV=production');
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);

  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  const dataDir = path.resolve(e.DATA_DIR);
  const database: Config['database'] = e.DATABASE_URL
    ? { kind: 'postgres', url: e.DATABASE_URL }
    : { kind: 'pglite', dataDir: overrides.inMemoryDatabase ? null : dataDir };

  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    database,
    dataDir,
    auth,
    adminEmails: e.ADMIN_EMAILS,
    publicUrl,
    publicOrigin: new URL(publicUrl).origin,
    secureCookies: publicUrl.startsWith('https:'),
    sessionSecret: e.SESSION_SECRET ?? (overrides.inMemoryDatabase ? randomBytes(32).toString('hex') : storedSecret(dataDir)),
    trustProxy: e.TRUST_PROXY,
    signInRateLimit: e.SIGN_IN_RATE_LIMIT,
    siteName: e.SITE_NAME,
    contactEmail: e.CONTACT_EMAIL,
    logLevel: e.LOG_LEVEL,
  };
}

/** Outside production a missing SESSION_SECRET is generated once and kept in DATA_DIR, so
 * restarts keep in-flight sign-ins valid. */
function storedSecret(dataDir: string): string {
  const file = path.join(dataDir, 'session-secret');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    mkdirSync(dataDir, { recursive: true });
    const secret = randomBytes(32).toString('hex');
    writeFileSync(file, secret, { mode: 0o600 });
    return secret;
  }
}

export function publicConfig(config: Config): TPublicConfig {
  return { siteName: config.siteName, contactEmail: config.contactEmail, authProvider: config.auth.provider };
}
