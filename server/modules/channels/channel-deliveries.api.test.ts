import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate, type TAgent } from '../../../contracts/agents.ts';
import {
  CHANNEL_CHOICE_RULE,
  DELIVERY_FAILURES,
  WEBHOOK_SCHEMA_VERSION,
  type TChannelDelivery,
  type TChannelList,
  type TCreatedChannel,
  type TDeliveryFailure,
} from '../../../contracts/channels.ts';
import { notificationPath, notificationUrl } from '../../../contracts/links.ts';
import type { TNotification, TNotificationList } from '../../../contracts/notifications.ts';
import { isAppRoute } from '../../../contracts/site.ts';
import { startChannelReceivers, type ChannelReceivers } from '../../../tests/fakes/channel-receivers.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { until } from '../../test/until.ts';
import { agentRuns } from '../../db/schema.ts';
import { startWorkers, type Workers } from '../runtime/workers.ts';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { createSecretBox } from '../../lib/secret-box.ts';
import { updateChannelSecret } from './channels.repo.ts';

/** POSTs `body` to the fake receiver again, as someone who captured a request would. */
function replayTo(fake: ChannelReceivers, path: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(`${fake.origin}${path}`, { method: 'POST', headers, ca: readFileSync(fake.caFile, 'utf8') }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const OWNER = 'deliveries-owner@example.com';
const OTHER = 'deliveries-other@example.com';
const template = findTemplate('stock-market-scanner')!;

describe('channel deliveries', () => {
  let t: TestApp;
  let fake: ChannelReceivers;
  let owner: string;
  let ownerId: string;
  /** Attempts the app queued, in order (a retry with its attempt and time); each test drives them itself. */
  const queued: Array<{ id: string; retry?: { attempt: number; at: Date } }> = [];
  const takeQueued = () => queued.splice(0).map((q) => q.id);

  beforeAll(async () => {
    fake = await startChannelReceivers();
    t = await createTestApp({
      env: { ADMIN_EMAILS: `${OWNER},${OTHER}`, OUTBOUND_ALLOW_LOOPBACK: 'true', OUTBOUND_CA_FILE: fake.caFile, TELEGRAM_BASE_URL: fake.origin, CHANNEL_RETRIES: '3', CHANNEL_RETRY_DELAY_SECONDS: '5' },
      enqueueDelivery: async (id, retry) => void queued.push({ id, ...(retry ? { retry } : {}) }),
    });
    owner = await t.signIn(OWNER, 'Owner');
    ownerId = (await t.request({ url: '/api/auth/me', cookie: owner })).json<{ user: { id: string } }>().user.id;
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });
  // An owner has at most MAX_CHANNELS: each test starts without any.
  afterEach(async () => {
    const { channels } = (await t.request({ url: '/api/channels', cookie: owner })).json<TChannelList>();
    for (const c of channels) expect((await t.request({ method: 'DELETE', url: `/api/channels/${c.id}`, cookie: owner })).statusCode).toBe(204);
    queued.length = 0;
  });

  const channel = async (payload: object, cookie = owner) => (await t.request({ method: 'POST', url: '/api/channels', cookie, payload })).json<TCreatedChannel>();
  const agentWith = (channels: string[], cookie = owner) => {
    const config = defaultAgentConfig(template);
    return t.request({ method: 'POST', url: '/api/agents', cookie, payload: { templateId: template.id, name: 'Scanner', config: { ...config, notifications: { ...config.notifications, channels } } } });
  };
  let alerts = 0;
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
      conditions: [{ market: `AAPL-${++alerts}`, thresholdType: 'priceChange', firing: true, value: 3.2, limit: 1, message: 'AAPL moved 3.2%' }],
    });
    return created[0]!;
  };
  const shown = async (notificationId: string): Promise<TChannelDelivery[]> =>
    (await t.request({ url: '/api/notifications', cookie: owner })).json<TNotificationList>().notifications.find((n) => n.id === notificationId)!.deliveries;
  /** A Telegram bot token as BotFather gives them, one per test. */
  const botToken = (n: number) => `${700 + n}:AAF${'x'.repeat(30)}${n}`;
  /** One attempt of the delivery, and the retry it queued (if any), with the app's clock around it. */
  const attemptOnce = async (id: string, attempt?: number) => {
    const before = t.now().getTime();
    await t.app.channels.deliver(id, attempt);
    const after = t.now().getTime();
    const retry = queued.splice(0).find((q) => q.id === id)?.retry;
    return { retry, before, after };
  };

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

    const ids = takeQueued();
    for (const id of ids) await t.app.channels.deliver(id);
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
        // Issue 30: the conditions it tells of (none here); every other field as it was.
        conditions: [],
        createdAt: notification.createdAt,
        link: `http://localhost:3000/agents-console?agent=${agent.id}`,
        brief: null,
      },
    });
    // A request replayed within the signature's tolerance is signed too: the receiver, as the
    // webhooks reference (docs/reference/webhooks.md) says, acts on each webhook-id once.
    const sent = fake.target.received.find((r) => r.path === '/webhook/run-hook')!;
    const signed = Object.fromEntries(['x-signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(sent.headers[h])]));
    expect(await replayTo(fake, sent.path, signed, sent.body)).toBe(204);
    expect(fake.receipts.filter((r) => r.name === 'run-hook').map((r) => r.verdict)).toEqual(['signed', 'duplicate']);
    expect(fake.receipts.find((r) => r.kind === 'slack' && r.name === 'team')).toMatchObject({ verdict: 'ok', body: { text: expect.stringContaining(notification.title) } });

    // A job run again after a crash sends nothing twice.
    const before = fake.target.received.length;
    for (const id of ids) await t.app.channels.deliver(id);
    for (const id of ids) await t.app.channels.deliver(id, 2);
    expect(fake.target.received.length).toBe(before);
  });

  it('waits as long as the receiver asks before the next attempt, and delivers then', async () => {
    // Discord's documented 429 (Retry-After: 65, X-RateLimit-Reset-After: 64.57, retry_after: 64.57).
    const busy = await channel({ kind: 'discord', name: 'Busy', url: `${fake.origin}/discord/busy` });
    const slack = await channel({ kind: 'slack', name: 'Slow Slack', url: `${fake.origin}/slack/slow` });
    const hook = await channel({ kind: 'webhook', name: 'Down hook', url: `${fake.origin}/webhook/flaky-wait` });
    fake.setWebhookSecret('flaky-wait', hook.signingSecret!);
    const agent = (await agentWith([busy.id, slack.id, hook.id])).json<TAgent>();
    const notification = await alert(agent);
    const [discordId, slackId, hookId] = takeQueued();
    fake.limit('discord/busy', 64.57);
    fake.limit('slack/slow', 30);

    const discord = await attemptOnce(discordId!);
    expect(discord.retry?.attempt).toBe(2);
    expect(discord.retry!.at.getTime()).toBeGreaterThanOrEqual(discord.before + 65_000);
    expect(discord.retry!.at.getTime()).toBeLessThanOrEqual(discord.after + 65_000);
    const slow = await attemptOnce(slackId!);
    expect(slow.retry!.at.getTime()).toBeGreaterThanOrEqual(slow.before + 30_000);
    expect(slow.retry!.at.getTime()).toBeLessThanOrEqual(slow.after + 30_000);
    // A 503 that names no wait: the schedule's first (CHANNEL_RETRY_DELAY_SECONDS, 5 s here).
    const down = await attemptOnce(hookId!);
    expect(down.retry!.at.getTime()).toBeGreaterThanOrEqual(down.before + 5_000);
    expect(down.retry!.at.getTime()).toBeLessThanOrEqual(down.after + 5_000);
    expect(await shown(notification.id)).toEqual([
      expect.objectContaining({ channelName: 'Busy', status: 'pending', attempts: 1, lastError: DELIVERY_FAILURES['rate-limited'] }),
      expect.objectContaining({ channelName: 'Down hook', status: 'pending', attempts: 1, lastError: DELIVERY_FAILURES['receiver-error'] }),
      expect.objectContaining({ channelName: 'Slow Slack', status: 'pending', attempts: 1, lastError: DELIVERY_FAILURES['rate-limited'] }),
    ]);

    // The queue runs each retry when it is due: the next attempt goes through.
    for (const id of [discordId!, slackId!, hookId!]) await t.app.channels.deliver(id, 2);
    expect((await shown(notification.id)).map((d) => [d.channelName, d.status, d.attempts, d.lastError])).toEqual([
      ['Busy', 'sent', 2, null],
      ['Down hook', 'sent', 2, null],
      ['Slow Slack', 'sent', 2, null],
    ]);
    expect(queued).toEqual([]);
  });

  it("waits out a Telegram flood wait, and fails saying why when it asks for more than an hour", async () => {
    const token = botToken(1);
    fake.addTelegramBot(token, ['-1001001']);
    const telegram = await channel({ kind: 'telegram', name: 'Flooded', botToken: token, chatId: '-1001001' });
    const agent = (await agentWith([telegram.id])).json<TAgent>();
    const first = await alert(agent);
    const second = await alert(agent);
    const [firstId, secondId] = takeQueued();

    fake.limit(`telegram/${token}`, 3000);
    const waited = await attemptOnce(firstId!);
    expect(waited.retry!.at.getTime()).toBeGreaterThanOrEqual(waited.before + 3_000_000);
    expect(waited.retry!.at.getTime()).toBeLessThanOrEqual(waited.after + 3_000_000);
    await t.app.channels.deliver(firstId!, 2);
    expect(await shown(first.id)).toEqual([expect.objectContaining({ status: 'sent', attempts: 2, lastError: null })]);

    fake.limit(`telegram/${token}`, 3601);
    expect((await attemptOnce(secondId!)).retry).toBeUndefined();
    expect(await shown(second.id)).toEqual([expect.objectContaining({ status: 'failed', attempts: 1, lastError: DELIVERY_FAILURES['wait-too-long'] })]);
  });

  it('gives up on the last attempt', async () => {
    // Discord's 'limited' always answers 429 (retry_after 0.25): CHANNEL_RETRIES is 3 here.
    const limited = await channel({ kind: 'discord', name: 'Always busy', url: `${fake.origin}/discord/limited` });
    const agent = (await agentWith([limited.id])).json<TAgent>();
    const notification = await alert(agent);
    const [id] = takeQueued();
    const attempts: Array<number | undefined> = [];
    let next: number | undefined = undefined;
    for (let n = 1; n <= 4; n++) {
      const { retry } = await attemptOnce(id!, next);
      attempts.push(retry?.attempt);
      next = retry?.attempt;
    }
    // The receiver's wait (0.25 s) is rounded up to a whole second.
    expect(attempts).toEqual([2, 3, 4, undefined]);
    expect(await shown(notification.id)).toEqual([expect.objectContaining({ status: 'failed', attempts: 4, lastError: DELIVERY_FAILURES['rate-limited'] })]);
  });

  it("says what to do for each reason the receivers document, and does not try again", async () => {
    const token = botToken(2);
    fake.addTelegramBot(token, ['-1002001', '1002002']);
    fake.blockTelegramBot(token, '1002002');
    const cases: Array<[object, TDeliveryFailure]> = [
      [{ kind: 'slack', name: 'S no_service', url: `${fake.origin}/slack/gone` }, 'slack-no-service'],
      [{ kind: 'slack', name: 'S channel_not_found', url: `${fake.origin}/slack/no-channel` }, 'slack-channel-not-found'],
      [{ kind: 'slack', name: 'S channel_is_archived', url: `${fake.origin}/slack/archived` }, 'slack-channel-archived'],
      [{ kind: 'slack', name: 'S action_prohibited', url: `${fake.origin}/slack/prohibited` }, 'slack-action-prohibited'],
      [{ kind: 'slack', name: 'S invalid_payload', url: `${fake.origin}/slack/unreadable` }, 'slack-invalid-payload'],
      [{ kind: 'discord', name: 'D Unknown Webhook', url: `${fake.origin}/discord/gone` }, 'discord-unknown-webhook'],
      [{ kind: 'telegram', name: 'T blocked', botToken: token, chatId: '1002002' }, 'telegram-blocked'],
      [{ kind: 'telegram', name: 'T chat not found', botToken: token, chatId: '-1002999' }, 'telegram-chat-not-found'],
      [{ kind: 'telegram', name: 'T unauthorized', botToken: botToken(99), chatId: '-1002001' }, 'telegram-unauthorized'],
    ];
    const created = [];
    for (const [payload] of cases) created.push(await channel(payload));
    const agent = (await agentWith(created.map((c) => c.id))).json<TAgent>();
    const notification = await alert(agent);
    for (const id of takeQueued()) expect((await attemptOnce(id)).retry).toBeUndefined();
    const byName = new Map((await shown(notification.id)).map((d) => [d.channelName, d]));
    for (const [payload, reason] of cases) {
      const name = (payload as { name: string }).name;
      expect(byName.get(name), name).toMatchObject({ status: 'failed', attempts: 1, lastError: DELIVERY_FAILURES[reason] });
    }
    // Each sentence is its own.
    expect(new Set(cases.map(([, reason]) => DELIVERY_FAILURES[reason])).size).toBe(cases.length);
  });

  it('adopts the new chat id of a Telegram group that became a supergroup, delivers there, and says so on the channel', async () => {
    const token = botToken(3);
    fake.addTelegramBot(token, ['-4001']);
    const telegram = await channel({ kind: 'telegram', name: 'Desk group', botToken: token, chatId: '-4001' });
    fake.migrateTelegramChat(token, '-4001', '-1004001000001');
    const agent = (await agentWith([telegram.id])).json<TAgent>();
    const first = await alert(agent);
    const [firstId] = takeQueued();
    expect((await attemptOnce(firstId!)).retry).toBeUndefined();
    expect(await shown(first.id)).toEqual([expect.objectContaining({ status: 'sent', attempts: 1, lastError: null })]);
    const sent = fake.receipts.filter((r) => r.kind === 'telegram' && r.name === token);
    expect(sent.map((r) => [(r.body as { chat_id: string }).chat_id, r.verdict])).toEqual([
      ['-4001', 'Bad Request: group chat was upgraded to a supergroup chat'],
      ['-1004001000001', 'ok'],
    ]);
    const listed = (await t.request({ url: '/api/channels', cookie: owner })).json<TChannelList>().channels.find((c) => c.id === telegram.id);
    expect(listed).toMatchObject({ target: `chat -1004001000001 · bot ${token.split(':')[0]}`, movedFrom: '-4001' });

    // Later messages go to the new chat at once, and 'Send test' too.
    const second = await alert(agent);
    await t.app.channels.deliver(takeQueued()[0]!);
    expect(await shown(second.id)).toEqual([expect.objectContaining({ status: 'sent', attempts: 1 })]);
    expect((await t.request({ method: 'POST', url: `/api/channels/${telegram.id}/test`, cookie: owner })).json()).toEqual({ status: 'sent' });
    expect(fake.receipts.filter((r) => r.kind === 'telegram' && r.name === token).slice(2).map((r) => [(r.body as { chat_id: string }).chat_id, r.verdict])).toEqual([
      ['-1004001000001', 'ok'],
      ['-1004001000001', 'ok'],
    ]);
  });

  it("links every channel's message to the agent's details at its run, a page that answers 200 for its owner", async () => {
    const token = botToken(4);
    fake.addTelegramBot(token, ['-5001']);
    const hook = await channel({ kind: 'webhook', name: 'Link hook', url: `${fake.origin}/webhook/link-hook` });
    fake.setWebhookSecret('link-hook', hook.signingSecret!);
    const chosen = [
      hook,
      await channel({ kind: 'slack', name: 'Link slack', url: `${fake.origin}/slack/link-slack` }),
      await channel({ kind: 'discord', name: 'Link discord', url: `${fake.origin}/discord/link-discord` }),
      await channel({ kind: 'telegram', name: 'Link telegram', botToken: token, chatId: '-5001' }),
    ];
    const agent = (await agentWith(chosen.map((c) => c.id))).json<TAgent>();
    const [run] = await t.database.db.insert(agentRuns).values({ agentId: agent.id, status: 'success' }).returning();
    const { created } = await t.app.notifications.applyAlerts({
      userId: ownerId,
      agentId: agent.id,
      agentName: agent.name,
      runId: run!.id,
      emailEnabled: false,
      inAppEnabled: true,
      channelIds: chosen.map((c) => c.id),
      conditions: [{ market: 'AAPL-links', thresholdType: 'priceChange', firing: true, value: 3.2, limit: 1, message: 'AAPL moved 3.2%' }],
    });
    const notification: TNotification = created[0]!;
    for (const id of takeQueued()) await t.app.channels.deliver(id);
    expect((await shown(notification.id)).map((d) => d.status)).toEqual(['sent', 'sent', 'sent', 'sent']);

    const received = (kind: string, name: string): unknown => fake.receipts.find((r) => r.kind === kind && r.name === name)!.body;
    const links = {
      webhook: (received('webhook', 'link-hook') as { notification: { link: string } }).notification.link,
      slack: /<([^|>]+)\|Open the console>/.exec((received('slack', 'link-slack') as { text: string }).text)![1]!,
      discord: (received('discord', 'link-discord') as { embeds: Array<{ url: string }> }).embeds[0]!.url,
      telegram: (received('telegram', token) as { text: string }).text.split('\n').at(-1)!,
    };
    const expected = notificationUrl(t.config.publicUrl, notification);
    expect(expected).toBe(`${t.config.publicUrl}/agents-console?agent=${agent.id}&run=${run!.id}`);
    for (const [kind, link] of Object.entries(links)) {
      expect(link, kind).toBe(expected);
      const url = new URL(link);
      expect(isAppRoute(url.pathname), kind).toBe(true);
      expect((await t.request({ url: `${url.pathname}${url.search}`, cookie: owner })).statusCode, kind).toBe(200);
    }
    // The bell's link is the same page.
    expect(notificationUrl(t.config.publicUrl, notification)).toBe(`${t.config.publicUrl}${notificationPath(notification)}`);
  });

  it("records a removed channel's delivery as failed, and takes the channel out of its agents' choice", async () => {
    const soon = await channel({ kind: 'discord', name: 'Soon gone', url: `${fake.origin}/discord/soon` });
    const agent = (await agentWith([soon.id])).json<TAgent>();
    const notification = await alert(agent);
    expect((await t.request({ method: 'DELETE', url: `/api/channels/${soon.id}`, cookie: owner })).statusCode).toBe(204);
    const before = fake.target.received.length;
    for (const id of takeQueued()) await t.app.channels.deliver(id);
    expect(await shown(notification.id)).toEqual([{ channelId: null, event: 'notification', kind: 'discord', channelName: 'Soon gone', status: 'failed', attempts: 0, lastError: DELIVERY_FAILURES['channel-removed'] }]);
    expect(fake.target.received.length).toBe(before);

    const saved = (await t.request({ url: `/api/agents/${agent.id}`, cookie: owner })).json<TAgent>();
    expect(saved.config.notifications.channels).toEqual([]);
  });

  /** Verifies a request as a Standard Webhooks receiver does, with the specification's library; throws when it does not verify. */
  const verifyStandard = (secret: string, request: { headers: Record<string, string | string[] | undefined>; body: string }) =>
    new Webhook(secret).verify(request.body, Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(request.headers[h])])), { jsonParse: false });

  it('signs every webhook attempt the Standard Webhooks way, and a retry keeps its webhook-id (docs/decisions/0090)', async () => {
    const hook = await channel({ kind: 'webhook', name: 'Standard', url: `${fake.origin}/webhook/flaky-standard` });
    expect(hook.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    fake.setWebhookSecret('flaky-standard', hook.signingSecret!);
    const agent = (await agentWith([hook.id])).json<TAgent>();
    const notification = await alert(agent);
    const [id] = takeQueued();
    const { retry } = await attemptOnce(id!);
    await t.app.channels.deliver(id!, retry!.attempt);
    expect(await shown(notification.id)).toEqual([expect.objectContaining({ status: 'sent', attempts: 2 })]);

    const attempts = fake.target.received.filter((r) => r.path === '/webhook/flaky-standard');
    expect(attempts).toHaveLength(2);
    for (const attempt of attempts) expect(() => verifyStandard(hook.signingSecret!, attempt)).not.toThrow();
    expect(attempts[1]!.headers['webhook-id']).toBe(attempts[0]!.headers['webhook-id']);
    expect(fake.receipts.filter((r) => r.name === 'flaky-standard').map((r) => r.verdict)).toEqual(['unavailable', 'signed']);
    // Another message has another id.
    await alert(agent);
    await t.app.channels.deliver(takeQueued()[0]!);
    const third = fake.target.received.filter((r) => r.path === '/webhook/flaky-standard')[2]!;
    expect(third.headers['webhook-id']).not.toBe(attempts[0]!.headers['webhook-id']);
    expect(() => verifyStandard(hook.signingSecret!, third)).not.toThrow();
  });

  it("keeps an older channel's receiver working: its base64url secret verifies X-Signature as before, and in base64 the Standard Webhooks signature", async () => {
    const hook = await channel({ kind: 'webhook', name: 'Older', url: `${fake.origin}/webhook/older` });
    // The secret as channels were given it before decision 0090: whsec_ and base64url.
    const bytes = Buffer.from(Array.from({ length: 32 }, (_, i) => 255 - i * 5));
    const older = `whsec_${bytes.toString('base64url')}`;
    const box = createSecretBox(t.config.channels.secretKey.material);
    await updateChannelSecret(t.database.db, hook.id, { target: hook.target, secret: box.seal(JSON.stringify({ kind: 'webhook', url: `${fake.origin}/webhook/older`, signingSecret: older }), hook.id) });
    fake.setWebhookSecret('older', older, `whsec_${bytes.toString('base64')}`);
    expect((await t.request({ method: 'POST', url: `/api/channels/${hook.id}/test`, cookie: owner })).json()).toEqual({ status: 'sent' });
    expect(fake.receipts.filter((r) => r.name === 'older').map((r) => r.verdict)).toEqual(['signed']);
  });

  it('posts a templated webhook as rendered: an ntfy and a Mattermost body arrive as their APIs take them, signed', async () => {
    const ntfy = await channel({
      kind: 'webhook',
      name: 'Phone',
      url: `${fake.origin}/ntfy`,
      template: '{"topic": "market-alerts", "title": "{{agent.name}}: {{market}}", "message": "{{alerts}}", "click": "{{link}}", "tags": ["chart_with_upwards_trend"]}',
    });
    const mattermost = await channel({ kind: 'webhook', name: 'Town square', url: `${fake.origin}/mattermost/hooks/xk3f9`, template: '{"text": "#### {{title}}\\n{{message}}\\n[Open]({{link}})", "username": "{{agent.name}}"}' });
    const agent = (await agentWith([ntfy.id, mattermost.id])).json<TAgent>();
    const notification = await alert(agent);
    for (const id of takeQueued()) await t.app.channels.deliver(id);
    expect((await shown(notification.id)).map((d) => [d.channelName, d.status])).toEqual([
      ['Phone', 'sent'],
      ['Town square', 'sent'],
    ]);
    const link = notificationUrl('http://localhost:3000', { agentId: agent.id, runId: null });
    expect(fake.receipts.find((r) => r.kind === 'ntfy')).toMatchObject({
      verdict: 'ok',
      body: { topic: 'market-alerts', title: `Scanner: ${notification.market}`, message: 'AAPL moved 3.2%', click: link, tags: ['chart_with_upwards_trend'] },
    });
    expect(fake.receipts.find((r) => r.kind === 'mattermost' && r.name === 'xk3f9')).toMatchObject({
      verdict: 'ok',
      body: { text: `#### ${notification.title}\nAAPL moved 3.2%\n[Open](${link})`, username: 'Scanner' },
    });
    // Signed like every webhook, so a receiver that checks may.
    for (const [created, path] of [[ntfy, '/ntfy'], [mattermost, '/mattermost/hooks/xk3f9']] as const) {
      expect(() => verifyStandard(created.signingSecret!, fake.target.received.find((r) => r.path === path)!)).not.toThrow();
    }
  });

  it('delivers a Teams card the Workflows fake accepts (202), and says why when the workflow is gone', async () => {
    const teams = await channel({ kind: 'teams', name: 'Desk channel', url: `${fake.origin}/teams/desk` });
    const gone = await channel({ kind: 'teams', name: 'Old flow', url: `${fake.origin}/teams/gone` });
    expect(teams).not.toHaveProperty('signingSecret');
    const agent = (await agentWith([teams.id, gone.id])).json<TAgent>();
    const notification = await alert(agent);
    for (const id of takeQueued()) await t.app.channels.deliver(id);
    expect((await shown(notification.id)).map((d) => [d.channelName, d.kind, d.status, d.lastError])).toEqual([
      ['Desk channel', 'teams', 'sent', null],
      ['Old flow', 'teams', 'failed', DELIVERY_FAILURES.gone],
    ]);
    const card = fake.receipts.find((r) => r.kind === 'teams' && r.name === 'desk')!;
    expect(card.verdict).toBe('ok');
    expect(card.body).toMatchObject({
      type: 'message',
      attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', content: { type: 'AdaptiveCard', version: '1.4', body: expect.arrayContaining([expect.objectContaining({ type: 'FactSet', facts: expect.arrayContaining([{ title: 'Agent', value: 'Scanner' }]) })]) } }],
    });
    expect((await t.request({ method: 'POST', url: `/api/channels/${teams.id}/test`, cookie: owner })).json()).toEqual({ status: 'sent' });
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
      enqueueDelivery: (id, retry) => t.jobs.enqueueDelivery(id, retry),
    });
    workers = await startWorkers({ config: t.config, database: t.database, jobs: t.jobs, logger: pino({ level: 'silent' }), notifications: t.app.notifications, channels: t.app.channels, now: t.now });
  });
  afterAll(async () => {
    await workers.stop();
    await t.close();
    await fake.close();
  });

  it("retries a failed delivery until it is delivered, not before the receiver's asked wait", async () => {
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

    // A receiver that asks for 1.5 s (Discord's retry_after) is not asked again sooner: the
    // retry is a job that starts after the wait, rounded up to whole seconds.
    const discord = (await t.request({ method: 'POST', url: '/api/channels', cookie, payload: { kind: 'discord', name: 'Busy', url: `${fake.origin}/discord/busy-queue` } })).json<TCreatedChannel>();
    fake.limit('discord/busy-queue', 1.5);
    const { created: busy } = await t.app.notifications.applyAlerts({
      userId: ownerId,
      agentId: agent.id,
      agentName: agent.name,
      runId: null,
      emailEnabled: false,
      inAppEnabled: true,
      channelIds: [discord.id],
      conditions: [{ market: 'MSFT', thresholdType: 'priceChange', firing: true, value: 3.2, limit: 1, message: 'MSFT moved 3.2%' }],
    });
    const waited = await until(
      async () => (await t.request({ url: '/api/notifications', cookie })).json<TNotificationList>().notifications.find((n) => n.id === busy[0]!.id)?.deliveries[0],
      (delivery) => delivery?.status !== 'pending',
      30_000,
    );
    expect(waited).toMatchObject({ channelName: 'Busy', status: 'sent', attempts: 2, lastError: null });
    const [limited, sent] = fake.receipts.filter((r) => r.name === 'busy-queue');
    expect([limited!.verdict, sent!.verdict]).toEqual(['rate limited', 'ok']);
    expect(sent!.at - limited!.at).toBeGreaterThanOrEqual(1500);
  }, 60_000);
});
