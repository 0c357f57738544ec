import pino from 'pino';
import { ZCreateInvite } from '../contracts/passkeys.ts';
import { ConfigError, loadConfig } from './config.ts';
import { openDatabase } from './db/client.ts';
import { DataDirInUseError } from './db/data-dir-lock.ts';
import { createMailer } from './integrations/email/mailer.ts';
import { AppError } from './lib/errors.ts';
import { createInvitesService } from './modules/passkeys/invites.service.ts';

const USAGE = 'usage: npm run invite -- <email> [admin|guest]   (admin unless told)';

/**
 * `npm run invite -- <email> [role]` (docs/decisions/0092): an invite made by the operator, for
 * the first admin of an install whose only sign-in is passkeys (no admin exists yet to use Users
 * → Invite). Emailed through SMTP_URL, else the link is printed here, to this terminal only.
 * Uses the server's configuration; the embedded database must not be in use by a running server
 * (stop it first), PostgreSQL may be. Exit 0 done, 1 refused or failed, 2 misused.
 */
export async function inviteCommand(args: string[], env: NodeJS.ProcessEnv, out: { log(line: string): void; error(line: string): void }): Promise<number> {
  const [email, role = 'admin', ...rest] = args;
  const input = ZCreateInvite.safeParse({ email, role });
  if (!email || rest.length > 0 || !input.success) {
    out.error(input.success || !email ? USAGE : `${input.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}\n${USAGE}`);
    return 2;
  }
  let config;
  try {
    config = loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    out.error(err.message);
    return 2;
  }
  if (!config.passkeys) {
    out.error('Passkeys are not offered here: an identity provider is configured (AUTH_PROVIDER), or PUBLIC_URL is an IP address. Sign in with the provider instead.');
    return 1;
  }
  const logger = pino({ level: 'warn' });
  let database;
  try {
    database = await openDatabase(config.database, logger);
  } catch (err) {
    if (!(err instanceof DataDirInUseError)) throw err;
    out.error(`${err.message}: stop the server, make the invite, and start it again.`);
    return 1;
  }
  try {
    const invites = createInvitesService({
      db: database.db,
      config: config.passkeys,
      mailer: config.email.smtpUrl ? createMailer(config.email, logger) : null,
      publicUrl: config.publicUrl,
      siteName: config.siteName,
      now: () => new Date(),
      logger,
    });
    const created = await invites.create(null, input.data);
    out.log(
      created.link
        ? `Invite for ${created.email} (${created.role}), valid until ${created.expiresAt}, once. SMTP_URL is not set: pass this link on yourself:\n${created.link}`
        : `Invite for ${created.email} (${created.role}) emailed; valid until ${created.expiresAt}, once.`,
    );
    return 0;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    out.error(`Invite refused: ${err.message}`);
    return 1;
  } finally {
    await database.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await inviteCommand(process.argv.slice(2), process.env, console);
}
