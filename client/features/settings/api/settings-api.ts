/** GET/PUT /api/settings; its answer is kept under this key (the page and the time zone read it). */
export const SETTINGS_QUERY_KEY = ['/api/settings'] as const;
