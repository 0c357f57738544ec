import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ZGoogleStartQuery } from '../../../contracts/auth.ts';
import {
  GOOGLE_RESULT_CHANNEL,
  GOOGLE_RESULT_TYPE,
  SIGN_IN_ATTEMPT_PATTERN,
  SIGN_IN_ATTEMPT_TTL_MS,
  type TGoogleSignInResult,
} from '../../../contracts/google-sign-in.ts';
import type { Config } from '../../config.ts';
import { createGoogleOidc, authorizationErrorMessage, type SignInTransaction } from '../../integrations/google-oidc.ts';
import { isDatabaseUnavailable } from '../../lib/db-errors.ts';
import { AppError } from '../../lib/errors.ts';
import type { SessionUser } from '../../lib/http/types.ts';
import { parseInput } from '../../lib/validate.ts';
import type { Clock } from './auth.service.ts';
import { signInRateLimit, startSession, type AuthRouteDeps } from './auth.routes.ts';

export type GoogleAuthRouteDeps = Omit<AuthRouteDeps, 'localSignIn'> & {
  google: Extract<Config['auth'], { provider: 'google' }>;
  publicUrl: string;
  now: Clock;
};

const BASE_PATH = '/api/auth/google';
/** Long enough to pick an account and consent, short enough that a stolen cookie soon dies; the
 * tab that started the attempt listens for its result as long. */
const TRANSACTION_TTL_MS = SIGN_IN_ATTEMPT_TTL_MS;

/**
 * Google sign-in in a popup: `start` sends the browser to Google with a fresh transaction kept in
 * a signed cookie, with the id of the tab's attempt; Google sends it back to `callback`, which
 * signs the user in and answers a small page that reports the result, addressed to that
 * attempt, to the opener and on a BroadcastChannel, and closes itself.
 */
export async function googleAuthRoutes(app: FastifyInstance, deps: GoogleAuthRouteDeps): Promise<void> {
  const redirectUri = `${deps.publicUrl}${BASE_PATH}/callback`;
  const google = createGoogleOidc({ ...deps.google, redirectUri, now: deps.now, logger: app.log });
  const transactionCookie = transactionCookieStore(deps);
  const resultPage = resultPageRenderer(new URL(deps.publicUrl).origin);
  const rateLimit = signInRateLimit(deps.signInRateLimit);

  app.get(`${BASE_PATH}/start`, { config: { access: 'public', rateLimit } }, async (request, reply) => {
    const { attempt } = parseInput(ZGoogleStartQuery, request.query);
    try {
      const { url, transaction } = await google.startSignIn(request.log);
      transactionCookie.set(reply, { ...transaction, attempt });
      return reply.header('cache-control', 'no-store').redirect(url, 302);
    } catch (err) {
      return resultPage(reply, { ...failure(err, request), attempt });
    }
  });

  /** Checks the callback against this browser's transaction, then signs in whom Google vouches for. */
  async function signInFromCallback(
    request: FastifyRequest,
    reply: FastifyReply,
    transaction: StoredTransaction | null,
    params: URLSearchParams,
  ): Promise<SessionUser> {
    const error = params.get('error');
    if (error !== null) throw new AppError('UNAUTHORIZED', authorizationErrorMessage(error));
    if (!transaction || transaction.state !== params.get('state')) {
      throw new AppError('BAD_REQUEST', 'This sign-in has expired or was started in another browser. Please try again.');
    }
    const callbackUrl = new URL(redirectUri);
    callbackUrl.search = params.toString();
    const identity = await google.completeSignIn(callbackUrl, transaction, request.log);
    const user = await deps.auth.signIn(
      { provider: 'google', subject: identity.subject },
      { email: identity.email, name: identity.name, profilePicture: identity.picture ?? '' },
    );
    await startSession(deps, request, reply, user);
    return user;
  }

  app.get(
    `${BASE_PATH}/callback`,
    // The query holds a one-time code and the state: keep them out of the request log.
    { config: { access: 'public', rateLimit }, logSerializers: { req: requestWithoutQuery } },
    async (request, reply) => {
      const transaction = transactionCookie.take(request, reply);
      const params = new URL(request.url, deps.publicUrl).searchParams;
      // The attempt is known only when this browser's transaction is the one Google answers;
      // otherwise the result goes to no tab and the page stays to show it.
      const attempt = transaction && transaction.state === params.get('state') ? transaction.attempt : undefined;
      try {
        const user = await signInFromCallback(request, reply, transaction, params);
        return resultPage(reply, { status: 200, ok: true, text: `Signed in as ${user.name || user.email}.`, attempt });
      } catch (err) {
        return resultPage(reply, { ...failure(err, request), attempt });
      }
    },
  );
}

/** Fastify's default request serializer minus the query string. */
function requestWithoutQuery(req: FastifyRequest) {
  return { method: req.method, url: req.url.split('?')[0], host: req.host, remoteAddress: req.ip };
}

type PageOutcome = { status: number; ok: boolean; text: string; attempt?: string | undefined };

function failure(err: unknown, request: FastifyRequest): PageOutcome {
  if (err instanceof AppError) {
    request.log.info({ code: err.code, message: err.message }, 'Google sign-in failed');
    return { status: err.status, ok: false, text: err.message };
  }
  if (isDatabaseUnavailable(err)) {
    request.log.error({ err }, 'database unavailable during Google sign-in');
    return { status: 503, ok: false, text: 'Sign-in is unavailable right now. Please try again shortly.' };
  }
  request.log.error({ err }, 'Google sign-in failed unexpectedly');
  return { status: 500, ok: false, text: 'Something went wrong while signing you in. Please try again.' };
}

// --- The transaction cookie -------------------------------------------------------------------

const ZStoredTransaction = z.object({
  state: z.string().min(1).max(256),
  nonce: z.string().min(1).max(256),
  codeVerifier: z.string().min(43).max(128),
  attempt: z.string().regex(SIGN_IN_ATTEMPT_PATTERN).optional(),
  expiresAt: z.number(),
});

/** The OpenID Connect transaction and the attempt of the tab that started it. */
type StoredTransaction = SignInTransaction & { attempt?: string | undefined };

/**
 * Signed (so it cannot be forged), HttpOnly, SameSite=Lax (Google's redirect back is a top-level
 * GET, which Lax lets through) and scoped to our Google routes only. One use: the callback
 * always clears it.
 */
function transactionCookieStore(deps: Pick<GoogleAuthRouteDeps, 'secureCookies' | 'now'>) {
  const name = deps.secureCookies ? '__Secure-google_signin' : 'google_signin';
  const options = { httpOnly: true, sameSite: 'lax', secure: deps.secureCookies, path: BASE_PATH } as const;

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

// --- The result page --------------------------------------------------------------------------

/**
 * Reports to the opener with an exact target origin and on a BroadcastChannel too: Google's
 * Cross-Origin-Opener-Policy severs `window.opener` on the way (the tab then hears only the
 * channel). Then it closes; if the window cannot close (it is a full tab, not our popup) it goes
 * on to the app instead. A failure addressed to no attempt has no tab to show it, so the page
 * stays and shows it itself. Constant text, so one CSP hash allows it; the data it needs is a
 * JSON block, which is never executed.
 */
const RESULT_SCRIPT = `(function () {
  var data = JSON.parse(document.getElementById('result').textContent);
  try { if (window.opener) window.opener.postMessage(data.result, data.origin); } catch (e) {}
  try { var channel = new BroadcastChannel(${JSON.stringify(GOOGLE_RESULT_CHANNEL)}); channel.postMessage(data.result); channel.close(); } catch (e) {}
  if (!data.result.ok && !data.result.attempt) return;
  window.close();
  if (!window.closed) window.location.replace(data.result.ok ? '/dashboard' : '/');
})();`;

const RESULT_SCRIPT_HASH = createHash('sha256').update(RESULT_SCRIPT).digest('base64');

/** Nothing but this one script may run, nothing may load, the page may not be framed. */
export const RESULT_PAGE_CSP = [
  "default-src 'none'",
  `script-src 'sha256-${RESULT_SCRIPT_HASH}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function resultPageRenderer(origin: string) {
  return (reply: FastifyReply, outcome: PageOutcome): FastifyReply => {
    const result: TGoogleSignInResult = {
      type: GOOGLE_RESULT_TYPE,
      ok: outcome.ok,
      ...(outcome.ok ? {} : { message: outcome.text }),
      ...(outcome.attempt ? { attempt: outcome.attempt } : {}),
    };
    const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${outcome.ok ? 'Signed in' : 'Sign-in failed'}</title>
<script type="application/json" id="result">${jsonForScript({ result, origin })}</script>
<script>${RESULT_SCRIPT}</script>
</head>
<body>
<p>${escapeHtml(outcome.text)}</p>
<p>You can close this window${outcome.ok ? '' : ', or go <a href="/">back to the site</a>'}.</p>
</body>
</html>
`;
    return reply
      .status(outcome.status)
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-security-policy', RESULT_PAGE_CSP)
      // The callback URL carries the one-time code; do not hand it on as a referrer.
      .header('referrer-policy', 'no-referrer')
      // Our pages' same-origin-allow-popups would cut the popup from its opener here, after
      // the provider's page (a change of policy between documents swaps the browsing context
      // group). This page holds only the result, which it posts to our exact origin.
      .header('cross-origin-opener-policy', 'unsafe-none')
      .send(html);
  };
}

/** JSON that cannot end the <script> element it sits in or open a comment or CDATA there. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
