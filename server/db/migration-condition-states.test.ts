import { type PGlite } from '@electric-sql/pglite';
import { eq, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate } from '../../contracts/agents.ts';
import { planRun } from '../modules/runtime/run-plan.ts';
import { startRuns } from '../modules/runtime/runtime.repo.ts';
import { databaseBefore, type PreviousRelease } from '../test/previous-release.ts';
import type { Db } from './client.ts';
import * as schema from './schema.ts';

/** The migration that adds the conditions' state (0018 when written); the one before it is the previous release's last. */
const CONDITION_STATES = /_condition_states$/;

/**
 * Issue 30: a database made by the previous release (migrated up to the migration before the
 * conditions' state, with its agents, runs and notifications) takes it, and its agents keep working unchanged: their config
 * as it was, no conditions and no trigger state, their runs taken as before.
 */
describe('the conditions’ state migration on a database of the previous release', () => {
  let client: PGlite;
  let db: Db;
  let previous: PreviousRelease;

  beforeAll(async () => {
    previous = await databaseBefore(CONDITION_STATES);
    client = previous.client;
    db = drizzle({ client, schema }) as unknown as Db;
  });
  afterAll(async () => previous?.close());

  it('adds the conditions’ tables and column, and leaves the agents, their runs and notifications as they were', async () => {
    // What the previous release stored, written as it wrote it (no column of 0018 exists yet).
    const before = await client.query<{ exists: boolean }>(`select to_regclass('condition_states') is not null as exists`);
    expect(before.rows[0]!.exists).toBe(false);
    const config = defaultAgentConfig(findTemplate('crypto-market-monitor')!);
    const { rows: users } = await client.query<{ id: string }>(`insert into users (provider, subject, email, role) values ('local', 'old@example.com', 'old@example.com', 'admin') returning id`);
    const userId = users[0]!.id;
    const { rows: agents } = await client.query<{ id: string }>(`insert into agents (owner_id, template_id, name, status, config) values ($1, 'crypto-market-monitor', 'Old monitor', 'running', $2) returning id`, [
      userId,
      JSON.stringify(config),
    ]);
    const agentId = agents[0]!.id;
    await client.query(`insert into alert_states (agent_id, market, threshold_type) values ($1, 'BTC/USDT on binance', 'priceChange')`, [agentId]);
    await client.query(`insert into notifications (user_id, agent_id, agent_name, title, message) values ($1, $2, 'Old monitor', 'Old monitor: Price change alert', 'BTC moved')`, [userId, agentId]);
    const { rows: runs } = await client.query<{ id: number }>(`insert into agent_runs (agent_id, status) values ($1, 'queued') returning id`, [agentId]);

    await previous.upgrade();

    const [agent] = await db.select().from(schema.agents).where(eq(schema.agents.id, agentId));
    expect(agent!.config).toEqual(config);
    // The agent's plan is what it was, with no conditions of its own.
    expect(planRun(agent!.templateId, agent!.config)).toMatchObject({ templateType: 'crypto', conditions: [], thresholds: config.notifications.thresholds });
    const [notification] = await db.select().from(schema.notifications).where(eq(schema.notifications.agentId, agentId));
    expect(notification).toMatchObject({ message: 'BTC moved', alerts: [], conditions: [] });
    expect(await db.select().from(schema.conditionStates)).toEqual([]);
    expect(await db.select().from(schema.conditionControls)).toEqual([]);

    // Its queued run is taken as before: the alerts it fires, and every condition initial.
    const [started] = await startRuns(db, [Number(runs[0]!.id)], new Date(), new Date(Date.now() + 60_000));
    expect(started!.activeAlerts).toEqual(new Set(['BTC/USDT on binance|priceChange']));
    expect(started!.conditionState('any', 'BTC/USDT on binance')).toEqual({ disarmed: false, snoozedUntil: null, lastNotifiedAt: null, lastNotifiedCandle: null });
    // The states go with their agent.
    await db.insert(schema.conditionStates).values({ agentId, conditionId: '00000000-0000-4000-8000-000000000001', market: 'BTC/USDT on binance', lastNotifiedAt: new Date(), lastNotifiedCandle: 1 });
    await db.execute(sql`delete from agents where id = ${agentId}`);
    expect(await db.select().from(schema.conditionStates)).toEqual([]);
  });
});
