import { randomBytes } from 'node:crypto';
import type { TCreatedInvite } from '../../../contracts/passkeys.ts';
import type { TRole } from '../../../contracts/users.ts';
import type { PasskeysConfig } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import type { Mailer } from '../../integrations/email/mailer.ts';
import { AppError } from '../../lib/errors.ts';
import type { SessionUser } from '../../lib/http/types.ts';
import { hashToken, type Clock } from '../auth/auth.service.ts';
import { deleteInvite, deleteUnusedInvites, insertInvite, userWithEmailExists } from './passkeys.repo.ts';

export type InvitesDeps = {
  db: Db;
  config: PasskeysConfig;
  /** null when SMTP_URL is unset: the admin is shown the link to pass on instead. */
  mailer: Mailer | null;
  publicUrl: string;
  siteName: string;
  now: Clock;
  logger: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
};

/**
 * The invite link carries its token after '#': browsers never send a fragment, so it stays out
 * of request logs, proxies and Referer headers; the invite page posts it in a JSON body.
 */
export function inviteLink(publicUrl: string, token: string): string {
  return `${publicUrl}/invite#${token}`;
}

/** Invitations to passkey accounts (docs/decisions/0092): one-time, expiring, stored as a hash. */
export function createInvitesService({ db, config, mailer, publicUrl, siteName, now, logger }: InvitesDeps) {
  /** `admin` null: the operator's `npm run invite`, for the first admin of a passkey-only install. */
  async function create(admin: SessionUser | null, input: { email: string; role: TRole }): Promise<TCreatedInvite> {
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now().getTime() + config.inviteTtlMs);
    const invite = await db.transaction(async (tx) => {
      if (await userWithEmailExists(tx, input.email)) throw new AppError('CONFLICT', 'A user with this email already exists');
      await deleteUnusedInvites(tx, input.email);
      return insertInvite(tx, { email: input.email, role: input.role, tokenHash: hashToken(token), invitedBy: admin?.id ?? null, expiresAt });
    });
    const link = inviteLink(publicUrl, token);
    const answer = { id: invite.id, email: invite.email, role: input.role, expiresAt: expiresAt.toISOString() };
    if (!mailer) return { ...answer, emailed: false, link };
    try {
      await mailer.send({
        to: invite.email,
        subject: `You are invited to ${siteName}`,
        text: [
          admin ? `${admin.name || admin.email} invited you to ${siteName}.` : `You are invited to ${siteName}.`,
          '',
          'Open this link to create your passkey and sign in (it works once):',
          link,
          '',
          `It expires on ${expiresAt.toUTCString()}. If you did not expect it, ignore this email.`,
        ].join('\n'),
      });
    } catch (err) {
      // No invite stands that nobody received: the admin tries again or passes a new one on.
      await deleteInvite(db, invite.id);
      logger.warn({ err, inviteId: invite.id }, 'invite email could not be sent');
      throw new AppError('BAD_GATEWAY', `The invite email could not be sent, so no invite was made: ${err instanceof Error ? err.message : 'unknown error'}`);
    }
    logger.info({ inviteId: invite.id }, 'invite emailed');
    return { ...answer, emailed: true, link: null };
  }

  return { create };
}

export type InvitesService = ReturnType<typeof createInvitesService>;
