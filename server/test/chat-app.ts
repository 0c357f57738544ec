import { startFakeAiProviders, type FakeAiProviders } from '../../tests/fakes/ai-providers.ts';
import { createTestApp, type TestApp } from './test-app.ts';

export type ChatApp = { fake: FakeAiProviders; t: TestApp; admin: string; guest: string; close(): Promise<void> };

/**
 * The chat suites' starting point: the fake AI providers, a test app pointed at them
 * (admin@example.com its admin, `env` on top), and that admin and a guest signed in.
 */
export async function startChatApp(env: Record<string, string> = {}): Promise<ChatApp> {
  const fake = await startFakeAiProviders();
  const t = await createTestApp({ env: { ...fake.env, ADMIN_EMAILS: 'admin@example.com', ...env } });
  return {
    fake,
    t,
    admin: await t.signIn('admin@example.com', 'Ada Admin'),
    guest: await t.signIn('guest@example.com', 'Gus Guest'),
    async close() {
      await t.close();
      await fake.close();
    },
  };
}
