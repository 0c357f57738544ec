// Business constants from SPEC section 9 and DESIGN; one place, used by client and server.
export const REQUEST_TIMEOUT_MS = 30_000;
export const STATUS_CHANGE_TIMEOUT_MS = 10_000;
export const AGENT_LIST_STALE_MS = 30_000;
export const HEADER_SCROLL_OFFSET_PX = 64;
export const TOAST_DURATION_MS = 5_000;
export const TOAST_VISIBLE_MAX = 1;
export const INSIGHTS_MAX_ARTICLES = 3;
/** The role that may own agents (SPEC section 6: the agents console is the admin's), and so the
 * one that gets their alerts: the agents routes require it, and the bell and the alert settings
 * are shown only with it. Here, not in agents.ts, because the header (on the landing page too)
 * needs it without zod. */
export const AGENT_OWNER_ROLE = 'admin';
export const canOwnAgents = (role: string | null | undefined): boolean => role === AGENT_OWNER_ROLE;
export const DEFAULT_READ_TIME = '5 min read';
export const SIGN_IN_POPUP = { width: 500, height: 600 } as const;
/** What a popup sign-in's result page posts (Google's or the operator's provider's; the type's
 * value is kept from when Google was the only one), and the BroadcastChannel it also posts on
 * (contracts/popup-sign-in.ts has the message; these two are apart so that the landing page's
 * first load carries no more of it than its listener needs). */
export const SIGN_IN_RESULT_TYPE = 'auth:google';
export const SIGN_IN_RESULT_CHANNEL = 'auth';
/** A sign-in attempt's id, made by the tab that opens the popup and echoed by the result page. */
export const SIGN_IN_ATTEMPT_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;
/** An ID token whose auth_time or iat is older than this is refused. */
export const ID_TOKEN_MAX_AGE_SECONDS = 5 * 60;
/** Session limits (DESIGN section 4). */
export const SESSION_IDLE_MS = 7 * 24 * 60 * 60 * 1000;
export const SESSION_ABSOLUTE_MS = 30 * 24 * 60 * 60 * 1000;
