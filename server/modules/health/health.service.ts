import type { Database } from '../../db/client.ts';

const PING_TIMEOUT_MS = 2_000;

/** One more thing a process needs before it is ready (docs/decisions/0045): resolves when it
 * stands, rejects with the cause when not. The workers' job queue is one. */
export type ReadinessCheck = { name: string; check: () => Promise<void> };

export type Readiness = {
  ready: boolean;
  /** Each check by name, the database first. */
  checks: Record<string, 'ok' | 'failed'>;
  /** Why each failed check failed: for the log, never for the answer. */
  failures: Array<{ name: string; err: unknown }>;
};

/**
 * Whether the process can serve. Liveness is answering at all; readiness is the database
 * answering a ping, and every check the process added (its workers' job queue), each within the
 * timeout. Migrations need no check: a process listens only once they are applied.
 */
export function createHealthService({ database, checks = [] }: { database: Pick<Database, 'ping'>; checks?: ReadinessCheck[] }) {
  /** Resolves when the database answered a ping within the timeout; rejects with the cause. */
  async function checkDatabase(): Promise<void> {
    await withTimeout(database.ping(), PING_TIMEOUT_MS);
  }

  async function readiness(): Promise<Readiness> {
    const all: ReadinessCheck[] = [{ name: 'database', check: checkDatabase }, ...checks];
    const results = await Promise.allSettled(all.map((c) => withTimeout(c.check(), PING_TIMEOUT_MS)));
    const failures = results.flatMap((r, i) => (r.status === 'rejected' ? [{ name: all[i]!.name, err: r.reason as unknown }] : []));
    return {
      ready: failures.length === 0,
      checks: Object.fromEntries(all.map((c, i) => [c.name, results[i]!.status === 'fulfilled' ? 'ok' : 'failed'])),
      failures,
    };
  }

  return { checkDatabase, readiness };
}

export type HealthService = ReturnType<typeof createHealthService>;

/** Where liveness and readiness are asked, on the web app and on a worker's health port alike. */
export const HEALTH_PATHS = { live: '/api/health/live', ready: '/api/health/ready' } as const;

/** The answers of the health endpoints, shared by the web app's routes and a worker's health port. */
export const LIVE_ANSWER = { status: 'ok' } as const;

export function readinessAnswer(readiness: Readiness): { statusCode: 200 | 503; body: Record<string, unknown> } {
  if (readiness.ready) return { statusCode: 200, body: { status: 'ready', checks: readiness.checks } };
  const failed = readiness.failures.map((f) => f.name).join(', ');
  return { statusCode: 503, body: { status: 'unavailable', error: 'Service Unavailable', message: `Not ready: ${failed} failed`, checks: readiness.checks } };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
