import type { Database } from '../../db/client.ts';

const PING_TIMEOUT_MS = 2_000;

/** Whether the process can serve: today that is whether the database answers in time. */
export function createHealthService({ database }: { database: Pick<Database, 'ping'> }) {
  /** Resolves when the database answered a ping within the timeout; rejects with the cause. */
  async function checkDatabase(): Promise<void> {
    await withTimeout(database.ping(), PING_TIMEOUT_MS);
  }

  return { checkDatabase };
}

export type HealthService = ReturnType<typeof createHealthService>;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
