/** GET/PUT /api/settings; its answer is kept under this key (the page and the time zone read it). */
export const SETTINGS_QUERY_KEY = ['/api/settings'] as const;
/** GET /api/settings/access-tokens: the user's access tokens for the MCP server (never their secrets). */
export const ACCESS_TOKENS_QUERY_KEY = ['/api/settings/access-tokens'] as const;
/** GET /api/passkeys: the passkey account's passkeys (docs/decisions/0092); `available` false for other accounts. */
export const PASSKEYS_QUERY_KEY = ['/api/passkeys'] as const;
