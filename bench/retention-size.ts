// Run history that stays small (issue 35 item 2, docs/decisions/0101): fills agent_runs with a
// simulated month of runs (a sample of it: `rows` runs spread over `simulatedDays`, each success
// with a real ~8.5 KB result, compressed with lz4 as migration 0013 stores it), measures the
// table, TOAST and index sizes, runs the retention job as the hourly maintenance does, and
// measures again (after the delete, after a plain VACUUM, and after one more simulated day
// inserted into the freed space), extrapolating per-run bytes to 10,000 agents a minute.
//
// `npm run bench -- run-retention`; or as a script:
//   node bench/retention-size.ts <postgres url of an EMPTY database> [rows] [agents] [keep last]
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { openDatabase, type Database } from '../server/db/client.ts';
import { RUN_BATCH_SIZE } from '../server/modules/runtime/dispatcher.ts';
import { createRunRetention } from '../server/modules/runtime/run-retention.ts';
import { benchPostgres } from './lib.ts';
import type { Benchmark, BenchResult } from './types.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const RUNS_PER_DAY_AT_10K_A_MINUTE = 10_000 * 24 * 60;
/** The runtime's batch: the runs that share one stored market result. */
const RUN_BATCH = RUN_BATCH_SIZE;

export type RetentionSizes = { heap: number; toast: number; indexes: number; /** agent_run_markets, all of it. */ markets: number; total: number; rows: number; perIndex: Record<string, number> };
export type RetentionMeasurement = {
  rows: number;
  agents: number;
  simulatedDays: number;
  retentionDays: number;
  keepLast: number;
  resultBytes: number;
  before: RetentionSizes;
  afterDelete: RetentionSizes;
  afterVacuum: RetentionSizes;
  /** After one more simulated day of runs inserted once the vacuum freed the space. */
  afterOneMoreDay: RetentionSizes;
  deleted: number;
  batches: number;
  deleteSeconds: number;
  /** WAL the deletion wrote, bytes per removed run. */
  walBytesPerDeleted: number;
  /** pg_total_relation_size per run, before the delete: what a run costs on disk. */
  bytesPerRun: number;
};

/** A success's result as the runtime records one (crypto monitor, one market, simulated candles). */
function sampleResult(): string {
  const file = new URL('./retention-sample-result.json', import.meta.url);
  try {
    return readFileSync(file, 'utf8');
  } catch {
    throw new Error(`${file.pathname} is missing: a run's result JSON, e.g. one the agents-scale bench recorded`);
  }
}

async function sizes(db: Database['db']): Promise<RetentionSizes> {
  const [row] = (
    (await db.execute(sql`
      select pg_relation_size('agent_runs') as heap,
        coalesce(pg_total_relation_size(c.reltoastrelid), 0) as toast,
        pg_indexes_size('agent_runs') as indexes,
        pg_total_relation_size('agent_runs') + pg_total_relation_size('agent_run_markets') as total,
        pg_total_relation_size('agent_run_markets') as markets,
        (select count(*) from agent_runs) as rows,
        (select jsonb_object_agg(indexrelid::regclass::text, pg_relation_size(indexrelid)) from pg_index where indrelid = 'agent_runs'::regclass) as per_index
      from pg_class c where c.oid = 'agent_runs'::regclass`)) as unknown as { rows: Array<Record<string, string | Record<string, number>>> }
  ).rows;
  return {
    heap: Number(row!.heap),
    toast: Number(row!.toast),
    indexes: Number(row!.indexes),
    markets: Number(row!.markets),
    total: Number(row!.total),
    rows: Number(row!.rows),
    perIndex: row!.per_index as Record<string, number>,
  };
}

/**
 * `count` runs of `agents` agents, evenly over [from, from + days), 2% failures (no result), ids in
 * time order. Recorded as the runtime records them (decision 0102): each run's own part of the
 * result in its row, and the market result of every RUN_BATCH consecutive runs stored once in
 * agent_run_markets, which the runs name in market_ids.
 */
async function fillRuns(db: Database['db'], { from, days, count, agents, result }: { from: Date; days: number; count: number; agents: number; result: string }): Promise<void> {
  const { markets, ...own } = JSON.parse(result) as { markets: unknown[] };
  const chunk = 20_000;
  const stepMs = (days * DAY_MS) / count;
  for (let start = 0; start < count; start += chunk) {
    const end = Math.min(count, start + chunk);
    const lastBefore = Number(((await db.execute(sql`select coalesce(max(id), 0) as id from agent_runs`)) as unknown as { rows: Array<{ id: string }> }).rows[0]!.id);
    await db.execute(sql`
      insert into agent_runs (agent_id, status, scheduled_for, start_time, end_time, result, prices, error, created_at)
      select a.id, case when g.i % 50 = 0 then 'failure' else 'success' end, t.at, t.at, t.at + interval '300 ms',
        case when g.i % 50 = 0 then null else ${JSON.stringify(own)}::jsonb end,
        case when g.i % 50 = 0 then null else '{"binance:BTC/USDT": 64425.41}'::jsonb end,
        case when g.i % 50 = 0 then 'The exchange did not answer.' end, t.at
      from generate_series(${start}::int, ${end - 1}::int) as g(i)
      cross join lateral (select ${from.toISOString()}::timestamptz + (g.i * ${stepMs}::float8) * interval '1 millisecond' as at) t
      join (select id, row_number() over (order by id) - 1 as n from agents) a on a.n = g.i % ${agents}
      order by g.i`);
    // A batch's market, once for its runs (as finishRuns stores it).
    await db.execute(sql`
      with batches as (
        select min(id) as first_run_id, max(id) as last_run_id from agent_runs
        where id > ${lastBefore} and status = 'success' group by (id - ${lastBefore} - 1) / ${RUN_BATCH}
      ), stored as (
        insert into agent_run_markets (market, first_run_id, last_run_id)
        select ${JSON.stringify(markets[0] ?? null)}::jsonb, first_run_id, last_run_id from batches
        returning id, first_run_id, last_run_id
      )
      update agent_runs r set market_ids = array[stored.id] from stored
      where r.id between stored.first_run_id and stored.last_run_id and r.status = 'success'`);
  }
  // One run in a hundred alerted: its notification names it (what the deletion sets to null).
  await db.execute(sql`
    insert into notifications (user_id, agent_id, run_id, agent_name, title, message)
    select a.owner_id, r.agent_id, r.id, a.name, 'BTC/USDT moved', 'BTC/USDT rose 5.2% on Binance.'
    from agent_runs r join agents a on a.id = r.agent_id
    where r.id % 100 = 0 and r.created_at >= ${from.toISOString()}::timestamptz and not exists (select 1 from notifications n where n.run_id = r.id)`);
}

async function walLsn(db: Database['db']): Promise<bigint> {
  const { rows } = (await db.execute(sql`select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text as lsn`)) as unknown as { rows: Array<{ lsn: string }> };
  return BigInt(rows[0]!.lsn.split('.')[0]!);
}

/**
 * The measurement: on an EMPTY PostgreSQL database at `url` (migrated here), `rows` runs of
 * `agents` agents over `simulatedDays`, then a retention pass keeping `retentionDays` and each
 * agent's `keepLast`. The database is left filled; drop it after.
 */
export async function measureRunRetention({
  url,
  rows = 100_000,
  agents = 50,
  simulatedDays = 30,
  retentionDays = 7,
  keepLast = 100,
  log = () => {},
}: {
  url: string;
  rows?: number;
  agents?: number;
  simulatedDays?: number;
  retentionDays?: number;
  keepLast?: number;
  log?: (line: string) => void;
}): Promise<RetentionMeasurement> {
  const silent = pino({ level: 'silent' });
  const database = await openDatabase({ kind: 'postgres', url }, silent);
  const { db } = database;
  try {
    const result = sampleResult();
    const end = new Date();
    const from = new Date(end.getTime() - simulatedDays * DAY_MS);
    await db.execute(sql`insert into users (provider, subject, email, name) values ('local', 'retention-bench', 'retention-bench@example.com', 'Bench')`);
    await db.execute(sql`
      insert into agents (owner_id, template_id, name, status, config)
      select u.id, 'crypto-market-monitor', 'Bench ' || g.i, 'paused', '{}'::jsonb from users u, generate_series(1, ${agents}::int) g(i)`);
    let at = performance.now();
    await fillRuns(db, { from, days: simulatedDays, count: rows, agents, result });
    log(`filled ${rows} runs of ${agents} agents over ${simulatedDays} days in ${((performance.now() - at) / 1000).toFixed(1)} s`);
    await db.execute(sql`vacuum analyze agent_runs`);
    await db.execute(sql`vacuum analyze notifications`);
    const before = await sizes(db);

    const lines: Array<Record<string, unknown>> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const retention = createRunRetention({ db, logger, now: () => end, days: retentionDays, keepLast });
    const walBefore = await walLsn(db);
    at = performance.now();
    const deleted = await retention.purge();
    const deleteSeconds = (performance.now() - at) / 1000;
    const walBytes = Number((await walLsn(db)) - walBefore);
    const batches = Number(lines.find((l) => typeof l.batches === 'number')?.batches ?? 0);
    const afterDelete = await sizes(db);
    await db.execute(sql`vacuum analyze agent_runs`);
    const afterVacuum = await sizes(db);
    // One more simulated day, as the runtime would add it: into the space the vacuum freed.
    await fillRuns(db, { from: end, days: 1, count: Math.round(rows / simulatedDays), agents, result });
    await db.execute(sql`vacuum analyze agent_runs`);
    const afterOneMoreDay = await sizes(db);
    return {
      rows,
      agents,
      simulatedDays,
      retentionDays,
      keepLast,
      resultBytes: Buffer.byteLength(result),
      before,
      afterDelete,
      afterVacuum,
      afterOneMoreDay,
      deleted,
      batches,
      deleteSeconds,
      walBytesPerDeleted: deleted === 0 ? 0 : walBytes / deleted,
      bytesPerRun: before.total / before.rows,
    };
  } finally {
    await database.close();
  }
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const human = (bytes: number) => (bytes >= 1024 ** 4 ? `${(bytes / 1024 ** 4).toFixed(2)} TB` : `${(bytes / 1024 ** 3).toFixed(1)} GB`);

/** The measurement in lines for the bench's log: sizes at each step and the extrapolation. */
export function describeRunRetention(m: RetentionMeasurement): string[] {
  const row = (label: string, s: RetentionSizes) =>
    `${label.padEnd(28)} rows ${String(s.rows).padStart(8)}  heap ${mb(s.heap).padStart(9)}  toast ${mb(s.toast).padStart(9)}  indexes ${mb(s.indexes).padStart(9)}  markets ${mb(s.markets).padStart(9)}  total ${mb(s.total).padStart(9)}`;
  const perRun = (s: RetentionSizes) => ({ heap: s.heap / s.rows, toast: s.toast / s.rows, indexes: s.indexes / s.rows, markets: s.markets / s.rows });
  const p = perRun(m.before);
  const month = RUNS_PER_DAY_AT_10K_A_MINUTE * 30;
  return [
    `sample: ${m.rows} runs of ${m.agents} agents over ${m.simulatedDays} days (2% failures without a result; results ${m.resultBytes} B of JSON), retention ${m.retentionDays} days, keep last ${m.keepLast}`,
    row('before retention', m.before),
    row('after the retention pass', m.afterDelete),
    row('after VACUUM', m.afterVacuum),
    row('after one more day', m.afterOneMoreDay),
    `per index before: ${Object.entries(m.before.perIndex).map(([name, bytes]) => `${name} ${mb(bytes)}`).join(', ')}`,
    `retention pass: ${m.deleted} runs removed in ${m.batches} batches, ${m.deleteSeconds.toFixed(1)} s (${Math.round(m.deleted / m.deleteSeconds)} runs/s), WAL ${Math.round(m.walBytesPerDeleted)} B per removed run`,
    `per run: ${Math.round(m.bytesPerRun)} B on disk (heap ${Math.round(p.heap)}, TOAST ${Math.round(p.toast)}, indexes ${Math.round(p.indexes)}, its share of the stored markets ${Math.round(p.markets)})`,
    `at 10,000 agents a minute (${RUNS_PER_DAY_AT_10K_A_MINUTE.toLocaleString('en')} runs a day): a month ${human(month * m.bytesPerRun)}, ` +
      `kept 7 days ${human(7 * RUNS_PER_DAY_AT_10K_A_MINUTE * m.bytesPerRun)}, 30 days ${human(30 * RUNS_PER_DAY_AT_10K_A_MINUTE * m.bytesPerRun)}, 90 days (the default) ${human(90 * RUNS_PER_DAY_AT_10K_A_MINUTE * m.bytesPerRun)}; ` +
      `the retention job removes ${RUNS_PER_DAY_AT_10K_A_MINUTE.toLocaleString('en')} runs a day, ${(RUNS_PER_DAY_AT_10K_A_MINUTE / 86_400 / (m.deleted / m.deleteSeconds) * 100).toFixed(1)}% of one connection's time at the rate measured`,
  ];
}

/** Bench rows: the table's size stays that of its period (the day added after the pass fits in what the pass freed). */
export function runRetentionResults(m: RetentionMeasurement): BenchResult[] {
  const grew = m.afterOneMoreDay.total / m.afterVacuum.total;
  return [
    { name: 'run-retention bytes per run', unit: 'B', ours: Math.round(m.bytesPerRun), reference: null, ratio: null, target: 'measured', met: true },
    { name: 'run-retention removed per second', unit: 'runs/s', ours: Math.round(m.deleted / m.deleteSeconds), reference: null, ratio: null, target: '> 167 (10,000 agents a minute)', met: m.deleted / m.deleteSeconds > 10_000 / 60 },
    { name: 'run-retention size after a day more / after the pass', unit: 'ratio', ours: Number(grew.toFixed(3)), reference: null, ratio: null, target: '<= 1.05 (freed space reused)', met: grew <= 1.05 },
  ];
}

export default {
  name: 'run-retention',
  description: 'A simulated month of agent runs (a sample, extrapolated to 10,000 agents a minute): table, TOAST and index sizes before and after the retention job, its pace and WAL',
  async run({ quick, log }) {
    const m = await measureRunRetention({ url: (await benchPostgres()).url, rows: quick ? 20_000 : 200_000, log });
    for (const line of describeRunRetention(m)) log(`  ${line}`);
    return runRetentionResults(m);
  },
} satisfies Benchmark;

if (import.meta.url === `file://${process.argv[1]}`) {
  const [url, rows, agents, keepLast] = process.argv.slice(2);
  if (!url) throw new Error('usage: node bench/retention-size.ts <postgres url of an empty database> [rows] [agents] [keep last]');
  const m = await measureRunRetention({ url, rows: rows ? Number(rows) : undefined, agents: agents ? Number(agents) : undefined, keepLast: keepLast ? Number(keepLast) : undefined, log: console.log });
  for (const line of describeRunRetention(m)) console.log(line);
  console.log(JSON.stringify(runRetentionResults(m)));
}
