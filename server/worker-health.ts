import { ConfigError, workerHealthUrl } from './config.ts';
import { HEALTH_PATHS } from './modules/health/health.service.ts';

const TIMEOUT_MS = 5_000;

/**
 * `npm run worker:health [-- --live]`: asks this host's worker (`npm run worker` with
 * WORKER_HEALTH_PORT) whether it is ready (or, with --live, alive) and exits 0 when it is, 1 when
 * not or when it does not answer. For a container's HEALTHCHECK, a monitoring timer, or a person:
 * it prints the worker's answer. Reads the same environment as the worker (HOST,
 * WORKER_HEALTH_PORT) and nothing else.
 */
async function main(): Promise<number> {
  let base: string;
  try {
    base = workerHealthUrl();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    return 2;
  }
  const url = `${base}${process.argv.includes('--live') ? HEALTH_PATHS.live : HEALTH_PATHS.ready}`;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    const body = await res.text();
    console.log(`${url}: ${res.status} ${body}`);
    return res.status === 200 ? 0 : 1;
  } catch (err) {
    console.log(`${url}: no answer (${err instanceof Error ? `${err.message}${err.cause instanceof Error ? `: ${err.cause.message}` : ''}` : String(err)})`);
    return 1;
  }
}

process.exitCode = await main();
