import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { createMailer } from '../../integrations/email/mailer.ts';
import type { Clock } from '../auth/auth.service.ts';
import { createInvitesService } from './invites.service.ts';
import { passkeysRoutes, type PasskeysRouteDeps } from './passkeys.routes.ts';
import { createPasskeysService } from './passkeys.service.ts';

/** Passkey accounts (issue 33 item 2, docs/decisions/0092), where no identity provider is configured. */
export async function registerPasskeys(
  app: FastifyInstance,
  { config, db, routeDeps, now }: { config: Config; db: Db; routeDeps: Omit<PasskeysRouteDeps, 'passkeys' | 'invites'>; now: Clock },
): Promise<void> {
  if (!config.passkeys) return;
  const passkeys = createPasskeysService({
    db,
    config: config.passkeys,
    adminEmails: config.adminEmails,
    now,
    invalidations: app.invalidations,
    sessionsEnded: (tokenHashes) => routeDeps.auth.sessionsEnded(tokenHashes),
    logger: app.log,
  });
  const invites = createInvitesService({
    db,
    config: config.passkeys,
    // Without SMTP_URL the mailer would write the email, link and all, to the log: the admin is shown it instead.
    mailer: config.email.smtpUrl ? createMailer(config.email, app.log) : null,
    publicUrl: config.publicUrl,
    siteName: config.siteName,
    now,
    logger: app.log,
  });
  await app.register(passkeysRoutes, { ...routeDeps, passkeys, invites });
}
