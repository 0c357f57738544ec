import type { TPublicConfig } from '../../contracts/auth.ts';

const FALLBACK: TPublicConfig = { siteName: 'Axiom Automation', contactEmail: 'hello@axiom-automation.com', authProvider: 'local' };

let cached: TPublicConfig | undefined;

/** The runtime config the server writes into index.html (no extra request at start). */
export function appConfig(): TPublicConfig {
  if (cached) return cached;
  const element = typeof document !== 'undefined' ? document.getElementById('app-config') : null;
  try {
    cached = element?.textContent ? { ...FALLBACK, ...(JSON.parse(element.textContent) as Partial<TPublicConfig>) } : FALLBACK;
  } catch {
    cached = FALLBACK;
  }
  return cached;
}
