import { type PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate } from '../../contracts/agents.ts';
import { databaseBefore, type PreviousRelease } from '../test/previous-release.ts';

/** The migration that moves the runtime's state to agent_schedules (0035 when written). */
const AGENT_SCHEDULES = /_agent_schedules$/;

/**
 * Issue 35, decision 0103: a database of the previous release (migrated up to the migration
 * before agent_schedules, its agents holding next_run_at, last_run_at and performance) takes it:
 * every agent gets its schedule row with its values, a paused one without a slot, and the agents
 * row loses the columns.
 */
describe('the agent_schedules migration on a database of the previous release', () => {
  let client: PGlite;
  let previous: PreviousRelease;

  beforeAll(async () => {
    previous = await databaseBefore(AGENT_SCHEDULES);
    client = previous.client;
  });
  afterAll(async () => previous?.close());

  it('copies each agent’s next slot, last run and performance to its schedule row, and drops them from agents', async () => {
    expect(previous.lastTag).not.toMatch(AGENT_SCHEDULES);
    const config = JSON.stringify(defaultAgentConfig(findTemplate('crypto-market-monitor')!));
    const { rows: users } = await client.query<{ id: string }>(`insert into users (provider, subject, email, role) values ('local', 'old@example.com', 'old@example.com', 'admin') returning id`);
    const insert = (name: string, status: string, next: string | null, last: string | null, performance: string | null) =>
      client.query<{ id: string }>(
        `insert into agents (owner_id, template_id, name, status, config, next_run_at, last_run_at, performance) values ($1, 'crypto-market-monitor', $2, $3, $4, $5, $6, $7) returning id`,
        [users[0]!.id, name, status, config, next, last, performance],
      );
    const running = (await insert('Running', 'running', '2026-11-02T10:05:00Z', '2026-11-02T10:04:01Z', '+1.2%')).rows[0]!.id;
    // A paused agent left with a slot (none should be; the scan must not find it if one is).
    const paused = (await insert('Paused', 'paused', '2026-11-02T10:05:00Z', null, null)).rows[0]!.id;

    // Through this migration only: a later one (0036, decision 0104) drops last_run_at and performance again.
    await previous.upgrade(AGENT_SCHEDULES);

    const schedules = await client.query<{ agent_id: string; next_run_at: Date | null; last_run_at: Date | null; performance: string | null }>(
      `select agent_id, next_run_at, last_run_at, performance from agent_schedules order by next_run_at nulls last`,
    );
    expect(schedules.rows).toEqual([
      { agent_id: running, next_run_at: new Date('2026-11-02T10:05:00Z'), last_run_at: new Date('2026-11-02T10:04:01Z'), performance: '+1.2%' },
      { agent_id: paused, next_run_at: null, last_run_at: null, performance: null },
    ]);
    const columns = await client.query<{ column_name: string }>(`select column_name from information_schema.columns where table_name = 'agents' and column_name in ('next_run_at', 'last_run_at', 'performance')`);
    expect(columns.rows).toEqual([]);

    // An agent inserted afterwards by plain SQL has its row at once; deleting it takes the row with it.
    const later = (
      await client.query<{ id: string }>(`insert into agents (owner_id, template_id, name, status, config) values ($1, 'crypto-market-monitor', 'Later', 'paused', $2) returning id`, [users[0]!.id, config])
    ).rows[0]!.id;
    expect((await client.query(`select 1 from agent_schedules where agent_id = $1 and next_run_at is null`, [later])).rows).toHaveLength(1);
    await client.query(`delete from agents where id = $1`, [later]);
    expect((await client.query(`select 1 from agent_schedules where agent_id = $1`, [later])).rows).toHaveLength(0);
  });
});
