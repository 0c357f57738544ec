import type { TPublicConfig } from '../../contracts/auth.ts';

/**
 * The config as the client holds it. The chat policy, the sources and the roles that may share are missing only where no
 * server wrote the config (unit tests, the build-time prerender); their readers fall back to the
 * contracts' defaults, which this module does not import: they would weigh on the landing page.
 */
export type TClientConfig = Omit<TPublicConfig, 'chatPolicy' | 'sources' | 'shareRoles' | 'localSignIn' | 'passkeys'> &
  Partial<Pick<TPublicConfig, 'chatPolicy' | 'sources' | 'shareRoles' | 'localSignIn' | 'passkeys'>>;

const FALLBACK: TClientConfig = { siteName: 'Axiom Automation', contactEmail: 'hello@axiom-automation.com', authProvider: 'local' };

let cached: TClientConfig | undefined;

/** The runtime config the server writes into index.html (no extra request at start). */
export function appConfig(): TClientConfig {
  if (cached) return cached;
  const element = typeof document !== 'undefined' ? document.getElementById('app-config') : null;
  try {
    cached = element?.textContent ? { ...FALLBACK, ...(JSON.parse(element.textContent) as Partial<TPublicConfig>) } : FALLBACK;
  } catch {
    cached = FALLBACK;
  }
  return cached;
}

let prerenderYear: string | undefined;

/**
 * For the build-time prerender of the landing page, which has no document: the config (and the
 * copyright year) become placeholders that the server fills in on every request.
 */
export function primeAppConfig(config: TClientConfig, year: string): void {
  cached = config;
  prerenderYear = year;
}

/** The year in the footer. */
export function copyrightYear(): string {
  return prerenderYear ?? String(new Date().getFullYear());
}
