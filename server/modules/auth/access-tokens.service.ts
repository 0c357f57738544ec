import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import {
  ACCESS_TOKEN_PREFIX,
  ACCESS_TOKENS_PER_USER,
  type TAccessToken,
  type TCreatedAccessToken,
  type TTokenScope,
  type ZCreateAccessToken,
} from '../../../contracts/assistant-tools.ts';
import type { Db } from '../../db/client.ts';
import { AppError } from '../../lib/errors.ts';
import type { SessionUser } from '../../lib/http/types.ts';
import { hashToken } from './auth.service.ts';
import { toSessionUser } from '../users/users.presenter.ts';
import {
  countLiveAccessTokens,
  findAccessTokenByHash,
  insertAccessToken,
  listAccessTokens,
  lockTokenOwner,
  revokeAccessToken,
  touchAccessToken,
  type AccessTokenRow,
} from './access-tokens.repo.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
/** A token's last use is written at most this often (a client may call several times a second). */
export const LAST_USED_EVERY_MS = 60_000;
/** Characters after `agt_` shown in the list, so its owner can tell tokens apart. */
const SHOWN_CHARACTERS = 8;
/** `agt_` and 32 random bytes in base64url: the only shape a token can have. */
const TOKEN_SHAPE = new RegExp(`^${ACCESS_TOKEN_PREFIX}[A-Za-z0-9_-]{43}$`);

/** Who a token acts as, with the user's role as it is now. */
export type TokenHolder = { token: { id: string; name: string; scope: TTokenScope }; user: SessionUser };
/** Why a token is refused: each says what its holder can do about it. */
export type TokenRefusal = 'unknown' | 'expired' | 'revoked';
export const TOKEN_REFUSALS: Record<TokenRefusal, string> = {
  unknown: 'This access token is not valid. Create one at Settings → Access tokens.',
  expired: 'This access token has expired. Create a new one at Settings → Access tokens.',
  revoked: 'This access token was revoked. Create a new one at Settings → Access tokens.',
};

function toApiToken(row: AccessTokenRow): TAccessToken {
  return {
    id: row.id,
    name: row.name,
    scope: row.scope,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    prefix: row.prefix,
  };
}

/**
 * Personal access tokens (issue 31, docs/decisions/0078): made and revoked by their owner at
 * Settings, shown once, kept as a SHA-256 hash. Every MCP request looks its token up in the
 * database (no cache), so a revocation holds at once in every process, and reads the user's
 * role there too: a demoted admin's token loses the agent tools on its next request.
 */
export function createAccessTokensService({ db, now }: { db: Db; now: () => Date }) {
  async function list(userId: string): Promise<TAccessToken[]> {
    return (await listAccessTokens(db, userId)).map(toApiToken);
  }

  async function create(userId: string, input: z.output<typeof ZCreateAccessToken>): Promise<TCreatedAccessToken> {
    const token = `${ACCESS_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const at = now();
    const row = await db.transaction(async (tx) => {
      if (!(await lockTokenOwner(tx, userId))) throw new AppError('NOT_FOUND', 'User not found');
      if ((await countLiveAccessTokens(tx, userId, at)) >= ACCESS_TOKENS_PER_USER) {
        throw new AppError('CONFLICT', `You have ${ACCESS_TOKENS_PER_USER} access tokens, the most one account may hold; revoke one first.`);
      }
      return insertAccessToken(tx, {
        userId,
        name: input.name,
        scope: input.scope,
        tokenHash: hashToken(token),
        prefix: token.slice(ACCESS_TOKEN_PREFIX.length, ACCESS_TOKEN_PREFIX.length + SHOWN_CHARACTERS),
        createdAt: at,
        expiresAt: new Date(at.getTime() + input.expiresInDays * DAY_MS),
      });
    });
    // The secret leaves the server this once; only its hash is kept.
    return { ...toApiToken(row), token };
  }

  async function revoke(userId: string, id: string): Promise<void> {
    if (!(await revokeAccessToken(db, userId, id, now()))) throw new AppError('NOT_FOUND', 'Access token not found');
  }

  /** The holder a bearer token acts as, or why it is refused; records its use (at most once a minute). */
  async function authenticate(token: string): Promise<{ ok: true; holder: TokenHolder } | { ok: false; refusal: TokenRefusal }> {
    // A text that cannot be a token costs no database read.
    if (!TOKEN_SHAPE.test(token)) return { ok: false, refusal: 'unknown' };
    const found = await findAccessTokenByHash(db, hashToken(token));
    if (!found) return { ok: false, refusal: 'unknown' };
    const { token: row, user } = found;
    if (row.revokedAt) return { ok: false, refusal: 'revoked' };
    const at = now();
    if (row.expiresAt <= at) return { ok: false, refusal: 'expired' };
    const since = new Date(at.getTime() - LAST_USED_EVERY_MS);
    if (!row.lastUsedAt || row.lastUsedAt < since) await touchAccessToken(db, row.id, at, since);
    return { ok: true, holder: { token: { id: row.id, name: row.name, scope: row.scope }, user: toSessionUser(user) } };
  }

  return { list, create, revoke, authenticate };
}

export type AccessTokensService = ReturnType<typeof createAccessTokensService>;
