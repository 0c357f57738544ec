import { createHash, randomBytes } from 'node:crypto';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from '../../../contracts/constants.ts';
import type { TRole } from '../../../contracts/users.ts';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import type { SessionUser } from '../../lib/http/types.ts';
import type { Invalidations, Sent } from '../../lib/invalidations.ts';
import { toSessionUser } from '../users/users.presenter.ts';
import { findUserByIdentity, hasAnyUser, insertUser, lockFirstUser, updateUserProfile, type Identity, type Profile } from '../users/users.repo.ts';
import { deleteExpiredSessions, deleteSession, deleteSessionsOfUser, findSessionsWithUsers, findSessionWithUser, insertSession, touchSession } from './sessions.repo.ts';

/** last_seen_at is written at most this often per session and process, so reads do not each
 * cost a write (and concurrent requests of one session never all write at once). */
export const TOUCH_INTERVAL_MS = 60_000;
/** Resolved sessions kept in memory (docs/decisions/0049); beyond this the oldest go first. */
const SESSION_CACHE_MAX = 10_000;

export type Clock = () => Date;

export type AuthDeps = {
  db: Db;
  config: Pick<Config, 'adminEmails' | 'auth'>;
  now: Clock;
  /** Sign-outs and user changes in every process; without it, nothing is cached. */
  invalidations: Invalidations;
  logger?: { warn(obj: object, msg: string): void };
};

type CachedSession = { user: SessionUser; expiresAt: number; lastSeenAt: number };

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function createAuthService({ db, config, now, invalidations, logger }: AuthDeps) {
  // The session cache (docs/decisions/0049): a resolved session with its user, by token hash.
  // Every sign-out and user change in any process invalidates it before that write's answer;
  // while invalidations could be missed it is neither read nor filled. Expiry and idle time are
  // checked on every use, so an expired session is refused at its very next request.
  const cache = new Map<string, CachedSession>();
  const sessionsOf = new Map<string, Set<string>>();
  /** Bumped by every invalidation: a lookup that began before one does not fill the cache. */
  let generation = 0;
  const forget = (tokenHash: string) => {
    const entry = cache.get(tokenHash);
    if (!entry) return;
    cache.delete(tokenHash);
    const set = sessionsOf.get(entry.user.id);
    set?.delete(tokenHash);
    if (set?.size === 0) sessionsOf.delete(entry.user.id);
  };
  const forgetAll = () => {
    generation++;
    cache.clear();
    sessionsOf.clear();
  };
  invalidations.on('session', (tokenHash) => {
    generation++;
    forget(tokenHash);
    lastTouched.delete(tokenHash);
  });
  invalidations.on('user', (userId) => {
    generation++;
    for (const tokenHash of sessionsOf.get(userId) ?? []) cache.delete(tokenHash);
    sessionsOf.delete(userId);
  });
  invalidations.onReset(forgetAll);

  function remember(tokenHash: string, entry: CachedSession): void {
    if (cache.size >= SESSION_CACHE_MAX) forget(cache.keys().next().value!);
    cache.set(tokenHash, entry);
    let set = sessionsOf.get(entry.user.id);
    if (!set) sessionsOf.set(entry.user.id, (set = new Set()));
    set.add(tokenHash);
  }

  // One touch per session per interval in this process: the time of the last one begun here.
  const lastTouched = new Map<string, number>();
  const touching = new Set<Promise<void>>();
  function touchIfDue(tokenHash: string, lastSeenAt: number, at: number): void {
    const since = Math.max(lastSeenAt, lastTouched.get(tokenHash) ?? 0);
    if (at - since < TOUCH_INTERVAL_MS) return;
    if (lastTouched.size >= SESSION_CACHE_MAX) {
      for (const [hash, time] of lastTouched) if (at - time >= TOUCH_INTERVAL_MS) lastTouched.delete(hash);
    }
    lastTouched.set(tokenHash, at);
    const entry = cache.get(tokenHash);
    if (entry) entry.lastSeenAt = at;
    // Not awaited: the request has its answer; the write only keeps the session from idling out.
    const write = touchSession(db, tokenHash, new Date(at))
      .catch((err: unknown) => logger?.warn({ err }, 'could not record session activity'))
      .finally(() => touching.delete(write));
    touching.add(write);
  }

  const isConfiguredAdmin = (email: string) => config.adminEmails.includes(email.toLowerCase());

  /**
   * Finds or creates the user of an identity the provider has vouched for and refreshes the
   * profile. Roles: when the provider's claim decides (`decided.role`, OIDC_ADMIN_CLAIM), it
   * alone does, at every sign-in: a demoted admin's other sessions end with this sign-in, a
   * promoted user's sessions are admin at once. Otherwise ADMIN_EMAILS are admins (promoted at
   * each sign-in); in local mode without ADMIN_EMAILS the very first account is admin, so a
   * fresh install has someone to manage it.
   */
  async function signIn(identity: Identity, profile: Profile, decided: { role?: TRole } = {}): Promise<SessionUser> {
    const email = profile.email.toLowerCase();
    let changed = null as Sent | null;
    let ended: string[] = [];
    const user = await db.transaction(async (tx) => {
      const existing = await findUserByIdentity(tx, identity);
      if (existing) {
        const role: TRole = decided.role ?? (isConfiguredAdmin(email) ? 'admin' : existing.role);
        // The sessions of an admin the provider no longer vouches for as admin end here; every
        // process's cache drops them with the user's invalidation below.
        if (existing.role === 'admin' && role !== 'admin') ended = await deleteSessionsOfUser(tx, existing.id);
        const updated = await updateUserProfile(tx, existing.id, { ...profile, email, role });
        changed = await invalidations.notify(tx, 'user', existing.id);
        return updated;
      }
      if (decided.role) return insertUser(tx, { ...identity, ...profile, email, role: decided.role });
      let role: TRole = isConfiguredAdmin(email) ? 'admin' : 'guest';
      if (role === 'guest' && config.auth.provider === 'local' && config.adminEmails.length === 0) {
        await lockFirstUser(tx);
        if (!(await hasAnyUser(tx))) role = 'admin';
      }
      return insertUser(tx, { ...identity, ...profile, email, role });
    });
    await changed?.delivered();
    if (ended.length > 0) logger?.warn({ userId: user.id, sessions: ended.length }, 'admin role withdrawn by the identity provider: their sessions ended');
    // What this process holds open for them (event streams) closes at once.
    for (const tokenHash of ended) for (const listener of endListeners) listener(tokenHash);
    return toSessionUser(user);
  }

  /** `passkeyId`: the passkey that proved who they are, whose removal ends this session. */
  async function createSession(userId: string, { passkeyId = null }: { passkeyId?: string | null } = {}): Promise<{ token: string; expiresAt: Date }> {
    const token = randomBytes(32).toString('base64url');
    // Both limits on the app's clock: last_seen_at's column default is the database's.
    const at = now();
    const expiresAt = new Date(at.getTime() + SESSION_ABSOLUTE_MS);
    await insertSession(db, { tokenHash: hashToken(token), userId, lastSeenAt: at, expiresAt, passkeyId });
    return { token, expiresAt };
  }

  /** The session's user, or null when the token is unknown, idle too long or past its end. */
  async function resolveSession(token: string): Promise<{ user: SessionUser; tokenHash: string } | null> {
    const tokenHash = hashToken(token);
    const at = now().getTime();
    const reliable = invalidations.reliable();
    const hit = reliable ? cache.get(tokenHash) : undefined;
    if (hit) {
      if (hit.expiresAt > at && at - hit.lastSeenAt < SESSION_IDLE_MS) {
        touchIfDue(tokenHash, hit.lastSeenAt, at);
        return { user: hit.user, tokenHash };
      }
      // Past its end here: the database decides (another process may have seen it since).
      forget(tokenHash);
    }
    const startedAt = generation;
    const row = await findSessionWithUser(db, tokenHash);
    if (!row) return null;
    const idleFor = at - row.session.lastSeenAt.getTime();
    if (row.session.expiresAt.getTime() <= at || idleFor >= SESSION_IDLE_MS) {
      await deleteSession(db, tokenHash);
      return null;
    }
    const user = toSessionUser(row.user);
    if (reliable && startedAt === generation && invalidations.reliable()) {
      remember(tokenHash, { user, expiresAt: row.session.expiresAt.getTime(), lastSeenAt: row.session.lastSeenAt.getTime() });
    }
    touchIfDue(tokenHash, row.session.lastSeenAt.getTime(), at);
    return { user, tokenHash };
  }

  async function endSession(tokenHash: string): Promise<void> {
    const sent = await db.transaction(async (tx) => {
      await deleteSession(tx, tokenHash);
      return invalidations.notify(tx, 'session', tokenHash);
    });
    await sent.delivered();
    for (const listener of endListeners) listener(tokenHash);
  }

  /** Sessions another module ended in its own transaction (a removed passkey's), once it committed
   * and the user's invalidation was delivered: what this process holds open for them closes. */
  function sessionsEnded(tokenHashes: readonly string[]): void {
    for (const tokenHash of tokenHashes) for (const listener of endListeners) listener(tokenHash);
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

  /** Waits for the activity writes in flight (before the database closes). */
  async function close(): Promise<void> {
    await Promise.allSettled([...touching]);
  }

  return { signIn, createSession, resolveSession, endSession, sessionsEnded, purgeExpiredSessions, onSessionEnd, checkSessions, close };
}

export type AuthService = ReturnType<typeof createAuthService>;
