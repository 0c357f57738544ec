import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate, type TAgent } from '../../../contracts/agents.ts';
import type { TCreatedChannel } from '../../../contracts/channels.ts';
import type { TNotification } from '../../../contracts/notifications.ts';
import { startChannelReceivers, type ChannelReceivers } from '../../../tests/fakes/channel-receivers.ts';
import { startSmtpCatcher, type SmtpCatcher } from '../../../tests/fakes/smtp-catcher.ts';
import { agents, alertStates, notifications } from '../../db/schema.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';

const OWNER = 'times-owner@example.com';
const HOUR = 60 * 60 * 1000;
const BOT_TOKEN = '777:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** An instant read at a fixed offset from UTC, worked out by hand (Tokyo is UTC+9 all year). */
function readAt(iso: string | number, offsetHours: number) {
  const shifted = new Date(new Date(iso).getTime() + offsetHours * HOUR);
  const clock = shifted.toISOString().slice(11, 16);
  return { clock, dateTime: `${MONTHS[shifted.getUTCMonth()]} ${shifted.getUTCDate()}, ${shifted.getUTCFullYear()} ${clock}` };
}

/**
 * Issue 29 item 7 (docs/decisions/0066): a sentence the server writes and stores (the alert storm
 * notice) and what it sends (the email, each channel's message) writes its times in the owner's
 * zone from Settings, else UTC, and always names the zone.
 */
describe('times in notices, emails and channel messages', () => {
  let t: TestApp;
  let catcher: SmtpCatcher;
  let receivers: ChannelReceivers;
  let owner: string;
  let ownerId: string;
  const queued: string[] = [];

  beforeAll(async () => {
    catcher = await startSmtpCatcher();
    receivers = await startChannelReceivers();
    receivers.addTelegramBot(BOT_TOKEN, ['42']);
    t = await createTestApp({
      env: {
        ADMIN_EMAILS: OWNER,
        SMTP_URL: catcher.url,
        MAIL_FROM: 'alerts@example.com',
        OUTBOUND_ALLOW_LOOPBACK: 'true',
        OUTBOUND_CA_FILE: receivers.caFile,
        TELEGRAM_BASE_URL: receivers.origin,
      },
      enqueueDelivery: async (id) => void queued.push(id),
    });
    owner = await t.signIn(OWNER, 'Owner');
    ownerId = (await t.request({ url: '/api/auth/me', cookie: owner })).json<{ user: { id: string } }>().user.id;
  });
  afterEach(async () => {
    catcher.reset();
    queued.splice(0);
    receivers.receipts.splice(0);
    await t.database.db.delete(notifications);
    await t.database.db.delete(alertStates);
    await t.database.db.delete(agents);
  });
  afterAll(async () => {
    await t?.close();
    await catcher?.close();
    await receivers?.close();
  });

  const setZone = async (timeZone: string | null) =>
    expect((await t.request({ method: 'PUT', url: '/api/settings', cookie: owner, payload: { alertEmail: null, timeZone } })).statusCode).toBe(200);
  const channel = async (payload: object) => (await t.request({ method: 'POST', url: '/api/channels', cookie: owner, payload })).json<TCreatedChannel>();

  /** An agent allowed one notification an hour, emailing and sending to Slack and Telegram; its
   * second alert is held, so the owner gets an alert storm notice. */
  async function storm(): Promise<{ first: TNotification; notice: TNotification }> {
    const slack = await channel({ kind: 'slack', name: 'Desk', url: `${receivers.origin}/slack/desk` });
    const telegram = await channel({ kind: 'telegram', name: 'Phone', botToken: BOT_TOKEN, chatId: '42' });
    const template = findTemplate('crypto-market-monitor')!;
    const base = defaultAgentConfig(template, 'America/New_York');
    const config = { ...base, notifications: { ...base.notifications, email: true, inApp: true, maxPerHour: 1, channels: [slack.id, telegram.id] } };
    const created = await t.request({ method: 'POST', url: '/api/agents', cookie: owner, payload: { templateId: template.id, name: 'Coins', config } });
    expect(created.statusCode, created.body).toBe(201);
    const agent = created.json<TAgent>();
    const alert = async (market: string) =>
      (
        await t.app.notifications.applyAlerts({
          userId: ownerId,
          agentId: agent.id,
          agentName: agent.name,
          runId: null,
          emailEnabled: true,
          inAppEnabled: true,
          channelIds: [slack.id, telegram.id],
          conditions: [{ market, thresholdType: 'priceChange', firing: true, value: 4, limit: 3, message: `${market} moved 4%` }],
        })
      ).created[0]!;
    const first = await alert('BTC/USDT on binance');
    const notice = await alert('ETH/USDT on binance');
    expect(notice.kind).toBe('alert-storm');
    return { first, notice };
  }

  /** Delivers what was queued and gives each channel's text of the storm notice. */
  async function sentTexts(): Promise<string[]> {
    for (const id of queued.splice(0)) await t.app.channels.deliver(id, 1);
    return receivers.receipts.filter((r) => r.kind === 'slack' || r.kind === 'telegram').map((r) => (r.body as { text: string }).text);
  }

  it("writes the notice, its email and its channel messages in the owner's zone, named", async () => {
    await setZone('Asia/Tokyo');
    const { first, notice } = await storm();
    const resumes = readAt(new Date(first.createdAt).getTime() + HOUR, 9);
    const since = readAt(notice.createdAt, 9);

    expect(notice.title).toBe(`Coins: alert storm, notifications paused until ${resumes.clock} GMT+9`);
    expect(notice.message).toContain(`Held back since ${since.clock} GMT+9: 1 alert on ETH/USDT on binance (Price change).`);
    expect(notice.message).toContain(`Notifications resume at ${resumes.clock} GMT+9.`);

    const emails = await catcher.waitForMessages(2);
    const email = emails.find((m) => m.subject === notice.title)!;
    expect(email.text).toContain(`Time:   ${since.dateTime} GMT+9 (Asia/Tokyo)\n`);
    // The first alert's email too: every email's time is the owner's, in SPEC's 24-hour format.
    expect(emails.find((m) => m.subject !== notice.title)!.text).toContain(`Time:   ${readAt(first.createdAt, 9).dateTime} GMT+9 (Asia/Tokyo)\n`);

    const texts = await sentTexts();
    const stormTexts = texts.filter((text) => text.includes('alert storm'));
    expect(stormTexts).toHaveLength(2);
    for (const text of stormTexts) {
      expect(text).toContain(`notifications paused until ${resumes.clock} GMT+9`);
      expect(text).toContain(`Notifications resume at ${resumes.clock} GMT+9.`);
    }
  });

  it('writes them in UTC, named, for an owner who chose no zone', async () => {
    await setZone(null);
    const { first, notice } = await storm();
    const resumes = readAt(new Date(first.createdAt).getTime() + HOUR, 0);
    expect(notice.title).toBe(`Coins: alert storm, notifications paused until ${resumes.clock} UTC`);
    const emails = await catcher.waitForMessages(2);
    expect(emails.find((m) => m.subject === notice.title)!.text).toContain(`Time:   ${readAt(notice.createdAt, 0).dateTime} UTC\n`);
    const texts = (await sentTexts()).filter((text) => text.includes('alert storm'));
    expect(texts.length).toBeGreaterThan(0);
    for (const text of texts) expect(text).toContain(`Notifications resume at ${resumes.clock} UTC.`);
  });
});
