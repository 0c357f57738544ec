import { type AppServer, benchPostgres, rssMb, sleep, startAppServer } from './lib.ts';
import { describeLoad, prepareSignedInReads, runSignedInLoad } from './signed-in-load.ts';
import type { Benchmark, BenchResult } from './types.ts';

const CONNECTIONS = 200;
const SECONDS = 60;
const MEMORY_TARGET_MB = 400;
/** Issue 19: p99 on PGlite (PostgreSQL's is printed). */
const PGLITE_P99_TARGET_MS = 500;

/**
 * 200 connections of signed-in traffic for 60 s (5 s with --quick): each connection cycles
 * through the reads of the dashboard (who am I, the newest articles, notifications), an article
 * page's data, and the agents console's list, on PGlite and on PostgreSQL. Prints throughput,
 * p50 and p99 latency, errors, and the server's resident memory after start and after the load.
 */
const benchmark: Benchmark = {
  name: 'mixed-load',
  description: `signed-in mixed reads, ${CONNECTIONS} connections, ${SECONDS} s, on PGlite and PostgreSQL: throughput, latency, errors, memory`,
  async run({ quick, log }) {
    const seconds = quick ? 3 : SECONDS;
    const results: BenchResult[] = [];

    async function measure(server: AppServer, database: string): Promise<void> {
      const { requests } = await prepareSignedInReads(server.url);
      await sleep(quick ? 1_000 : 10_000); // past start-up's own garbage
      const memoryAfterStart = rssMb(server.pid);
      log(`${database}: ${CONNECTIONS} connections for ${seconds} s over ${requests.length} reads (RSS after start ${memoryAfterStart.toFixed(0)} MB)...`);
      const load = await runSignedInLoad(server.url, requests, { connections: CONNECTIONS, seconds });
      const memoryAfterLoad = rssMb(server.pid);
      log(`  ${describeLoad(load)}; RSS after load ${memoryAfterLoad.toFixed(0)} MB`);
      const clean = load.errors === 0 && load.non2xx === 0;
      results.push(
        {
          name: `mixed-load req/s (${database})`,
          unit: 'req/s',
          ours: load.requestsPerSecond,
          reference: null,
          ratio: null,
          target: 'zero errors',
          met: clean,
          ...(clean ? {} : { note: `${load.errors} errors, ${load.non2xx} non-2xx` }),
        },
        database === 'PGlite'
          ? { name: `mixed-load p99 (${database})`, unit: 'ms', ours: load.p99Ms, reference: load.p50Ms, ratio: null, target: `< ${PGLITE_P99_TARGET_MS} ms (reference column: p50)`, met: load.p99Ms < PGLITE_P99_TARGET_MS }
          : { name: `mixed-load p99 (${database})`, unit: 'ms', ours: load.p99Ms, reference: load.p50Ms, ratio: null, target: 'printed (reference column: p50)', met: true },
        {
          name: `memory after load (${database})`,
          unit: 'MB',
          ours: memoryAfterLoad,
          reference: memoryAfterStart,
          ratio: memoryAfterLoad / memoryAfterStart,
          target: `< ${MEMORY_TARGET_MB} MB (reference column: after start)`,
          met: memoryAfterLoad < MEMORY_TARGET_MB,
        },
      );
    }

    // Agents stay paused and market data simulated: this measures the web, not the runtime.
    const env = { MARKET_DATA: 'simulated', SIGN_IN_RATE_LIMIT: '1000' };
    const pglite = await startAppServer({ env });
    try {
      await measure(pglite, 'PGlite');
    } finally {
      await pglite.stop();
    }
    const postgres = await benchPostgres();
    const server = await startAppServer({ env: { ...env, DATABASE_URL: postgres.url } });
    try {
      await measure(server, 'PostgreSQL');
    } finally {
      await server.stop();
    }
    return results;
  },
};

export default benchmark;
