import { z } from 'zod';
import { PARAMETER_SOURCES } from './agent-parameters.ts';
import { CHAT_ACCESS, CHAT_PROVIDERS } from './chat.ts';
import { SIGN_IN_ATTEMPT_PATTERN } from './constants.ts';
import { ROLES, ZUser } from './users.ts';

export const AUTH_PROVIDERS = ['local', 'google', 'oidc'] as const;
export type TAuthProvider = (typeof AUTH_PROVIDERS)[number];

/** GET /api/auth/me: the session's user, or null when signed out (never a 401, so a visitor's
 * first load does not log an error). */
export const ZMe = z.object({ user: ZUser.nullable() });
export type TMe = z.infer<typeof ZMe>;

export const ZEmail = z
  .string()
  .trim()
  .max(254, 'Email must be at most 254 characters')
  .pipe(z.email('Enter a valid email address'))
  .transform((email) => email.toLowerCase());

/** POST /api/auth/local/login (local sign-in for development and small installs). */
export const ZLocalLogin = z.object({
  email: ZEmail,
  name: z.string().trim().min(1, 'Name is required').max(100, 'Name must be at most 100 characters'),
});
export type TLocalLogin = z.input<typeof ZLocalLogin>;

/** POST /api/auth/user keeps SPEC's body, but nothing in it can change identity or role:
 * the fields are accepted (so SPEC's client works) and ignored. */
export const ZSyncUser = z
  .object({
    email: z.string().max(254),
    name: z.string().max(200),
    googleId: z.string().max(256),
    profilePicture: z.string().max(2048),
  })
  .partial()
  .strict()
  .optional();

/** GET /api/auth/google/start: the attempt the result page will answer (the app's popup always
 * names one; a sign-in started without one is a full-page sign-in). */
export const ZPopupSignInStartQuery = z.object({
  attempt: z.string().regex(SIGN_IN_ATTEMPT_PATTERN, 'The sign-in attempt must be 16 to 64 letters, digits, - or _').optional(),
});

/** Public configuration the server hands the client in the HTML it serves. */
export const ZPublicConfig = z.object({
  siteName: z.string(),
  contactEmail: z.string(),
  authProvider: z.enum(AUTH_PROVIDERS),
  /** The sign-in button's words with an OpenID Connect provider of the operator's (OIDC_BUTTON_LABEL). */
  signInLabel: z.string().optional(),
  /** The development sign-in (email and name) is offered (docs/decisions/0092). */
  localSignIn: z.boolean(),
  /** Passkey accounts: the sign-in page offers "Sign in with a passkey", admins may invite (docs/decisions/0092). */
  passkeys: z.boolean(),
  /** Who may use each assistant (CHAT_POLICY over the defaults), e.g. for the Users page's roles. */
  chatPolicy: z.record(z.enum(CHAT_PROVIDERS), z.enum(CHAT_ACCESS)),
  /** Which outside sources the server has (the agents wizard starts a switch needing a missing one off). */
  sources: z.record(z.enum(PARAMETER_SOURCES), z.boolean()),
  /** The roles that may share a chat as a link (CHAT_SHARE_ROLES; none by default): the chat offers Share to them only (docs/decisions/0088). */
  shareRoles: z.array(z.enum(ROLES)),
});
export type TPublicConfig = z.infer<typeof ZPublicConfig>;
