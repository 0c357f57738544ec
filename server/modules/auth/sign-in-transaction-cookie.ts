import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { SIGN_IN_ATTEMPT_PATTERN, SIGN_IN_ATTEMPT_TTL_MS } from '../../../contracts/popup-sign-in.ts';
import type { SignInTransaction } from '../../integrations/oidc.ts';
import type { Clock } from './auth.service.ts';

/** Long enough to pick an account and consent, short enough that a stolen cookie soon dies; the
 * tab that started the attempt listens for its result as long. */
const TRANSACTION_TTL_MS = SIGN_IN_ATTEMPT_TTL_MS;

const ZStoredTransaction = z.object({
  state: z.string().min(1).max(256),
  nonce: z.string().min(1).max(256),
  codeVerifier: z.string().min(43).max(128),
  attempt: z.string().regex(SIGN_IN_ATTEMPT_PATTERN).optional(),
  expiresAt: z.number(),
});

/** The OpenID Connect transaction and the attempt of the tab that started it. */
export type StoredTransaction = SignInTransaction & { attempt?: string | undefined };

/**
 * Signed (so it cannot be forged), HttpOnly, SameSite=Lax (the provider's redirect back is a
 * top-level GET, which Lax lets through) and scoped to that provider's routes only. One use: the
 * callback always clears it. `name`: google_signin for Google (as before), oidc_signin.
 */
export function transactionCookieStore(deps: { secureCookies: boolean; now: Clock; path: string; name: string }) {
  const name = deps.secureCookies ? `__Secure-${deps.name}` : deps.name;
  const options = { httpOnly: true, sameSite: 'lax', secure: deps.secureCookies, path: deps.path } as const;

  function set(reply: FastifyReply, transaction: StoredTransaction): void {
    const stored = { ...transaction, expiresAt: deps.now().getTime() + TRANSACTION_TTL_MS };
    const value = Buffer.from(JSON.stringify(stored)).toString('base64url');
    reply.setCookie(name, value, { ...options, signed: true, maxAge: TRANSACTION_TTL_MS / 1000 });
  }

  /** The transaction this browser started, or null when missing, tampered with or expired. */
  function take(request: FastifyRequest, reply: FastifyReply): StoredTransaction | null {
    const raw = request.cookies[name];
    if (raw !== undefined) reply.clearCookie(name, options);
    if (!raw || raw.length > 2048) return null;
    const unsigned = request.unsignCookie(raw);
    if (!unsigned.valid || unsigned.value === null) return null;
    try {
      const parsed = ZStoredTransaction.safeParse(JSON.parse(Buffer.from(unsigned.value, 'base64url').toString('utf8')));
      if (!parsed.success || parsed.data.expiresAt <= deps.now().getTime()) return null;
      const { state, nonce, codeVerifier, attempt } = parsed.data;
      return { state, nonce, codeVerifier, attempt };
    } catch {
      return null;
    }
  }

  return { set, take };
}
