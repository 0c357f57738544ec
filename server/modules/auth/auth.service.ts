import { createHash, randomBytes } from 'node:crypto';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from '../../../contracts/constants.ts';
import type { TRole } from '../../../contracts/users.ts';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import type { SessionUser } from '../../lib/http/types.ts';
import { toSessionUser } from '../users/users.presenter.ts';
import { findUserByIdentity, hasAnyUser, insertUser, lockFirstUser, updateUserProfile, type Identity, type Profile } from '../users/users.repo.ts';
import { deleteExpiredSessions, deleteSession, findSessionsWithUsers, findSessionWithUser, insertSession, touchSession } from './sessions.repo.ts';

/** last_seen_at is written at most this often, so reads do not each cost a write. */
const TOUCH_INTERVAL_MS = 60_000;

export type Clock = () => Date;

export type AuthDeps = { db: Db; config: Pick<Config, 'adminEmails' | 'auth'>; now: Clock };

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function createAuthService({ db, config, now }: AuthDeps) {
  const isConfiguredAdmin = (email: string) => config.adminEmails.includes(email.toLowerCase());

  /**
   * Finds or creates the user of an identity the provider has vouched for and refreshes the
   * profile. Roles: ADMIN_EMAILS are admins (promoted at each sign-in); in local mode without
   * ADMIN_EMAILS the very first account is admin, so a fresh install has someone to manage it.
   */
  async function signIn(identity: Identity, profile: Profile): Promise<SessionUser> {
    const email = profile.email.toLowerCase();
    const user = await db.transaction(async (tx) => {
      const existing = await findUserByIdentity(tx, identity);
      if (existing) {
        const role: TRole = isConfiguredAdmin(email) ? 'admin' : existing.role;
        return updateUserProfile(tx, existing.id, { ...profile, email, role });
      }
      let role: TRole = isConfiguredAdmin(email) ? 'admin' : 'guest';
      if (role === 'guest' && config.auth.provider === 'local' && config.adminEmails.length === 0) {
        await lockFirstUser(tx);
        if (!(await hasAnyUser(tx))) role = 'admin';
      }
      return insertUser(tx, { ...identity, ...profile, email, role });
    });
    return toSessionUser(user);
  }

  async function createSession(userId: string): Promise<{ token: string; expiresAt: Date }> {
    const token = randomBytes(32).toString('base64url');
    // Both limits on the app's clock: last_seen_at's column default is the database's.
    const at = now();
    const expiresAt = new Date(at.getTime() + SESSION_ABSOLUTE_MS);
    await insertSession(db, { tokenHash: hashToken(token), userId, lastSeenAt: at, expiresAt });
    return { token, expiresAt };
  }

  /** The session's user, or null when the token is unknown, idle too long or past its end. */
  async function resolveSession(token: string): Promise<{ user: SessionUser; tokenHash: string } | null> {
    const tokenHash = hashToken(token);
    const row = await findSessionWithUser(db, tokenHash);
    if (!row) return null;
    const at = now();
    const idleFor = at.getTime() - row.session.lastSeenAt.getTime();
    if (row.session.expiresAt.getTime() <= at.getTime() || idleFor >= SESSION_IDLE_MS) {
      await deleteSession(db, tokenHash);
      return null;
    }
    if (idleFor >= TOUCH_INTERVAL_MS) await touchSession(db, tokenHash, at);
    return { user: toSessionUser(row.user), tokenHash };
  }

  async function endSession(tokenHash: string): Promise<void> {
    await deleteSession(db, tokenHash);
    for (const listener of endListeners) listener(tokenHash);
  }

  /** Told of each session ended here (sign-out), so what it holds open closes at once. */
  const endListeners = new Set<(tokenHash: string) => void>();
  function onSessionEnd(listener: (tokenHash: string) => void): () => void {
    endListeners.add(listener);
    return () => endListeners.delete(listener);
  }

  /**
   * The users of those sessions that still stand (not signed out, idle or past their end), by
   * token hash. Unlike resolveSession it does not count as activity: an open tab's stream must
   * not keep its session alive for ever.
   */
  async function checkSessions(tokenHashes: readonly string[]): Promise<Map<string, SessionUser>> {
    const at = now().getTime();
    const live = new Map<string, SessionUser>();
    for (const row of await findSessionsWithUsers(db, tokenHashes)) {
      if (row.session.expiresAt.getTime() <= at || at - row.session.lastSeenAt.getTime() >= SESSION_IDLE_MS) continue;
      live.set(row.session.tokenHash, toSessionUser(row.user));
    }
    return live;
  }

  async function purgeExpiredSessions(): Promise<number> {
    const at = now();
    return deleteExpiredSessions(db, at, new Date(at.getTime() - SESSION_IDLE_MS));
  }

  return { signIn, createSession, resolveSession, endSession, purgeExpiredSessions, onSessionEnd, checkSessions };
}

export type AuthService = ReturnType<typeof createAuthService>;
