import pg from 'pg';
import { computeNextRunAt } from '../server/modules/agents/schedule.ts';
import { everyMinuteOnBinance } from './agents-scale.ts';
import { benchPostgres, sleep, startAppServer } from './lib.ts';
import { describeLoad, prepareSignedInReads, runSignedInLoad, signIn } from './signed-in-load.ts';
import type { Benchmark, BenchResult } from './types.ts';

const CONNECTIONS = 200;
const SECONDS = 60;
const AGENTS = 300;
/** How long after the load the runs of its last slots may take to finish before they count as lost. */
const SETTLE_MS = 60_000;
const AGENTS_OWNER = 'agents-owner@example.com';

type Slot = { agentId: string; at: number };

/**
 * mixed-load's signed-in traffic (200 connections, 60 s; 10 s with --quick) on PostgreSQL while
 * 300 agents (100 with --quick) run every minute on simulated market data, executed by the
 * workers inside the same web process. Each agent's first slot falls somewhere in the first
 * seconds of the load, so runs go on throughout it, and again at the minute boundary inside
 * the window. Afterwards every due slot of the window must have exactly one finished run.
 * Reported: throughput, p99, errors (must be 0) and lost runs (must be 0).
 */
const benchmark: Benchmark = {
  name: 'load-with-agents',
  description: `signed-in reads at ${CONNECTIONS} connections for ${SECONDS} s on PostgreSQL while ${AGENTS} agents run every minute in the same process: throughput, p99, errors, lost runs`,
  async run({ quick, log }) {
    const seconds = quick ? 7 : SECONDS;
    const agentCount = quick ? 100 : AGENTS;
    const postgres = await benchPostgres();
    const client = new pg.Client({ connectionString: postgres.url });
    try {
      const server = await startAppServer({ env: { DATABASE_URL: postgres.url, MARKET_DATA: 'simulated', SIGN_IN_RATE_LIMIT: '1000' } });
      try {
        const { requests } = await prepareSignedInReads(server.url);
        // The agents belong to another user, so the admin's agents list reads what mixed-load's does.
        await signIn(server.url, AGENTS_OWNER);
        await client.connect();
        const owner = (await client.query<{ id: string }>('select id from users where email = $1', [AGENTS_OWNER])).rows[0]!.id;

        let loadStart = 0;
        const spread = Math.max(1, seconds - 5);
        /** Agent `load g`'s first slot, as inserted below. */
        const firstSlot = (g: number) => new Date(loadStart + 2_000 + (g % spread) * 1_000);
        log(`${agentCount} agents every minute, ${CONNECTIONS} connections for ${seconds} s over ${requests.length} reads...`);
        const load = await runSignedInLoad(server.url, requests, {
          connections: CONNECTIONS,
          seconds,
          // Inserted running, first slots spread over the load (its last few seconds left out).
          beforeLoad: async () => {
            loadStart = Date.now();
            await client.query(
              `insert into agents (owner_id, template_id, name, status, config)
               select $1, 'crypto-market-monitor', 'load ' || g, 'running', $2::jsonb
               from generate_series(1, $3) g`,
              [owner, JSON.stringify(everyMinuteOnBinance()), agentCount],
            );
            // The slot is in agent_schedules (decision 0103), whose row comes with the agent's insert.
            await client.query(
              `update agent_schedules s set next_run_at = $2::timestamptz + ((split_part(a.name, ' ', 2)::int % $3) || ' seconds')::interval
               from agents a where a.id = s.agent_id and a.owner_id = $1 and a.name like 'load %'`,
              [owner, new Date(loadStart + 2_000).toISOString(), spread],
            );
          },
        });
        const loadEnd = Date.now();
        log(`  ${describeLoad(load)}`);

        const agents = (await client.query<{ id: string; g: number }>(`select id, split_part(name, ' ', 2)::int as g from agents where owner_id = $1`, [owner])).rows;
        const schedule = everyMinuteOnBinance().schedule;
        const due: Slot[] = agents.flatMap((a) => slotsWithin(a.id, firstSlot(a.g), loadEnd, schedule));
        const runsOfWindow = async () =>
          (
            await client.query<{ agent_id: string; at: Date; status: string }>(
              `select r.agent_id, r.scheduled_for as at, r.status from agent_runs r join agents a on a.id = r.agent_id
               where a.owner_id = $1 and r.scheduled_for <= $2`,
              [owner, new Date(loadEnd).toISOString()],
            )
          ).rows;
        // The runs of the window's last slots may still be going: give them time to finish.
        const settleUntil = Date.now() + (quick ? 10_000 : SETTLE_MS);
        let runs = await runsOfWindow();
        while (Date.now() < settleUntil && runs.filter(finished).length < due.length) {
          await sleep(1_000);
          runs = await runsOfWindow();
        }

        const key = (agentId: string, at: number) => `${agentId}|${at}`;
        const finishedRuns = new Map<string, number>();
        for (const run of runs.filter(finished)) {
          const slot = key(run.agent_id, run.at.getTime());
          finishedRuns.set(slot, (finishedRuns.get(slot) ?? 0) + 1);
        }
        const lost = due.filter((slot) => finishedRuns.get(key(slot.agentId, slot.at)) !== 1).length;
        const failed = runs.filter((r) => r.status === 'failure').length;
        log(`  ${due.length} runs due in the window: ${due.length - lost} finished once, ${lost} lost; ${failed} failed; ${runs.length} recorded`);

        const errors = load.errors + load.non2xx;
        const results: BenchResult[] = [
          { name: 'load+agents req/s (PostgreSQL)', unit: 'req/s', ours: load.requestsPerSecond, reference: null, ratio: null, target: 'printed', met: true },
          { name: 'load+agents p99 (PostgreSQL)', unit: 'ms', ours: load.p99Ms, reference: load.p50Ms, ratio: null, target: 'printed (reference column: p50)', met: true },
          {
            name: 'load+agents errors (PostgreSQL)',
            unit: 'req',
            ours: errors,
            reference: load.total,
            ratio: null,
            target: '0 (reference column: requests)',
            met: errors === 0,
            ...(errors > 0 ? { note: `${load.errors} errors or timeouts, ${load.non2xx} non-2xx` } : {}),
          },
          {
            name: 'load+agents lost runs (PostgreSQL)',
            unit: 'runs',
            ours: lost,
            reference: due.length,
            ratio: null,
            target: '0 (reference column: runs due in the window)',
            // A run at a slot that was not due (or a second one) would be as wrong as a lost one.
            met: lost === 0 && due.length > 0 && runs.length === due.length,
            ...(failed > 0 || runs.length !== due.length ? { note: `${failed} failed, ${runs.length} recorded for ${due.length} due` } : {}),
          },
        ];
        return results;
      } finally {
        await server.stop();
      }
    } finally {
      await client.end().catch(() => {});
    }
  },
};

const finished = (run: { status: string }) => run.status === 'success' || run.status === 'failure';

/** An agent's slots from its first up to `end`: the first slot, then each next one of its schedule. */
function slotsWithin(agentId: string, first: Date, end: number, schedule: ReturnType<typeof everyMinuteOnBinance>['schedule']): Slot[] {
  const slots: Slot[] = [];
  for (let at: Date | null = first; at && at.getTime() <= end; at = computeNextRunAt(schedule, at)) slots.push({ agentId, at: at.getTime() });
  return slots;
}

export default benchmark;
