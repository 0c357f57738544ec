import pg from 'pg';
import { stopChild } from '../tests/e2e/support/app-server.ts';
import { everyMinuteOnBinance } from './agents-scale.ts';
import { cpuMs, cpuPlacement, ownPostgres, pinProcess, sleep } from './lib.ts';
import { postgresChildren, postgresCpuByKind, postgresCpuMs, postmasterOf, sourcesAt, startWorker, walBytes, type Worker } from './runtime-lib.ts';
import type { PostgresCpuKinds } from './runtime-lib.ts';
import type { Benchmark, BenchResult } from './types.ts';

/**
 * Issue 35: the database's work per agent run, today's design against the one before it, in one
 * bench run; and the capacity model those costs give.
 *
 * The reference is the runtime as it was before issue 35 (decision 0052's batches), run from that
 * commit's sources (`git archive`) on a PostgreSQL cluster of its own, in the same shape as ours:
 * RUNS fresh agents due at one slot, one worker process, from before the dispatcher queues them to
 * the last run recorded, then a VACUUM (the dead rows a design leaves are part of its cost), less
 * what the idle cluster spends for as long. Each side starts after a CHECKPOINT, so both pay the
 * same full-page images. The sides are measured in turn, REPEATS times each; the medians count.
 */
const REFERENCE_COMMIT = 'c4a21d6f6b4d81c8bd02c83c34d561081b074e5c';
const RUNS = 10_000;
const QUICK_RUNS = 2_000;
/** The idle cluster's CPU is sampled this long before each measurement (subtracted from it). */
const IDLE_SAMPLE_MS = 5_000;
/** Measurements of each side (one with --quick); the median counts. */
const REPEATS = 3;
const DB_CPU_TARGET = 0.25;
const WAL_TARGET = 0.5;
/** Issue 35: the largest schedule a setup holds is the one whose start lag p99 stays under this. */
const LAG_P99_S = 5;
/** The model is checked against a measurement with PostgreSQL on one CPU and one worker on another. */
const MODEL_TOLERANCE = 0.2;
const WORKER_COUNTS = [1, 2, 4, 8, 16];
/** The runtime's default (DISPATCH_LOOKAHEAD_MS): a slot's runs are queued this long before it. */
const DISPATCH_LOOKAHEAD_MS = 5_000;
const POSTGRES_CORES = [2, 8, 32];

type Cost = {
  runs: number;
  /** Per run, over the whole measurement: dispatch, execution and the VACUUM after. */
  postgresCpuMs: number;
  workerCpuMs: number;
  walBytes: number;
  /** Per run, from the slot to the last run recorded (the dispatcher queued them before the slot). */
  execution: { postgresCpuMs: number; workerCpuMs: number };
  /** PostgreSQL's CPU and WAL per run in each phase: dispatch (before the slot), execution, VACUUM. */
  phases: Record<'dispatch' | 'execution' | 'vacuum', { postgresCpuMs: number; walBytes: number }>;
  /** Runs per second from the first run taken to the last recorded. */
  rate: number;
  /** PostgreSQL's CPU per run over the whole measurement by kind of process (the idle cluster's included). */
  byKind: PostgresCpuKinds;
  /** The idle cluster's CPU (nothing due: the job queue's polls), per second and as taken out of the figures above per run. */
  idle: { postgresCpuMsPerSecond: number; perRun: number };
};

/**
 * One side's cost: a fresh database, one worker process from `root`, `runs` agents due at one
 * slot, hourly (nothing else falls due while it is measured).
 */
async function measure(root: string | undefined, runs: number, log: (line: string) => void, pin?: { postgres: string; worker: string }): Promise<Cost> {
  // A cluster of its own for each side: the cluster's CPU and WAL are the measurement.
  const database = await ownPostgres();
  try {
    return await measureOn(database, root, runs, log, pin);
  } finally {
    database.stop();
  }
}

async function measureOn(database: { url: string }, root: string | undefined, runs: number, log: (line: string) => void, pin?: { postgres: string; worker: string }): Promise<Cost> {
  const env = { DATABASE_URL: database.url, MARKET_DATA: 'simulated', LOG_LEVEL: 'warn' };
  const client = new pg.Client({ connectionString: database.url });
  let worker: Worker | null = null;
  await client.connect();
  const postmaster = await postmasterOf(client);
  if (postmaster === null) throw new Error('the PostgreSQL data directory is not readable here: its CPU cannot be measured');
  try {
    // The postmaster and every process it has; backends it starts later inherit its CPU list.
    if (pin) for (const pid of [postmaster, ...postgresChildren(postmaster)]) pinProcess(pid, pin.postgres);
    // The worker migrates the database as it starts.
    worker = await startWorker(env, { ...(root ? { root } : {}), ...(pin ? { cpuList: pin.worker } : {}) });
    const owner = (
      await client.query<{ id: string }>(`insert into users (provider, subject, email, name, role) values ('local', 'bench', 'bench@example.com', 'Bench', 'admin') returning id`)
    ).rows[0]!.id;
    const config = { ...everyMinuteOnBinance(), schedule: { ...everyMinuteOnBinance().schedule, frequency: 'hourly' as const } };
    // Far enough ahead that inserting and the checkpoint end before the dispatcher (5 s ahead,
    // DISPATCH_LOOKAHEAD_MS) queues them.
    const slot = Math.ceil((Date.now() + 20_000 + IDLE_SAMPLE_MS) / 1000) * 1000;
    // Our schema keeps the slot in agent_schedules (decision 0103; its row comes with the agent's
    // insert); the reference's, in agents.next_run_at.
    const narrow = (await client.query<{ narrow: boolean }>(`select to_regclass('agent_schedules') is not null as narrow`)).rows[0]!.narrow;
    await client.query(
      `insert into agents (owner_id, template_id, name, status, config${narrow ? '' : ', next_run_at'})
       select $1, 'crypto-market-monitor', 'cost ' || g, 'running', $2::jsonb${narrow ? '' : ', $4::timestamptz'} from generate_series(1, $3) g`,
      [owner, JSON.stringify(config), runs, ...(narrow ? [] : [new Date(slot).toISOString()])],
    );
    if (narrow) await client.query(`update agent_schedules set next_run_at = $1`, [new Date(slot).toISOString()]);
    await client.query('vacuum analyze');
    await client.query('checkpoint');
    const statements = await statementsAvailable(client);
    const reading = async () => ({ at: Date.now(), postgres: postgresCpuMs(postmaster), kinds: postgresCpuByKind(postmaster), worker: cpuMs(worker!.pid), wal: await walBytes(client) });
    // From just before the dispatcher can claim them. What the cluster spends with nothing due
    // (the job queue's polls, the dispatcher's ticks: a few ms a second, whatever the runs) is
    // measured first, for IDLE_SAMPLE_MS, and taken out of each phase for its length: it is not
    // the runs' cost, and the two sides' windows differ in length.
    if (slot - Date.now() < DISPATCH_LOOKAHEAD_MS + 1_000 + IDLE_SAMPLE_MS) throw new Error('inserting the agents took so long that the dispatcher may have started before the measurement');
    await sleep(slot - DISPATCH_LOOKAHEAD_MS - 700 - IDLE_SAMPLE_MS - Date.now());
    const idleFrom = await reading();
    await sleep(IDLE_SAMPLE_MS);
    if (statements) await client.query('select pg_stat_statements_reset()');
    const from = await reading();
    const idlePerMs = Math.max(0, (from.postgres - idleFrom.postgres) / (from.at - idleFrom.at));
    /** PostgreSQL's CPU per run between two readings, less the idle cluster's for that long. */
    const postgresPerRun = (a: typeof from, b: typeof from) => Math.max(0, b.postgres - a.postgres - idlePerMs * (b.at - a.at)) / runs;
    while (Date.now() < slot) await sleep(50);
    const atSlot = await reading();
    // A cheap poll (a count over this database's few thousand runs) once a second: its own cost is in the figure.
    const finished = async () => Number((await client.query<{ n: string }>(`select count(*) as n from agent_runs where status in ('success', 'failure')`)).rows[0]!.n);
    const deadline = slot + 240_000;
    while ((await finished()) < runs) {
      if (Date.now() > deadline) throw new Error(`only ${await finished()} of ${runs} runs finished in time`);
      await sleep(1_000);
    }
    const done = await reading();
    await client.query('vacuum');
    const to = await reading();
    const [span] = (
      await client.query<{ first_start: number; last_end: number; failed: number }>(
        `select extract(epoch from min(start_time))::float8 as first_start, extract(epoch from max(end_time))::float8 as last_end,
                count(*) filter (where status = 'failure')::int as failed
         from agent_runs`,
      )
    ).rows;
    if (span!.failed > 0) log(`    (${span!.failed} runs failed)`);
    if (statements) await logStatements(client, runs, log);
    return {
      runs,
      postgresCpuMs: postgresPerRun(from, to),
      workerCpuMs: (to.worker - from.worker) / runs,
      walBytes: (to.wal - from.wal) / runs,
      execution: { postgresCpuMs: postgresPerRun(atSlot, done), workerCpuMs: (done.worker - atSlot.worker) / runs },
      phases: {
        dispatch: { postgresCpuMs: postgresPerRun(from, atSlot), walBytes: (atSlot.wal - from.wal) / runs },
        execution: { postgresCpuMs: postgresPerRun(atSlot, done), walBytes: (done.wal - atSlot.wal) / runs },
        vacuum: { postgresCpuMs: postgresPerRun(done, to), walBytes: (to.wal - done.wal) / runs },
      },
      idle: { postgresCpuMsPerSecond: idlePerMs * 1000, perRun: (idlePerMs * (to.at - from.at)) / runs },
      rate: runs / Math.max(0.001, span!.last_end - span!.first_start),
      byKind: Object.fromEntries(Object.entries(to.kinds).map(([kind, ms]) => [kind, (ms - from.kinds[kind as keyof PostgresCpuKinds]) / runs])) as PostgresCpuKinds,
    };
  } catch (err) {
    if (worker) log(`worker output:\n${worker.output().slice(-3_000)}`);
    throw err;
  } finally {
    if (worker) await stopChild(worker.child);
    await client.end().catch(() => {});
  }
}

/** Whether the cluster counts statements (BENCH_STATEMENTS=1, bench/lib.ts ownPostgres). */
async function statementsAvailable(client: pg.Client): Promise<boolean> {
  const loaded = (await client.query<{ loaded: string }>(`select current_setting('shared_preload_libraries') as loaded`)).rows[0]!.loaded;
  if (!loaded.includes('pg_stat_statements')) return false;
  await client.query('create extension if not exists pg_stat_statements');
  return true;
}

/** The statements that took the database's time (execution and planning) per 1,000 runs, the largest first. */
async function logStatements(client: pg.Client, runs: number, log: (line: string) => void): Promise<void> {
  const { rows } = await client.query<{ calls: string; exec: number; plan: number; wal: string; query: string }>(
    `select s.calls, s.total_exec_time as exec, s.total_plan_time as plan, s.wal_bytes::text as wal, left(regexp_replace(s.query, '\\s+', ' ', 'g'), 100) as query
     from pg_stat_statements s join pg_database d on d.oid = s.dbid
     where d.datname = current_database() and s.query not like '%pg_stat_statements%'
     order by s.total_exec_time + s.total_plan_time desc limit 12`,
  );
  log(`    statements, per 1,000 runs (execution + planning ms, WAL B per run, calls):`);
  for (const r of rows) {
    const ms = ((r.exec + r.plan) * 1000) / runs;
    log(`      ${ms.toFixed(1).padStart(6)} ms (plan ${((r.plan * 1000) / runs).toFixed(1)}) ${(Number(r.wal) / runs).toFixed(0).padStart(5)} B ${String(r.calls).padStart(6)}x  ${r.query}`);
  }
}

/** The measurement whose PostgreSQL CPU per run is the median of them (the middle one of an odd count). */
const median = (costs: readonly Cost[]): Cost => [...costs].sort((a, b) => a.postgresCpuMs - b.postgresCpuMs)[Math.floor((costs.length - 1) / 2)]!;

function logCost(cost: Cost, log: (line: string) => void): void {
  log(`  PostgreSQL ${perThousand(cost.postgresCpuMs)} CPU per 1,000 runs, ${cost.walBytes.toFixed(0)} B WAL per run; worker ${perThousand(cost.workerCpuMs)} per 1,000; ${cost.rate.toFixed(0)} runs/s`);
  log(`    PostgreSQL per 1,000 runs and WAL per run by phase: ${phasesText(cost)}`);
  log(`    PostgreSQL per 1,000 runs by process: ${kindsText(cost)} (the idle cluster's included: ${cost.idle.postgresCpuMsPerSecond.toFixed(1)} ms a second, ${perThousand(cost.idle.perRun)} per 1,000 runs over the window, taken out of the figures above)`);
}

const perThousand = (ms: number) => `${((ms * 1000) / 1000).toFixed(3)} s`;
const kindsText = (cost: Cost) =>
  Object.entries(cost.byKind)
    .map(([kind, ms]) => `${kind} ${perThousand(ms)}`)
    .join(', ');
const phasesText = (cost: Cost) =>
  Object.entries(cost.phases)
    .map(([phase, p]) => `${phase} ${perThousand(p.postgresCpuMs)} and ${p.walBytes.toFixed(0)} B`)
    .join(', ');

/** Fetch loops per worker process (server/modules/runtime/runtime.ts, RUN_FETCH_LOOPS): the batches one process has in flight. */
const FETCH_LOOPS = 4;

/**
 * Runs per second of a closed system, by exact mean value analysis: `customers` batches circulate,
 * each spending, per run, `demand` ms at every station (queueing for it when another batch holds
 * it). A station of several servers (a PostgreSQL of C cores, N worker processes) is Seidmann's
 * approximation: one server with 1/C of the demand and a pure delay with the rest.
 */
function closedNetworkRate(stations: ReadonlyArray<{ demand: number; servers: number }>, customers: number): number {
  const parts = stations.flatMap(({ demand, servers }) => [
    { demand: demand / servers, queues: true },
    { demand: (demand * (servers - 1)) / servers, queues: false },
  ]);
  let queued = parts.map(() => 0);
  let rate = 0;
  for (let k = 1; k <= customers; k++) {
    const residence = parts.map((part, i) => (part.queues ? part.demand * (1 + queued[i]!) : part.demand));
    rate = k / residence.reduce((sum, r) => sum + r, 0);
    queued = residence.map((r) => rate * r);
  }
  return rate * 1000;
}

/**
 * What `workers` worker processes on a PostgreSQL of `cores` cores carry, from the measured costs
 * per run. A batch of runs alternates between its worker (JavaScript, one thread per process: the
 * worker's CPU per run) and the database (PostgreSQL's CPU per run, on any of its cores), and each
 * process has FETCH_LOOPS batches in flight: a closed network, solved by mean value analysis
 * (closedNetworkRate). Neither CPU is busy all the time when few batches are in flight (a batch
 * waits for its statements while its worker has nothing else to do); with many, the busier of the
 * two is the bound (min of workers / worker CPU and cores / PostgreSQL CPU). `execution`: runs per
 * second once a slot has come (its runs were queued before it), which bounds the start lag;
 * `sustained`: with the dispatch and the VACUUM too, which every minute's runs also cost.
 */
export function model(cost: Pick<Cost, 'postgresCpuMs' | 'workerCpuMs' | 'execution'>, workers: number, cores: number): { execution: number; sustained: number; agentsPerMinute: number } {
  const rate = (workerMs: number, postgresMs: number) =>
    closedNetworkRate(
      [
        { demand: workerMs, servers: workers },
        { demand: postgresMs, servers: cores },
      ],
      workers * FETCH_LOOPS,
    );
  const execution = rate(cost.execution.workerCpuMs, cost.execution.postgresCpuMs);
  const sustained = rate(cost.workerCpuMs, cost.postgresCpuMs);
  // A minute's runs all fall due at its slot and start one after another at the execution rate:
  // 99% of them must have started within LAG_P99_S; and the minute must pay for all of it.
  return { execution, sustained, agentsPerMinute: Math.min((execution * LAG_P99_S) / 0.99, sustained * 60) };
}

const rounded = (n: number) => (n >= 100_000 ? `${Math.round(n / 1000).toLocaleString('en-US')}k` : Math.round(n).toLocaleString('en-US'));

export default {
  name: 'runtime-cost',
  description: `PostgreSQL CPU and WAL per 1,000 agent runs, today's runtime against commit ${REFERENCE_COMMIT.slice(0, 7)} (before issue 35), and the capacity model`,
  async run({ quick, log }) {
    const runs = quick ? QUICK_RUNS : RUNS;
    const results: BenchResult[] = [];
    const reference = sourcesAt(REFERENCE_COMMIT);
    const reps = quick ? 1 : REPEATS;
    // The two sides in turn, `reps` times: each measurement varies by a tenth or more from one to
    // the next (the machine's other work, its caches), and in turn both see the same spells.
    const befores: Cost[] = [];
    const afters: Cost[] = [];
    try {
      for (let rep = 1; rep <= reps; rep++) {
        const of = reps > 1 ? ` (${rep} of ${reps})` : '';
        if ('missing' in reference) {
          if (rep === 1) log(`  the reference is not measured: ${reference.missing}`);
        } else {
          log(`reference (commit ${REFERENCE_COMMIT.slice(0, 7)}): ${runs} runs of one slot, one worker${of}...`);
          befores.push(await measure(reference.root, runs, log));
          logCost(befores.at(-1)!, log);
        }
        log(`ours: ${runs} runs of one slot, one worker${of}...`);
        afters.push(await measure(undefined, runs, log));
        logCost(afters.at(-1)!, log);
      }
    } finally {
      if (!('missing' in reference)) reference.remove();
    }
    const before = befores.length > 0 ? median(befores) : null;
    const after = median(afters);
    if (reps > 1) {
      log(`the median of ${reps} of each side: PostgreSQL ${before ? perThousand(before.postgresCpuMs) : '-'} (reference; ${befores.map((c) => perThousand(c.postgresCpuMs)).join(', ')}) and ${perThousand(after.postgresCpuMs)} (ours; ${afters.map((c) => perThousand(c.postgresCpuMs)).join(', ')}) per 1,000 runs`);
    }
    results.push(
      {
        name: 'runtime-postgres-cpu per 1,000 runs',
        unit: 'ms',
        // ms per run is s per 1,000 runs: printed in ms per 1,000.
        ours: after.postgresCpuMs * 1000,
        reference: before ? before.postgresCpuMs * 1000 : null,
        ratio: before ? after.postgresCpuMs / before.postgresCpuMs : null,
        target: `ratio <= ${DB_CPU_TARGET} (reference: commit ${REFERENCE_COMMIT.slice(0, 7)})`,
        met: before !== null && after.postgresCpuMs / before.postgresCpuMs <= DB_CPU_TARGET,
      },
      {
        name: 'runtime-wal per run',
        unit: 'B',
        ours: after.walBytes,
        reference: before?.walBytes ?? null,
        ratio: before ? after.walBytes / before.walBytes : null,
        target: `ratio <= ${WAL_TARGET} (reference: commit ${REFERENCE_COMMIT.slice(0, 7)})`,
        met: before !== null && after.walBytes / before.walBytes <= WAL_TARGET,
      },
    );

    // --- The capacity model, from our measured costs.
    log(`capacity model (per 1,000 runs once the slot has come: PostgreSQL ${perThousand(after.execution.postgresCpuMs)}, worker ${perThousand(after.execution.workerCpuMs)}; with dispatch and VACUUM: ${perThousand(after.postgresCpuMs)}, ${perThousand(after.workerCpuMs)})`);
    log(`  runs/s once a slot has come, and the agents a minute held with start lag p99 < ${LAG_P99_S} s, for N worker processes on a PostgreSQL of C cores`);
    log(`  ${'N'.padStart(3)}  ${POSTGRES_CORES.map((c) => `C = ${c}`.padEnd(26)).join('')}`);
    for (const n of WORKER_COUNTS) {
      log(`  ${String(n).padStart(3)}  ${POSTGRES_CORES.map((c) => { const m = model(after, n, c); return `${rounded(m.execution)}/s, ${rounded(m.agentsPerMinute)}/min`.padEnd(26); }).join('')}`);
    }
    for (const c of POSTGRES_CORES) {
      const best = WORKER_COUNTS.map((n) => ({ n, ...model(after, n, c) })).reduce((a, b) => (b.agentsPerMinute > a.agentsPerMinute * 1.001 ? b : a));
      results.push({
        name: `runtime-model agents/min held, PostgreSQL ${c} cores, ${best.n} worker process${best.n === 1 ? '' : 'es'}`,
        unit: 'agents/min',
        ours: best.agentsPerMinute,
        reference: null,
        ratio: null,
        target: `printed (the fewest of ${WORKER_COUNTS.join(', ')} worker processes that reach it)`,
        met: true,
      });
    }

    // --- The model against this machine: PostgreSQL on one CPU, one worker on another.
    const placement = cpuPlacement();
    if (!placement) {
      log('  the model is not checked: it needs two CPUs and taskset');
    } else {
      const [postgresCpu, workerCpu] = [placement.servers, placement.loadGenerator.split(',')[0]!];
      log(`checking the model: PostgreSQL pinned to CPU ${postgresCpu}, one worker to CPU ${workerCpu}...`);
      const pinned = await measure(undefined, runs, log, { postgres: postgresCpu, worker: workerCpu });
      // The model is checked on how it turns costs into a rate, from the costs of the case it
      // predicts: pinned apart, the processes no longer share a CPU's caches, and each run costs
      // PostgreSQL and the worker more CPU than unpinned (both are printed).
      const predicted = model(pinned, 1, 1).execution;
      log(
        `  measured ${pinned.rate.toFixed(0)} runs/s, the model says ${predicted.toFixed(0)} from the pinned run's costs (per 1,000 runs once the slot had come: PostgreSQL ${perThousand(pinned.execution.postgresCpuMs)}, worker ${perThousand(pinned.execution.workerCpuMs)}), ${model(after, 1, 1).execution.toFixed(0)} from the unpinned run's`,
      );
      results.push({
        name: 'runtime-model check (1 worker, PostgreSQL on 1 CPU)',
        unit: 'runs/s',
        ours: pinned.rate,
        reference: predicted,
        ratio: pinned.rate / predicted,
        target: `within ${MODEL_TOLERANCE * 100}% of the model (reference column)`,
        met: Math.abs(pinned.rate / predicted - 1) <= MODEL_TOLERANCE,
      });
    }
    return results;
  },
} satisfies Benchmark;
