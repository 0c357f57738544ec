import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TAgent } from '../../../contracts/agents.ts';
import type { TNotificationList } from '../../../contracts/notifications.ts';
import { conditionControls, conditionStates } from '../../db/schema.ts';
import { customMonitorConfig, sampleCondition } from '../../test/agent-fixtures.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import type { ApplyAlertsInput } from './notifications.service.ts';

const OWNER = 'owner@example.com';

/** Issue 30, docs/decisions/0073: a met condition is notified once per candle, whichever run of its agent decides it first. */
describe('conditions in the notifications', () => {
  let t: TestApp;
  let cookie: string;
  let userId: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { ADMIN_EMAILS: OWNER, MARKET_DATA: 'simulated' } });
    cookie = await t.signIn(OWNER, 'Owner');
    userId = (await t.request({ url: '/api/auth/me', cookie })).json<{ user: { id: string } }>().user.id;
  });
  afterAll(async () => t?.close());

  async function monitor() {
    const condition = { ...sampleCondition(), trigger: { mode: 'once' as const } };
    const agent = (await t.request({ method: 'POST', url: '/api/agents', cookie, payload: { templateId: 'custom-monitor', name: 'Watch', config: customMonitorConfig([condition]) } })).json<TAgent>();
    return { agent, condition };
  }

  const input = (agent: TAgent, conditionId: string, candle: number, disarm = false): ApplyAlertsInput => ({
    userId,
    agentId: agent.id,
    agentName: agent.name,
    runId: null,
    emailEnabled: false,
    inAppEnabled: true,
    conditions: [],
    conditionsMet: [{ conditionId, market: 'AAPL', title: 'Oversold above the trend', text: 'AAPL: RSI (14) crossed below 30 (29.4, before 31.2)' }],
    conditionStates: [{ agentId: agent.id, conditionId, market: 'AAPL', lastNotifiedAt: t.now(), lastNotifiedCandle: candle, disarm }],
  });

  it('notifies a met condition with its ids and plain words, stores its state, and a second run for the same candle is a repeat', async () => {
    const { agent, condition } = await monitor();
    const [first] = await t.app.notifications.applyAlertsMany([input(agent, condition.id, 1_000, true)]);
    expect(first!.created).toHaveLength(1);
    expect(first!.created[0]).toMatchObject({ kind: 'alerts', agentId: agent.id, market: 'AAPL', thresholdType: null, title: 'Watch: Oversold above the trend on AAPL', message: 'AAPL: RSI (14) crossed below 30 (29.4, before 31.2)' });
    expect(first!.created[0]!.conditions).toEqual([expect.objectContaining({ conditionId: condition.id, market: 'AAPL' })]);
    expect(first!.repeated).toEqual([]);
    expect(await t.database.db.select().from(conditionControls).where(eq(conditionControls.agentId, agent.id))).toEqual([expect.objectContaining({ conditionId: condition.id, disarmed: true })]);

    // Another run of the agent (a run-now beside a scheduled one) decided the same candle from the state it read before.
    const [second] = await t.app.notifications.applyAlertsMany([input(agent, condition.id, 1_000)]);
    expect(second).toEqual({ created: [], held: false, repeated: [{ conditionId: condition.id, market: 'AAPL' }] });
    const list = (await t.request({ url: '/api/notifications?limit=100', cookie })).json<TNotificationList>().notifications.filter((n) => n.agentId === agent.id);
    expect(list).toHaveLength(1);

    // The next candle notifies again.
    const [third] = await t.app.notifications.applyAlertsMany([input(agent, condition.id, 2_000)]);
    expect(third!.created).toHaveLength(1);
    const [row] = await t.database.db.select().from(conditionStates).where(eq(conditionStates.agentId, agent.id));
    expect(row).toMatchObject({ conditionId: condition.id, market: 'AAPL', lastNotifiedCandle: 2_000 });
  });

  it('with every channel off, nobody is told and nothing is stored', async () => {
    const { agent, condition } = await monitor();
    const [off] = await t.app.notifications.applyAlertsMany([{ ...input(agent, condition.id, 1_000, true), inAppEnabled: false }]);
    expect(off).toEqual({ created: [], held: false, repeated: [] });
    expect(await t.database.db.select().from(conditionStates).where(eq(conditionStates.agentId, agent.id))).toEqual([]);
    expect(await t.database.db.select().from(conditionControls).where(eq(conditionControls.agentId, agent.id))).toEqual([]);
  });
});
