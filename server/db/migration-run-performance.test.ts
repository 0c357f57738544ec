import { type PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate } from '../../contracts/agents.ts';
import { databaseBefore, type PreviousRelease } from '../test/previous-release.ts';

/** The migration that moves an agent's performance to its runs (0036 when written). */
const RUN_PERFORMANCE = /_run_performance$/;

/**
 * Issue 35, decision 0104: a database of the previous release (each agent's last run and
 * performance in agent_schedules, copied there at every record) takes it: the agent's latest
 * successful run carries the performance the agent showed, so the agents list (which now reads
 * both from the runs) shows what it showed before; agent_schedules loses the two columns.
 */
describe('the run performance migration on a database of the previous release', () => {
  let client: PGlite;
  let previous: PreviousRelease;

  beforeAll(async () => {
    previous = await databaseBefore(RUN_PERFORMANCE);
    client = previous.client;
  });
  afterAll(async () => previous?.close());

  it('puts each agent’s performance on its latest successful run and drops the copies from agent_schedules', async () => {
    expect(previous.lastTag).not.toMatch(RUN_PERFORMANCE);
    const config = JSON.stringify(defaultAgentConfig(findTemplate('crypto-market-monitor')!));
    const { rows: users } = await client.query<{ id: string }>(`insert into users (provider, subject, email, role) values ('local', 'old@example.com', 'old@example.com', 'admin') returning id`);
    const agent = async (name: string, lastRunAt: string | null, performance: string | null) => {
      const { rows } = await client.query<{ id: string }>(`insert into agents (owner_id, template_id, name, status, config) values ($1, 'crypto-market-monitor', $2, 'running', $3) returning id`, [
        users[0]!.id,
        name,
        config,
      ]);
      await client.query(`update agent_schedules set last_run_at = $2, performance = $3 where agent_id = $1`, [rows[0]!.id, lastRunAt, performance]);
      return rows[0]!.id;
    };
    const run = async (agentId: string, status: string, endTime: string) =>
      (await client.query<{ id: number }>(`insert into agent_runs (agent_id, status, end_time) values ($1, $2, $3) returning id`, [agentId, status, endTime])).rows[0]!.id;

    // An agent whose latest run failed after two successes: its performance is the later success's.
    const watched = await agent('Watched', '2026-11-02T10:03:00Z', '+1.2%');
    const older = await run(watched, 'success', '2026-11-02T10:01:00Z');
    const latestSuccess = await run(watched, 'success', '2026-11-02T10:02:00Z');
    const failed = await run(watched, 'failure', '2026-11-02T10:03:00Z');
    // One that never had anything to compare with, and one that never ran.
    const flat = await agent('Flat', '2026-11-02T10:01:00Z', null);
    const flatRun = await run(flat, 'success', '2026-11-02T10:01:00Z');
    await agent('New', null, null);

    await previous.upgrade();

    const runs = await client.query<{ id: number; performance: string | null }>(`select id, performance from agent_runs order by id`);
    expect(runs.rows).toEqual([
      { id: older, performance: null },
      { id: latestSuccess, performance: '+1.2%' },
      { id: failed, performance: null },
      { id: flatRun, performance: null },
    ]);
    const columns = await client.query<{ column_name: string }>(`select column_name from information_schema.columns where table_name = 'agent_schedules' order by column_name`);
    expect(columns.rows.map((c) => c.column_name)).toEqual(['agent_id', 'next_run_at']);

    // What the agents list reads now: the latest finished run's end and the latest success's performance.
    const shown = await client.query<{ name: string; last_run_at: Date | null; performance: string | null }>(`
      select a.name,
        (select r.end_time from agent_runs r where r.agent_id = a.id and r.status in ('success', 'failure') order by r.id desc limit 1) as last_run_at,
        (select r.performance from agent_runs r where r.agent_id = a.id and r.status = 'success' order by r.id desc limit 1) as performance
      from agents a order by a.name`);
    expect(shown.rows).toEqual([
      { name: 'Flat', last_run_at: new Date('2026-11-02T10:01:00Z'), performance: null },
      { name: 'New', last_run_at: null, performance: null },
      { name: 'Watched', last_run_at: new Date('2026-11-02T10:03:00Z'), performance: '+1.2%' },
    ]);
  });
});
