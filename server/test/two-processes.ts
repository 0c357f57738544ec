import { listenLocally } from './event-stream-client.ts';
import { createTestApp, type TestApp } from './test-app.ts';

export type TwoProcesses = {
  a: TestApp;
  /** Another app on a's database, as another web process would be, with its own pool and LISTEN connection. */
  b: TestApp;
  /** Where b listens: a browser reaches another process over HTTP, after a's answer has arrived. */
  bUrl: string;
  /** admin@example.com, signed in on a. */
  admin: string;
  close(): Promise<void>;
};

/** Two web processes on one PostgreSQL database (TEST_DATABASE=postgres only). */
export async function startTwoProcesses(): Promise<TwoProcesses> {
  const a = await createTestApp();
  const b = await createTestApp({ sameDatabaseAs: a });
  return {
    a,
    b,
    bUrl: await listenLocally(b.app),
    admin: await a.signIn('admin@example.com', 'Admin'),
    async close() {
      await b.close();
      await a.close();
    },
  };
}
