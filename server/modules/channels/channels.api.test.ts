import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { OUTBOUND_FAILURES } from '../../../contracts/outbound.ts';
import { DELIVERY_FAILURES, TELEGRAM_TOKEN_RULE, WEBHOOK_SCHEMA_VERSION, type TChannel, type TCreatedChannel } from '../../../contracts/channels.ts';
import { startChannelReceivers, verifySignature, type ChannelReceivers } from '../../../tests/fakes/channel-receivers.ts';
import { capturingLogger, encodings, leaks } from '../../test/secret-scan.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';

const OWNER = 'channels-owner@example.com';
const OTHER = 'channels-other@example.com';
const BOT_TOKEN = '123456789:AAF-secret-part-of-the-bot-token_xyz';

describe('delivery channels', () => {
  let t: TestApp;
  let fake: ChannelReceivers;
  let owner: string;
  let other: string;
  const { logger, lines } = capturingLogger();
  const secrets: Record<string, string[]> = {};

  beforeAll(async () => {
    fake = await startChannelReceivers();
    t = await createTestApp({
      env: { ADMIN_EMAILS: `${OWNER},${OTHER}`, OUTBOUND_ALLOW_LOOPBACK: 'true', OUTBOUND_CA_FILE: fake.caFile, TELEGRAM_BASE_URL: fake.origin },
      logger,
    });
    owner = await t.signIn(OWNER, 'Owner');
    other = await t.signIn(OTHER, 'Other');
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  const create = (payload: object, cookie = owner) => t.request({ method: 'POST', url: '/api/channels', cookie, payload });
  const sendTest = (id: string, cookie = owner) => t.request({ method: 'POST', url: `/api/channels/${id}/test`, cookie });
  const list = async (cookie = owner) => (await t.request({ url: '/api/channels', cookie })).json<{ channels: TChannel[] }>().channels;

  it('creates a webhook channel: the signing secret once, a masked target, and a signed, versioned test message', async () => {
    const url = `${fake.origin}/webhook/main-hook-Zq9x`;
    const res = await create({ kind: 'webhook', name: 'My endpoint', url });
    expect(res.statusCode).toBe(201);
    const created = res.json<TCreatedChannel>();
    expect(created).toMatchObject({ kind: 'webhook', name: 'My endpoint', target: `127.0.0.1:${fake.target.port}/…/Zq9x` });
    // The Standard Webhooks form: whsec_ and the base64 of 32 random bytes (docs/decisions/0090; base64url before).
    expect(created.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    secrets.webhookUrl = encodings(url);
    secrets.signingSecret = encodings(created.signingSecret!);
    fake.setWebhookSecret('main-hook-Zq9x', created.signingSecret!);

    // Shown once: neither the list nor any later answer has it, or the URL.
    const listed = await list();
    expect(listed).toEqual([{ id: created.id, kind: 'webhook', name: 'My endpoint', target: created.target, movedFrom: null, createdAt: created.createdAt }]);

    expect((await sendTest(created.id)).json()).toEqual({ status: 'sent' });
    const receipt = fake.receipts.at(-1)!;
    expect(receipt).toMatchObject({ kind: 'webhook', verdict: 'signed' });
    expect(receipt.body).toMatchObject({ version: WEBHOOK_SCHEMA_VERSION, event: 'test', notification: { title: 'Test message for My endpoint', agentName: 'Test' } });
    const request = fake.target.received.at(-1)!;
    expect(request.headers['content-type']).toBe('application/json; charset=utf-8');
    // The signature is over "<t>.<body>" exactly: another body does not verify.
    expect(verifySignature(created.signingSecret, String(request.headers['x-signature']), `${request.body} `)).toBe('signature mismatch');
  });

  it('stores no secret in clear: the rows hold ciphertext, bound to their own row', async () => {
    const res = await create({ kind: 'telegram', name: 'Desk', botToken: BOT_TOKEN, chatId: '-1001234' });
    expect(res.statusCode).toBe(201);
    const created = res.json<TCreatedChannel>();
    expect(created.signingSecret).toBeUndefined();
    expect(created.target).toBe('chat -1001234 · bot 123456789');
    secrets.botToken = encodings(BOT_TOKEN);

    const rows = (await t.database.db.execute(sql`select * from channels`)) as unknown as { rows: unknown[] };
    const dump = JSON.stringify(rows.rows);
    expect(leaks([{ label: 'channels table', text: dump }], secrets)).toEqual([]);
    expect(dump).toMatch(/"secret":"v1\.[A-Za-z0-9_-]{8}\./);

    // A sealed secret moved to another row does not open there: the test reports it, sends nothing.
    const [webhook] = await list();
    const before = fake.target.received.length;
    await t.database.db.execute(sql`update channels set secret = (select secret from channels where id = ${webhook!.id}) where id = ${created.id}`);
    expect((await sendTest(created.id)).json()).toEqual({ status: 'failed', error: DELIVERY_FAILURES['secret-unreadable'] });
    expect(fake.target.received.length).toBe(before);
  });

  it("sends each kind in its service shape and reports each service's documented refusal as its own fixed sentence", async () => {
    fake.addTelegramBot('555:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', ['42']);
    const made = async (payload: object) => (await create(payload)).json<TCreatedChannel>().id;
    const slack = await made({ kind: 'slack', name: 'Slack', url: `${fake.origin}/slack/team-a` });
    const slackGone = await made({ kind: 'slack', name: 'Old Slack', url: `${fake.origin}/slack/gone` });
    const discord = await made({ kind: 'discord', name: 'Discord', url: `${fake.origin}/discord/server-a` });
    const discordLimited = await made({ kind: 'discord', name: 'Busy Discord', url: `${fake.origin}/discord/limited` });
    const telegram = await made({ kind: 'telegram', name: 'Telegram', botToken: '555:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', chatId: '42' });
    const telegramNoChat = await made({ kind: 'telegram', name: 'Wrong chat', botToken: '555:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', chatId: '43' });
    const telegramBadToken = await made({ kind: 'telegram', name: 'Revoked bot', botToken: '556:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', chatId: '42' });

    expect((await sendTest(slack)).json()).toEqual({ status: 'sent' });
    expect(fake.receipts.at(-1)).toMatchObject({ kind: 'slack', verdict: 'ok', body: { text: expect.stringContaining('*Test message for Slack*'), blocks: [{ type: 'section' }] } });
    expect((await sendTest(discord)).json()).toEqual({ status: 'sent' });
    expect(fake.receipts.at(-1)).toMatchObject({ kind: 'discord', verdict: 'ok', body: { content: 'Test message for Discord', embeds: [{ title: 'Test message for Discord' }], allowed_mentions: { parse: [] } } });
    expect((await sendTest(telegram)).json()).toEqual({ status: 'sent' });
    expect(fake.receipts.at(-1)).toMatchObject({ kind: 'telegram', verdict: 'ok', body: { chat_id: '42', text: expect.stringContaining('Test message for Telegram') } });

    // Each reason the service documents has its own sentence saying what to do (issue 29: they
    // all read 'refused the message; check the channel's settings').
    expect((await sendTest(slackGone)).json()).toEqual({ status: 'failed', error: DELIVERY_FAILURES['slack-no-service'] });
    expect((await sendTest(discordLimited)).json()).toEqual({ status: 'failed', error: DELIVERY_FAILURES['rate-limited'] });
    expect((await sendTest(telegramNoChat)).json()).toEqual({ status: 'failed', error: DELIVERY_FAILURES['telegram-chat-not-found'] });
    expect((await sendTest(telegramBadToken)).json()).toEqual({ status: 'failed', error: DELIVERY_FAILURES['telegram-unauthorized'] });
  });

  it('refuses an unsafe or invalid address on its field, and stores nothing', async () => {
    const strict = await createTestApp({ env: { ADMIN_EMAILS: OWNER } });
    try {
      const cookie = await strict.signIn(OWNER, 'Owner');
      const refused = await strict.request({ method: 'POST', url: '/api/channels', cookie, payload: { kind: 'slack', name: 'Internal', url: 'https://10.0.0.8/hooks/x' } });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toEqual({ error: 'Invalid request', details: [{ path: 'url', message: OUTBOUND_FAILURES['forbidden-address'] }] });
      const plain = await strict.request({ method: 'POST', url: '/api/channels', cookie, payload: { kind: 'webhook', name: 'Plain', url: 'http://93.184.216.34/hook' } });
      expect(plain.json().details).toEqual([{ path: 'url', message: OUTBOUND_FAILURES['not-https'] }]);
      const token = await strict.request({ method: 'POST', url: '/api/channels', cookie, payload: { kind: 'telegram', name: 'Bot', botToken: 'not-a-token', chatId: '42' } });
      expect(token.json().details).toEqual([{ path: 'botToken', message: TELEGRAM_TOKEN_RULE }]);
      expect((await strict.request({ url: '/api/channels', cookie })).json()).toEqual({ channels: [] });
    } finally {
      await strict.close();
    }
  });

  it('refuses a message template that cannot render, on its field with the reason, and stores nothing (docs/decisions/0090)', async () => {
    const before = await list();
    const refused = async (template: string) => {
      const res = await create({ kind: 'webhook', name: 'Templated', url: `${fake.origin}/webhook/templated`, template });
      expect(res.statusCode).toBe(400);
      const { details } = res.json<{ details: Array<{ path: string; message: string }> }>();
      expect(details.map((d) => d.path)).toEqual(['template']);
      return details[0]!.message;
    };
    expect(await refused('{"text": "{{agent.nmae}}"}')).toMatch(/^Unknown placeholder \{\{agent\.nmae\}\}; use one of: /);
    expect(await refused('{"text": "{{title}}"')).toMatch(/^The template is not JSON once its placeholders are filled in/);
    expect(await refused('{"run": {{run.id}}}')).toMatch(/put each placeholder inside a JSON string/);
    expect(await refused('x'.repeat(8001))).toBe('The template must be at most 8,000 characters');
    expect(await list()).toEqual(before);
    // Only a webhook takes a template.
    expect((await create({ kind: 'slack', name: 'S', url: `${fake.origin}/slack/s`, template: '{}' })).statusCode).toBe(400);
  });

  it("keeps each owner's channels to themselves", async () => {
    const [mine] = await list();
    expect(await list(other)).toEqual([]);
    expect((await sendTest(mine!.id, other)).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `/api/channels/${mine!.id}`, cookie: other })).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `/api/channels/${mine!.id}`, cookie: owner })).statusCode).toBe(204);
    expect((await list()).map((c) => c.id)).not.toContain(mine!.id);
  });

  it('never logs a secret', () => {
    expect(lines.length).toBeGreaterThan(0);
    expect(leaks([{ label: 'log', text: lines.join('\n') }], secrets)).toEqual([]);
  });
});
