/**
 * An article's preview links (docs/decisions/0098), without zod: the preview page loads no zod
 * (its compiler needs eval, which the CSP refuses), and the landing page's constants stay small.
 */

/** What a reader with a preview link that no longer works is told (the same for one that never did). */
export const PREVIEW_GONE = 'This preview link has expired or was revoked. Ask for a new one.';

/** The path of an article's preview page (the app's `/preview/:token`). */
export const previewPath = (token: string) => `/preview/${token}`;
