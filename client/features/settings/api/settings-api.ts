/** GET/PUT /api/settings; its answer is kept under this key (the page and the time zone read it). */
export const SETTINGS_QUERY_KEY = ['/api/settings'] as const;
/** GET /api/settings/access-tokens: the user's access tokens for the MCP server (never their secrets). */
export const ACCESS_TOKENS_QUERY_KEY = ['/api/settings/access-tokens'] as const;
