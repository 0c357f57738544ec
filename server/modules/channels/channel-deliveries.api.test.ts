import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate, type TAgent } from '../../../contracts/agents.ts';
import { CHANNEL_CHOICE_RULE, DELIVERY_FAILURES, WEBHOOK_SCHEMA_VERSION, type TChannelDelivery, type TCreatedChannel } from '../../../contracts/channels.ts';
import type { TNotificationList } from '../../../contracts/notifications.ts';
import { startChannelReceivers, type ChannelReceivers } from '../../../tests/fakes/channel-receivers.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { until } from '../../test/until.ts';
import { startWorkers, type Workers } from '../runtime/workers.ts';
import pino from 'pino';

const OWNER = 'deliveries-owner@example.com';
const OTHER = 'deliveries-other@example.com';
const template = findTemplate('stock-market-scanner')!;

describe('channel deliveries', () => {
  let t: TestApp;
  let fake: ChannelReceivers;
  let owner: string;
  let ownerId: string;
  /** Deliveries the app queued, in order; each test drives their attempts itself. */
  const queued: string[] = [];

  beforeAll(async () => {
    fake = await startChannelReceivers();
    t = await createTestApp({
      env: { ADMIN_EMAILS: `${OWNER},${OTHER}`, OUTBOUND_ALLOW_LOOPBACK: 'true', OUTBOUND_CA_FILE: fake.caFile, TELEGRAM_BASE_URL: fake.origin },
      enqueueDelivery: async (id) => void queued.push(id),
    });
    owner = await t.signIn(OWNER, 'Owner');
    ownerId = (await t.request({ url: '/api/auth/me', cookie: owner })).json<{ user: { id: string } }>().user.id;
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  const channel = async (payload: object, cookie = owner) => (await t.request({ method: 'POST', url: '/api/channels', cookie, payload })).json<TCreatedChannel>();
  const agentWith = (channels: string[], cookie = owner) => {
    const config = defaultAgentConfig(template);
    return t.request({ method: 'POST', url: '/api/agents', cookie, payload: { templateId: template.id, name: 'Scanner', config: { ...config, notifications: { ...config.notifications, channels } } } });
  };
  /** What a run of the agent that crossed a threshold does: one notification, to its channels. */
  const alert = async (agent: TAgent) => {
    const { created } = await t.app.notifications.applyAlerts({
      userId: ownerId,
      agentId: agent.id,
      agentName: agent.name,
      runId: null,
      emailEnabled: false,
      inAppEnabled: true,
      channelIds: agent.config.notifications.channels ?? [],
      conditions: [{ market: `AAPL-${queued.length}`, thresholdType: 'priceChange', firing: true, value: 3.2, limit: 1, message: 'AAPL moved 3.2%' }],
    });
    return created[0]!;
  };
  const shown = async (notificationId: string): Promise<TChannelDelivery[]> =>
    (await t.request({ url: '/api/notifications', cookie: owner })).json<TNotificationList>().notifications.find((n) => n.id === notificationId)!.deliveries;

  it("lets an agent choose only its owner's channels", async () => {
    const others = await channel({ kind: 'slack', name: 'Theirs', url: `${fake.origin}/slack/theirs` }, await t.signIn(OTHER, 'Other'));
    const mine = await channel({ kind: 'slack', name: 'Mine', url: `${fake.origin}/slack/mine` });
    const refused = await agentWith([mine.id, others.id]);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().details).toEqual([{ path: 'config.notifications.channels.1', message: CHANNEL_CHOICE_RULE }]);
    expect((await agentWith([mine.id])).statusCode).toBe(201);
  });

  it('delivers a notification to each chosen channel, signed, and shows each delivery on it', async () => {
    const hook = await channel({ kind: 'webhook', name: 'Hook', url: `${fake.origin}/webhook/run-hook` });
    fake.setWebhookSecret('run-hook', hook.signingSecret!);
    const slack = await channel({ kind: 'slack', name: 'Team', url: `${fake.origin}/slack/team` });
    const agent = (await agentWith([hook.id, slack.id])).json<TAgent>();
    const notification = await alert(agent);
    expect(notification.deliveries.map((d) => [d.channelName, d.status, d.attempts])).toEqual([
      ['Hook', 'pending', 0],
      ['Team', 'pending', 0],
    ]);

    const ids = queued.splice(0);
    for (const id of ids) await t.app.channels.deliver(id, { number: 1, last: false });
    expect(await shown(notification.id)).toEqual([
      { channelId: hook.id, event: 'notification', kind: 'webhook', channelName: 'Hook', status: 'sent', attempts: 1, lastError: null },
      { channelId: slack.id, event: 'notification', kind: 'slack', channelName: 'Team', status: 'sent', attempts: 1, lastError: null },
    ]);
    const webhook = fake.receipts.find((r) => r.kind === 'webhook' && r.name === 'run-hook')!;
    expect(webhook.verdict).toBe('signed');
    expect(webhook.body).toEqual({
      version: WEBHOOK_SCHEMA_VERSION,
      event: 'notification',
      notification: {
        id: notification.id,
        kind: 'alerts',
        agentId: agent.id,
        agentName: 'Scanner',
        runId: null,
        market: notification.market,
        title: notification.title,
        message: 'AAPL moved 3.2%',
        alerts: notification.alerts,
        createdAt: notification.createdAt,
        link: 'http://localhost:3000/agents',
        brief: null,
      },
    });
    expect(fake.receipts.find((r) => r.kind === 'slack' && r.name === 'team')).toMatchObject({ verdict: 'ok', body: { text: expect.stringContaining(notification.title) } });

    // A job run again after a crash sends nothing twice.
    const before = fake.target.received.length;
    for (const id of ids) await t.app.channels.deliver(id, { number: 2, last: false });
    expect(fake.target.received.length).toBe(before);
  });

  it('retries what may succeed later, records each attempt, and gives up on the last one', async () => {
    const busy = await channel({ kind: 'discord', name: 'Busy', url: `${fake.origin}/discord/limited` });
    const gone = await channel({ kind: 'slack', name: 'Gone', url: `${fake.origin}/slack/gone` });
    const agent = (await agentWith([busy.id, gone.id])).json<TAgent>();
    const notification = await alert(agent);
    const [busyDelivery, goneDelivery] = queued.splice(0);

    // 429: thrown so the queue retries it with backoff; recorded as pending with the sentence.
    await expect(t.app.channels.deliver(busyDelivery!, { number: 1, last: false })).rejects.toThrow();
    // 404 'no_service': trying again cannot help, so it fails at once.
    await t.app.channels.deliver(goneDelivery!, { number: 1, last: false });
    expect(await shown(notification.id)).toEqual([
      { channelId: busy.id, event: 'notification', kind: 'discord', channelName: 'Busy', status: 'pending', attempts: 1, lastError: DELIVERY_FAILURES['rate-limited'] },
      { channelId: gone.id, event: 'notification', kind: 'slack', channelName: 'Gone', status: 'failed', attempts: 1, lastError: DELIVERY_FAILURES.gone },
    ]);

    await t.app.channels.deliver(busyDelivery!, { number: 2, last: true });
    expect((await shown(notification.id))[0]).toMatchObject({ status: 'failed', attempts: 2, lastError: DELIVERY_FAILURES['rate-limited'] });
  });

  it("records a removed channel's delivery as failed, and takes the channel out of its agents' choice", async () => {
    const soon = await channel({ kind: 'discord', name: 'Soon gone', url: `${fake.origin}/discord/soon` });
    const agent = (await agentWith([soon.id])).json<TAgent>();
    const notification = await alert(agent);
    expect((await t.request({ method: 'DELETE', url: `/api/channels/${soon.id}`, cookie: owner })).statusCode).toBe(204);
    const before = fake.target.received.length;
    for (const id of queued.splice(0)) await t.app.channels.deliver(id, { number: 1, last: false });
    expect(await shown(notification.id)).toEqual([{ channelId: null, event: 'notification', kind: 'discord', channelName: 'Soon gone', status: 'failed', attempts: 0, lastError: DELIVERY_FAILURES['channel-removed'] }]);
    expect(fake.target.received.length).toBe(before);

    const saved = (await t.request({ url: `/api/agents/${agent.id}`, cookie: owner })).json<TAgent>();
    expect(saved.config.notifications.channels).toEqual([]);
  });
});

describe('channel deliveries on the job queue', () => {
  let t: TestApp;
  let fake: ChannelReceivers;
  let workers: Workers;

  beforeAll(async () => {
    fake = await startChannelReceivers();
    t = await createTestApp({
      env: { ADMIN_EMAILS: OWNER, OUTBOUND_ALLOW_LOOPBACK: 'true', OUTBOUND_CA_FILE: fake.caFile, CHANNEL_RETRIES: '2', CHANNEL_RETRY_DELAY_SECONDS: '1', MARKET_DATA: 'simulated' },
      // The app's own queue: `t` is set before any notification is made.
      enqueueDelivery: (id) => t.jobs.enqueueDelivery(id),
    });
    workers = await startWorkers({ config: t.config, database: t.database, jobs: t.jobs, logger: pino({ level: 'silent' }), notifications: t.app.notifications, channels: t.app.channels, now: t.now });
  });
  afterAll(async () => {
    await workers.stop();
    await t.close();
    await fake.close();
  });

  it('retries a failed delivery with backoff until it is delivered', async () => {
    const cookie = await t.signIn(OWNER, 'Owner');
    const ownerId = (await t.request({ url: '/api/auth/me', cookie })).json<{ user: { id: string } }>().user.id;
    const hook = (await t.request({ method: 'POST', url: '/api/channels', cookie, payload: { kind: 'webhook', name: 'Flaky', url: `${fake.origin}/webhook/flaky-1` } })).json<TCreatedChannel>();
    fake.setWebhookSecret('flaky-1', hook.signingSecret!);
    const config = defaultAgentConfig(template);
    const agent = (
      await t.request({ method: 'POST', url: '/api/agents', cookie, payload: { templateId: template.id, name: 'Queued', config: { ...config, notifications: { ...config.notifications, channels: [hook.id] } } } })
    ).json<TAgent>();
    const { created } = await t.app.notifications.applyAlerts({
      userId: ownerId,
      agentId: agent.id,
      agentName: agent.name,
      runId: null,
      emailEnabled: false,
      inAppEnabled: true,
      channelIds: [hook.id],
      conditions: [{ market: 'AAPL', thresholdType: 'priceChange', firing: true, value: 3.2, limit: 1, message: 'AAPL moved 3.2%' }],
    });
    const id = created[0]!.id;
    const delivered = await until(
      async () => (await t.request({ url: '/api/notifications', cookie })).json<TNotificationList>().notifications.find((n) => n.id === id)?.deliveries[0],
      (delivery) => delivery?.status !== 'pending',
      30_000,
    );
    expect(delivered).toMatchObject({ channelName: 'Flaky', status: 'sent', attempts: 2, lastError: null });
    expect(fake.receipts.filter((r) => r.name === 'flaky-1').map((r) => r.verdict)).toEqual(['unavailable', 'signed']);
  }, 60_000);
});
