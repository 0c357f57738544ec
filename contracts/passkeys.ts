import { z } from 'zod';
import { ZEmail } from './auth.ts';
import { ZRole, type TRole } from './users.ts';

/**
 * Passkey accounts (issue 33 item 2, docs/decisions/0092): an admin invites an email, the person
 * registers a passkey from the one-time link, and signs in with it from then on.
 */

/** The invite link's token: 32 random bytes, base64url (43 characters). */
export const INVITE_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const ZInviteToken = z.string('The invite token is missing').regex(INVITE_TOKEN_PATTERN, 'The invite link is not complete: open it again from the email');

/** POST /api/invites (admin). */
export const ZCreateInvite = z.object({ email: ZEmail, role: ZRole }).strict();
export type TCreateInvite = z.input<typeof ZCreateInvite>;

/** The invite as its admin sees it: `link` only when no email could carry it (SMTP_URL unset). */
export type TCreatedInvite = { id: string; email: string; role: TRole; expiresAt: string; emailed: boolean; link: string | null };

/** A passkey's name, as its owner gives it (or the browser's default). */
const ZPasskeyName = z.string().trim().min(1, 'Name the passkey').max(60, 'The name must be at most 60 characters');

/**
 * A WebAuthn answer as @simplewebauthn/browser sends it (RegistrationResponseJSON or
 * AuthenticationResponseJSON). Its shape is checked here; what it proves is checked by
 * @simplewebauthn/server.
 */
const ZBase64Url = z.string().regex(/^[A-Za-z0-9_-]*={0,2}$/, 'must be base64url').max(16_384, 'is too long');
export const ZRegistrationCredential = z.object({
  id: ZBase64Url,
  rawId: ZBase64Url,
  type: z.literal('public-key', "must be 'public-key'"),
  response: z.looseObject({ clientDataJSON: ZBase64Url, attestationObject: ZBase64Url, transports: z.array(z.string().max(32)).max(10).optional() }),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.string().max(32).optional(),
});
export const ZAuthenticationCredential = z.object({
  id: ZBase64Url,
  rawId: ZBase64Url,
  type: z.literal('public-key', "must be 'public-key'"),
  response: z.looseObject({ clientDataJSON: ZBase64Url, authenticatorData: ZBase64Url, signature: ZBase64Url, userHandle: ZBase64Url.optional() }),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.string().max(32).optional(),
});

/** POST /api/auth/invite/options: the registration options for the invite's new account. */
export const ZInviteOptions = z.object({ token: ZInviteToken }).strict();
/** POST /api/auth/invite/verify: the new passkey; the account is made and signed in. */
export const ZInviteVerify = z.object({ token: ZInviteToken, name: ZPasskeyName, credential: ZRegistrationCredential }).strict();
/** POST /api/passkeys: a signed-in passkey account adds one more. */
export const ZAddPasskey = z.object({ name: ZPasskeyName, credential: ZRegistrationCredential }).strict();
/** POST /api/auth/passkey/verify: a sign-in with a passkey. */
export const ZPasskeySignIn = z.object({ credential: ZAuthenticationCredential }).strict();
export const ZPasskeyParams = z.object({ id: z.uuid('Passkey id must be a UUID') }).strict();

/** A passkey as its owner sees it (never its key). */
export type TPasskey = { id: string; name: string; createdAt: string; lastUsedAt: string | null };
/** GET /api/passkeys: `available` false for accounts that sign in some other way. */
export type TPasskeyList = { available: boolean; passkeys: TPasskey[] };
/** POST /api/auth/invite/options: whom the invite is for, and the options for the browser. */
export type TInviteOptions = { email: string; options: unknown };
