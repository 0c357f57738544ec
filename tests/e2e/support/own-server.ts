import type { Page } from '@playwright/test';
import { startFakeAiProviders, type FakeAiOptions, type FakeAiProviders } from '../../fakes/ai-providers.ts';
import { expect, test } from '../fixtures.ts';
import { startAppServer, type AppServer } from './app-server.ts';
import { ADMIN_EMAIL, ADMIN_NAME } from './constants.ts';

export type OwnServer = {
  /** The fake AI providers the server calls, to read what they were sent. */
  readonly fake: FakeAiProviders;
  readonly server: AppServer;
  /** Signs the page in as the admin, through the API (as the sign-in page would). */
  signIn(page: Page): Promise<void>;
};

/**
 * A server of the describe block's own, on fake AI providers in this process (so a journey reads
 * what a provider was sent), started before its tests and stopped after. A fresh server applies
 * every migration to a new database: on a busy machine that outlasts a test's 30 s
 * (startAppServer itself waits up to 60 s for its health check), so the hook gets 90 s.
 */
export function ownServerWithFakeProviders(fakeOptions: FakeAiOptions = {}, env: Record<string, string> = {}): OwnServer {
  let fake: FakeAiProviders | undefined;
  let server: AppServer | undefined;
  test.beforeAll(async () => {
    test.setTimeout(90_000);
    fake = await startFakeAiProviders(fakeOptions);
    server = await startAppServer({ env: { ...fake.env, MARKET_DATA: 'simulated', ...env } });
  });
  test.afterAll(async () => {
    await server?.stop();
    await fake?.close();
  });
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not started: use it inside a test`);
    return value;
  };
  return {
    get fake() {
      return started(fake, 'the fake AI providers');
    },
    get server() {
      return started(server, 'the app server');
    },
    async signIn(page: Page) {
      const url = started(server, 'the app server').url;
      const res = await page.request.post(`${url}/api/auth/local/login`, { data: { email: ADMIN_EMAIL, name: ADMIN_NAME }, headers: { origin: url } });
      expect(res.status()).toBe(200);
    },
  };
}
