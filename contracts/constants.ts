// Business constants from SPEC section 9 and DESIGN; one place, used by client and server.
export const REQUEST_TIMEOUT_MS = 30_000;
export const STATUS_CHANGE_TIMEOUT_MS = 10_000;
export const AGENT_LIST_STALE_MS = 30_000;
export const HEADER_SCROLL_OFFSET_PX = 64;
export const TOAST_DURATION_MS = 5_000;
export const TOAST_VISIBLE_MAX = 1;
export const INSIGHTS_MAX_ARTICLES = 3;
export const DEFAULT_READ_TIME = '5 min read';
export const SIGN_IN_POPUP = { width: 500, height: 600 } as const;
/** An ID token whose auth_time or iat is older than this is refused. */
export const ID_TOKEN_MAX_AGE_SECONDS = 5 * 60;
/** Session limits (DESIGN section 4). */
export const SESSION_IDLE_MS = 7 * 24 * 60 * 60 * 1000;
export const SESSION_ABSOLUTE_MS = 30 * 24 * 60 * 60 * 1000;
