import { spawn } from 'node:child_process';
import pg from 'pg';
import { defaultAgentConfig, findTemplate, type TAgentConfig } from '../contracts/agents.ts';
import { ADMIN_EMAIL } from '../tests/e2e/support/constants.ts';
import { ROOT_DIR, stopChild, waitForHttp } from '../tests/e2e/support/app-server.ts';
import { benchPostgres, sleep, startAppServer } from './lib.ts';
import type { Benchmark, BenchResult } from './types.ts';

const AGENTS = 10_000;
const MINUTES = 3;
const LAG_P99_TARGET_S = 5;

/** The crypto template on Binance, every minute: one market per run, as many alerts as it finds. */
export function everyMinuteOnBinance(): TAgentConfig {
  const template = findTemplate('crypto-market-monitor')!;
  const { parameters } = defaultAgentConfig(template);
  return {
    schedule: { frequency: 'realtime', daysActive: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'], activeHours: { start: '00:00', end: '23:59' }, timeZone: 'UTC' },
    notifications: { ...template.defaultConfig.notifications, email: false },
    parameters: { ...parameters, exchanges: ['Binance'] },
  };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

/**
 * 10,000 running agents at one-minute frequency on simulated data, on PostgreSQL, with one web
 * process (RUN_WORKERS=false) and one `npm run worker` process. Agents are inserted due at the
 * same minute boundary; after MINUTES minutes we read agent_runs. Two lags are printed: dispatch
 * (slot to the run being queued for workers; runs are queued ahead of their slot with
 * DISPATCH_LOOKAHEAD_MS, so this is ~0) and start (slot to a worker starting the run, which
 * all 10,000 runs of a minute wait for in turn, so it measures run throughput). A run counts as
 * on time when it succeeded within its minute.
 */
const benchmark: Benchmark = {
  name: 'agents-scale',
  description: `${AGENTS} agents every minute on PostgreSQL (1 web + 1 worker): dispatch lag and runs done within their minute`,
  async run({ quick, log }) {
    const agents = quick ? 1_000 : AGENTS;
    const minutes = quick ? 1 : MINUTES;
    const postgres = await benchPostgres();
    const env = { DATABASE_URL: postgres.url, MARKET_DATA: 'simulated', LOG_LEVEL: 'warn', ...(process.env.BENCH_WORKER_CONCURRENCY ? { WORKER_CONCURRENCY: process.env.BENCH_WORKER_CONCURRENCY } : {}) };
    const web = await startAppServer({ env: { ...env, RUN_WORKERS: 'false' } });
    const worker = spawn(process.execPath, ['server/worker.ts'], { cwd: ROOT_DIR, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
    let workerErr = '';
    worker.stderr!.on('data', (d: Buffer) => (workerErr = (workerErr + d.toString()).slice(-5_000)));
    const client = new pg.Client({ connectionString: postgres.url });
    try {
      await waitForHttp(`${web.url}/api/health`, worker, 10_000, () => workerErr);
      await fetch(`${web.url}/api/auth/local/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: web.url },
        body: JSON.stringify({ email: ADMIN_EMAIL, name: 'Bench' }),
      });
      await client.connect();
      const owner = (await client.query<{ id: string }>('select id from users where email = $1', [ADMIN_EMAIL])).rows[0]!.id;

      // Due at the first minute boundary at least 20 s away, so inserting finishes first. The
      // quick run takes one slot 5 s away instead (later slots fall on minute boundaries).
      const firstSlot = quick ? Math.ceil((Date.now() + 5_000) / 1000) * 1000 : Math.ceil((Date.now() + 20_000) / 60_000) * 60_000;
      log(`inserting ${agents} running agents due at ${new Date(firstSlot).toISOString()}...`);
      await client.query(
        `insert into agents (owner_id, template_id, name, status, config, next_run_at)
         select $1, 'crypto-market-monitor', 'scale ' || g, 'running', $2::jsonb, $3
         from generate_series(1, $4) g`,
        [owner, JSON.stringify(everyMinuteOnBinance()), new Date(firstSlot).toISOString(), agents],
      );
      const endSlot = quick ? firstSlot + 1 : firstSlot + minutes * 60_000;
      log(`running ${quick ? 'one slot' : `${minutes} minute(s) of slots`} (at most until ${new Date(endSlot + 60_000).toISOString()})...`);
      // Until every run of the window has ended, or a minute after its last slot.
      const pending = async () =>
        Number(
          (
            await client.query<{ n: string }>(
              `select count(*) as n from agent_runs where scheduled_for >= $1 and scheduled_for < $2 and status in ('success', 'failure')`,
              [new Date(firstSlot).toISOString(), new Date(endSlot).toISOString()],
            )
          ).rows[0]!.n,
        ) < agents * (quick ? 1 : minutes);
      while (Date.now() < endSlot + 60_000 && (Date.now() < endSlot || (await pending()))) await sleep(1_000);

      const { rows } = await client.query<{ lag: number | null; queued_late: number; done_in: number | null; status: string }>(
        `select extract(epoch from start_time - scheduled_for)::float8 as lag,
                greatest(0, extract(epoch from created_at - scheduled_for))::float8 as queued_late,
                extract(epoch from end_time - scheduled_for)::float8 as done_in, status
         from agent_runs where scheduled_for >= $1 and scheduled_for < $2`,
        [new Date(firstSlot).toISOString(), new Date(endSlot).toISOString()],
      );
      const expected = agents * (quick ? 1 : minutes);
      const lags = rows.flatMap((r) => (r.lag === null ? [] : [r.lag])).sort((a, b) => a - b);
      const onTime = rows.filter((r) => r.status === 'success' && r.done_in !== null && r.done_in < 60).length;
      const failed = rows.filter((r) => r.status === 'failure').length;
      const p50 = percentile(lags, 50);
      const p99 = percentile(lags, 99);
      const queuedLate = rows.map((r) => r.queued_late).sort((a, b) => a - b);
      log(`  ${rows.length}/${expected} runs dispatched (queued after their slot: p99 ${percentile(queuedLate, 99).toFixed(2)} s), ${lags.length} started, ${failed} failed`);
      log(`  dispatch lag (slot to a worker starting the run): p50 ${p50.toFixed(2)} s, p99 ${p99.toFixed(2)} s; ${onTime} done within their minute`);

      const queuedP50 = percentile(queuedLate, 50);
      const queuedP99 = percentile(queuedLate, 99);
      const results: BenchResult[] = [
        {
          // Dispatch: the run exists and its job is available to workers (slot to queued).
          name: 'agents-dispatch-lag-p99',
          unit: 's',
          ours: queuedP99,
          reference: queuedP50,
          ratio: null,
          target: `p99 < ${LAG_P99_TARGET_S} s (reference column: p50)`,
          met: rows.length === expected && queuedP99 < LAG_P99_TARGET_S,
          ...(rows.length < expected ? { note: `${expected - rows.length} slots never dispatched` } : {}),
        },
        {
          // The stricter reading: until a worker starts the run, bounded by run throughput.
          name: 'agents-start-lag-p99',
          unit: 's',
          ours: p99,
          reference: p50,
          ratio: null,
          target: `p99 < ${LAG_P99_TARGET_S} s (reference column: p50)`,
          met: lags.length === expected && p99 < LAG_P99_TARGET_S,
          ...(lags.length < expected ? { note: `${expected - lags.length} runs never started` } : {}),
        },
        {
          name: 'agents-runs-within-minute',
          unit: '%',
          ours: (onTime / expected) * 100,
          reference: expected,
          ratio: null,
          target: `100% of ${expected} runs (reference column: expected runs)`,
          met: onTime === expected,
          ...(failed > 0 ? { note: `${failed} failed` } : {}),
        },
      ];
      return results;
    } finally {
      await client.end().catch(() => {});
      await stopChild(worker);
      await web.stop();
    }
  },
};

export default benchmark;
