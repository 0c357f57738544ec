import { randomUUID } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { TPasskey, TPasskeyList } from '../../../contracts/passkeys.ts';
import type { PasskeysConfig } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import type { Invalidations, Sent } from '../../lib/invalidations.ts';
import { deleteSessionsOfPasskey } from '../auth/sessions.repo.ts';
import { AppError } from '../../lib/errors.ts';
import type { SessionUser } from '../../lib/http/types.ts';
import type { Clock } from '../auth/auth.service.ts';
import { hashToken } from '../auth/auth.service.ts';
import { toSessionUser } from '../users/users.presenter.ts';
import { findUserById, insertUser } from '../users/users.repo.ts';
import {
  countPasskeysForUpdate,
  deleteExpiredChallenges,
  deletePasskey,
  findPasskeyByCredentialId,
  findUsableInvite,
  insertChallenge,
  insertPasskey,
  listPasskeys,
  recordPasskeyUse,
  takeChallenge,
  useInvite,
  userWithEmailExists,
  type ChallengeRow,
  type PasskeyRow,
} from './passkeys.repo.ts';

/** The users.provider of passkey accounts; their subject is their id, which is also the
 * WebAuthn user handle their passkeys carry. */
export const PASSKEY_PROVIDER = 'passkey';
/** How long a browser has to answer a challenge (WebAuthn's own timeout is shorter). */
const CHALLENGE_TTL_MS = 5 * 60_000;
const CEREMONY_TIMEOUT_MS = 120_000;
/**
 * EdDSA, ES256, RS256: the library's own default without post-quantum keys, named here because
 * its default asks the runtime about ML-DSA, which makes Node print an experimental-feature
 * warning on every start. Authenticators make ES256 keys nearly always.
 */
const ALGORITHMS = [-8, -7, -257]; // COSE's numbers for them (the library's COSEALG, which is not loaded at start)

/**
 * The WebAuthn library, loaded at the first passkey ceremony rather than when the server starts:
 * with @peculiar's ASN.1 and X.509 modules it is a fifth of a CPU-second of every start
 * (decision 0105).
 */
const importWebAuthn = () =>
  Promise.all([import('@simplewebauthn/server'), import('@simplewebauthn/server/helpers')]).then(([library, helpers]) => ({ ...library, ...helpers }));
let webAuthn: ReturnType<typeof importWebAuthn> | undefined;
const loadWebAuthn = () => (webAuthn ??= importWebAuthn());

export const INVITE_UNUSABLE = 'This invite link has expired or was already used: ask the person who invited you for a new one';
const CHALLENGE_UNUSABLE = 'This passkey request has expired or was already answered: try again';
const NOT_REGISTERED = 'This passkey is not registered here (it may have been removed): sign in with another one';
const NOT_PASSKEY_ACCOUNT = 'Passkeys are for accounts invited to sign in with one';

export type PasskeysDeps = {
  db: Db;
  config: PasskeysConfig;
  adminEmails: readonly string[];
  now: Clock;
  /** Every process's session cache hears of the sessions a removed passkey ends. */
  invalidations: Pick<Invalidations, 'notify'>;
  /** Told of those sessions once they are gone, so what this process holds open for them closes. */
  sessionsEnded: (tokenHashes: readonly string[]) => void;
  logger?: { info(obj: object, msg: string): void };
};

export function toApiPasskey(row: PasskeyRow): TPasskey {
  return { id: row.id, name: row.name, createdAt: row.createdAt.toISOString(), lastUsedAt: row.lastUsedAt?.toISOString() ?? null };
}

/** The challenge a browser's answer signed, read from its clientDataJSON (checked again by the library). */
async function answeredChallenge(clientDataJSON: string): Promise<string> {
  const { isoBase64URL } = await loadWebAuthn();
  try {
    const data = JSON.parse(isoBase64URL.toUTF8String(clientDataJSON)) as { challenge?: unknown };
    if (typeof data.challenge === 'string' && data.challenge.length > 0 && data.challenge.length <= 512) return data.challenge;
  } catch {
    // Answered below.
  }
  throw new AppError('BAD_REQUEST', 'Invalid request', [{ path: 'credential.response.clientDataJSON', message: 'must be base64url JSON naming the challenge' }]);
}

/** The library's reason for refusing an answer, for the person: it names no secret. */
function refusal(err: unknown): string {
  return err instanceof Error ? err.message.slice(0, 200) : 'unknown reason';
}

/**
 * Passkey accounts (issue 33 item 2, docs/decisions/0092): registration from an invite, more
 * passkeys at Settings, sign-in with a discoverable credential. Every ceremony's challenge is
 * stored and taken by its one answer, so a replayed answer is refused even from an
 * authenticator that keeps no signature counter; where it keeps one, a counter that did not
 * grow is refused too (the library's check).
 */
export function createPasskeysService({ db, config, adminEmails, now, invalidations, sessionsEnded, logger }: PasskeysDeps) {
  async function issueChallenge(values: Omit<ChallengeRow, 'expiresAt'>): Promise<void> {
    const at = now();
    await deleteExpiredChallenges(db, at);
    await insertChallenge(db, { ...values, expiresAt: new Date(at.getTime() + CHALLENGE_TTL_MS) });
  }

  async function take(clientDataJSON: string, purpose: ChallengeRow['purpose']): Promise<ChallengeRow> {
    const row = await takeChallenge(db, await answeredChallenge(clientDataJSON), purpose, now());
    if (!row) throw new AppError(purpose === 'sign-in' ? 'UNAUTHORIZED' : 'CONFLICT', CHALLENGE_UNUSABLE);
    return row;
  }

  async function registrationOptions(user: { id: string; email: string }, exclude: PasskeyRow[]): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const { generateRegistrationOptions, isoUint8Array } = await loadWebAuthn();
    return generateRegistrationOptions({
      rpName: config.rpName,
      rpID: config.rpId,
      userID: isoUint8Array.fromUTF8String(user.id),
      userName: user.email,
      userDisplayName: user.email,
      attestationType: 'none',
      timeout: CEREMONY_TIMEOUT_MS,
      // Discoverable: the sign-in page asks for "a passkey" without an email first.
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
      excludeCredentials: exclude.map((p) => ({ id: p.credentialId, transports: p.transports })),
      supportedAlgorithmIDs: ALGORITHMS,
    });
  }

  async function verifyNewPasskey(credential: RegistrationResponseJSON, challenge: string) {
    const { verifyRegistrationResponse } = await loadWebAuthn();
    let verification;
    try {
      verification = await verifyRegistrationResponse({
        response: credential,
        expectedChallenge: challenge,
        expectedOrigin: config.origin,
        expectedRPID: config.rpId,
        requireUserVerification: false,
        supportedAlgorithmIDs: ALGORITHMS,
      });
    } catch (err) {
      throw new AppError('BAD_REQUEST', `The passkey could not be registered: ${refusal(err)}`);
    }
    if (!verification.verified) throw new AppError('BAD_REQUEST', 'The passkey could not be registered: its answer did not verify');
    const { credential: made } = verification.registrationInfo;
    return { credentialId: made.id, publicKey: Buffer.from(made.publicKey), counter: made.counter, transports: made.transports ?? credential.response.transports ?? [] };
  }

  /** The invite's registration options; the account's id is chosen now, as the passkey's user handle. */
  async function inviteOptions(token: string): Promise<{ email: string; options: PublicKeyCredentialCreationOptionsJSON }> {
    const invite = await findUsableInvite(db, hashToken(token), now());
    if (!invite) throw new AppError('NOT_FOUND', INVITE_UNUSABLE);
    if (await userWithEmailExists(db, invite.email)) throw new AppError('CONFLICT', 'An account with this email already exists: sign in instead');
    const userId = randomUUID();
    const options = await registrationOptions({ id: userId, email: invite.email }, []);
    await issueChallenge({ challenge: options.challenge, purpose: 'invite', inviteId: invite.id, userHandle: userId, userId: null });
    return { email: invite.email, options };
  }

  /** Makes the invited account with its first passkey; the invite is spent. */
  async function acceptInvite(token: string, name: string, credential: RegistrationResponseJSON): Promise<{ user: SessionUser; passkeyId: string }> {
    const challenge = await take(credential.response.clientDataJSON, 'invite');
    const invite = await findUsableInvite(db, hashToken(token), now());
    if (!invite) throw new AppError('NOT_FOUND', INVITE_UNUSABLE);
    if (challenge.inviteId !== invite.id || !challenge.userHandle) throw new AppError('CONFLICT', CHALLENGE_UNUSABLE);
    const passkey = await verifyNewPasskey(credential, challenge.challenge);
    const userId = challenge.userHandle;
    const user = await db.transaction(async (tx) => {
      if (await userWithEmailExists(tx, invite.email)) throw new AppError('CONFLICT', 'An account with this email already exists: sign in instead');
      const role = adminEmails.includes(invite.email) ? 'admin' : invite.role;
      const row = await insertUser(tx, {
        id: userId,
        provider: PASSKEY_PROVIDER,
        subject: userId,
        email: invite.email,
        name: invite.email.split('@')[0]!,
        profilePicture: '',
        role,
      });
      if (!(await useInvite(tx, invite.id, row.id, now()))) throw new AppError('NOT_FOUND', INVITE_UNUSABLE);
      const added = await insertPasskey(tx, { userId: row.id, name, ...passkey });
      return { row, passkeyId: added.id };
    });
    logger?.info({ userId: user.row.id, inviteId: invite.id }, 'invite accepted: passkey account created');
    return { user: toSessionUser(user.row), passkeyId: user.passkeyId };
  }

  /** 409, not 403: nothing is forbidden to the user; the account simply signs in another way. */
  function requirePasskeyAccount(user: SessionUser): void {
    if (user.provider !== PASSKEY_PROVIDER) throw new AppError('CONFLICT', NOT_PASSKEY_ACCOUNT);
  }

  async function addOptions(user: SessionUser): Promise<PublicKeyCredentialCreationOptionsJSON> {
    requirePasskeyAccount(user);
    const options = await registrationOptions(user, await listPasskeys(db, user.id));
    await issueChallenge({ challenge: options.challenge, purpose: 'add', userId: user.id, inviteId: null, userHandle: null });
    return options;
  }

  async function add(user: SessionUser, name: string, credential: RegistrationResponseJSON): Promise<TPasskey> {
    requirePasskeyAccount(user);
    const challenge = await take(credential.response.clientDataJSON, 'add');
    if (challenge.userId !== user.id) throw new AppError('CONFLICT', CHALLENGE_UNUSABLE);
    const passkey = await verifyNewPasskey(credential, challenge.challenge);
    if (await findPasskeyByCredentialId(db, passkey.credentialId)) throw new AppError('CONFLICT', 'This passkey is already registered');
    return toApiPasskey(await insertPasskey(db, { userId: user.id, name, ...passkey }));
  }

  async function signInOptions(): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const { generateAuthenticationOptions } = await loadWebAuthn();
    // No allowCredentials: the authenticator offers this site's discoverable passkeys.
    const options = await generateAuthenticationOptions({ rpID: config.rpId, userVerification: 'preferred', timeout: CEREMONY_TIMEOUT_MS });
    await issueChallenge({ challenge: options.challenge, purpose: 'sign-in', userId: null, inviteId: null, userHandle: null });
    return options;
  }

  async function signIn(credential: AuthenticationResponseJSON): Promise<{ user: SessionUser; passkeyId: string }> {
    const challenge = await take(credential.response.clientDataJSON, 'sign-in');
    const passkey = await findPasskeyByCredentialId(db, credential.id);
    if (!passkey) throw new AppError('UNAUTHORIZED', NOT_REGISTERED);
    const { isoBase64URL, verifyAuthenticationResponse } = await loadWebAuthn();
    const handle = credential.response.userHandle;
    if (handle !== undefined && isoBase64URL.toUTF8String(handle) !== passkey.userId) throw new AppError('UNAUTHORIZED', NOT_REGISTERED);
    let verification;
    try {
      verification = await verifyAuthenticationResponse({
        response: credential,
        expectedChallenge: challenge.challenge,
        expectedOrigin: config.origin,
        expectedRPID: config.rpId,
        credential: { id: passkey.credentialId, publicKey: new Uint8Array(passkey.publicKey), counter: passkey.counter, transports: passkey.transports },
        requireUserVerification: false,
      });
    } catch (err) {
      throw new AppError('UNAUTHORIZED', `The passkey could not be verified: ${refusal(err)}`);
    }
    if (!verification.verified) throw new AppError('UNAUTHORIZED', 'The passkey could not be verified');
    if (!(await recordPasskeyUse(db, passkey.id, passkey.counter, verification.authenticationInfo.newCounter, now()))) {
      throw new AppError('UNAUTHORIZED', 'The passkey could not be verified: it was used at the same moment elsewhere');
    }
    const user = await findUserById(db, passkey.userId);
    if (!user) throw new AppError('UNAUTHORIZED', NOT_REGISTERED);
    return { user: toSessionUser(user), passkeyId: passkey.id };
  }

  async function list(user: SessionUser): Promise<TPasskeyList> {
    if (user.provider !== PASSKEY_PROVIDER) return { available: false, passkeys: [] };
    return { available: true, passkeys: (await listPasskeys(db, user.id)).map(toApiPasskey) };
  }

  /**
   * Removes one of the user's passkeys; never the last, which is their only way in. The sessions
   * it signed in end with it (a lost device is signed out), but `currentSession`, the one asking:
   * the person removing it has just shown they are signed in here.
   */
  async function remove(user: SessionUser, id: string, currentSession: string | undefined): Promise<void> {
    requirePasskeyAccount(user);
    let sent = null as Sent | null;
    const ended = await db.transaction(async (tx) => {
      const count = await countPasskeysForUpdate(tx, user.id);
      const own = (await listPasskeys(tx, user.id)).some((p) => p.id === id);
      if (!own) throw new AppError('NOT_FOUND', 'Passkey not found');
      if (count <= 1) throw new AppError('CONFLICT', 'This is your only passkey, your only way to sign in: add another before you remove it');
      const sessions = await deleteSessionsOfPasskey(tx, id, currentSession);
      await deletePasskey(tx, user.id, id);
      if (sessions.length > 0) sent = await invalidations.notify(tx, 'user', user.id);
      return sessions;
    });
    await sent?.delivered();
    if (ended.length > 0) {
      logger?.info({ userId: user.id, sessions: ended.length }, 'passkey removed: the sessions it signed in ended');
      sessionsEnded(ended);
    }
  }

  return { inviteOptions, acceptInvite, addOptions, add, signInOptions, signIn, list, remove };
}

export type PasskeysService = ReturnType<typeof createPasskeysService>;
