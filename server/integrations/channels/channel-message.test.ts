import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { ZWebhookBody } from '../../../contracts/channels.ts';
import { notificationUrl } from '../../../contracts/links.ts';
import type { TAlertBrief } from '../../../contracts/notifications.ts';
import type { ChannelConfig } from './channel-config.ts';
import { channelRequest, discordEscape, type ChannelMessage } from './channel-message.ts';
import { templateProblem } from './webhook-template.ts';

const HOSTILE = 'BTC *rose* <!channel> [click](https://evil.example) @everyone & `code` > quote';
const ready: TAlertBrief = { status: 'ready', text: HOSTILE, provider: 'openai', model: 'gpt-4o', error: null };

const message = (overrides: Partial<ChannelMessage> = {}): ChannelMessage => ({
  deliveryId: 'd1',
  event: 'notification',
  id: 'n1',
  kind: 'alerts',
  agentId: 'a1',
  agentName: 'Coins',
  runId: 7,
  market: 'BTC/USDT on binance',
  title: 'Coins: Price change alert on BTC/USDT on binance',
  message: 'Price change above 0.1% (BTC/USDT on binance: 0.59% > 0.1%)',
  alerts: [],
  conditions: [],
  createdAt: new Date('2026-11-27T10:00:00.000Z'),
  link: notificationUrl('https://site.example', { agentId: 'a1', runId: 7 }),
  brief: null,
  ...overrides,
});

const CONFIGS: Record<ChannelConfig['kind'], ChannelConfig> = {
  webhook: { kind: 'webhook', url: 'https://hooks.example/x', signingSecret: 'whsec_test' },
  slack: { kind: 'slack', url: 'https://hooks.slack.com/services/x' },
  discord: { kind: 'discord', url: 'https://discord.com/api/webhooks/1/x' },
  telegram: { kind: 'telegram', botToken: '123:abc', chatId: '42' },
  teams: { kind: 'teams', url: 'https://prod-00.westus.logic.azure.com/workflows/x/triggers/manual/paths/invoke' },
};
const body = (kind: ChannelConfig['kind'], m: ChannelMessage) => JSON.parse(channelRequest(CONFIGS[kind], m, { telegramBaseUrl: 'https://api.telegram.org', now: new Date() }).body) as Record<string, unknown>;

describe('a brief in each channel (docs/decisions/0044)', () => {
  it('webhook: the notification carries its brief object as it stood, null when none', () => {
    expect(body('webhook', message())).toMatchObject({ version: 1, event: 'notification', notification: { id: 'n1', brief: null } });
    const pending: TAlertBrief = { ...ready, status: 'pending', text: null };
    expect(body('webhook', message({ brief: pending }))).toMatchObject({ notification: { brief: pending } });
    expect(body('webhook', message({ event: 'notification.brief', brief: ready }))).toMatchObject({ event: 'notification.brief', notification: { id: 'n1', brief: ready } });
  });

  it("slack: the assistant's words in a plain_text block, attributed; the fallback text escaped", () => {
    const sent = body('slack', message({ brief: ready })) as { text: string; blocks: Array<{ text: { type: string; text: string } }> };
    expect(sent.blocks.map((b) => b.text.type)).toEqual(['mrkdwn', 'plain_text', 'mrkdwn']);
    expect(sent.blocks[1]!.text.text).toBe(`Brief by GPT (GPT-4o): ${HOSTILE}`);
    expect(sent.text).not.toContain('<!channel>');
    expect(sent.text).toContain('&lt;!channel&gt;');
    // Without a brief, the message is as before: one block.
    expect((body('slack', message()) as { blocks: unknown[] }).blocks).toHaveLength(1);
  });

  it('discord: the brief in its own embed with every markdown character escaped, no mentions', () => {
    const sent = body('discord', message({ brief: ready })) as { embeds: Array<{ title: string; description: string; footer?: { text: string } }>; allowed_mentions: unknown };
    expect(sent.embeds).toHaveLength(2);
    expect(sent.embeds[1]).toMatchObject({ title: 'Brief', description: discordEscape(HOSTILE), footer: { text: 'Brief by GPT (GPT-4o)' } });
    expect(sent.embeds[1]!.description).toContain('\\*rose\\*');
    expect(sent.embeds[1]!.description).toContain('\\[click\\]\\(https\\://evil.example\\)');
    expect(sent.allowed_mentions).toEqual({ parse: [] });
  });

  it('telegram: plain text without a parse mode, the brief after the alert', () => {
    const sent = body('telegram', message({ brief: ready })) as { text: string; parse_mode?: string };
    expect(sent.parse_mode).toBeUndefined();
    expect(sent.text).toBe(`Coins: Price change alert on BTC/USDT on binance\nPrice change above 0.1% (BTC/USDT on binance: 0.59% > 0.1%)\nBrief by GPT (GPT-4o):\n${HOSTILE}\nhttps://site.example/agents-console?agent=a1&run=7`);
  });

  it("the follow-up names the alert it explains, and carries no other text", () => {
    const followUp = message({ event: 'notification.brief', brief: ready });
    expect((body('telegram', followUp) as { text: string }).text).toBe(`Brief: Coins: Price change alert on BTC/USDT on binance\nBrief by GPT (GPT-4o):\n${HOSTILE}\nhttps://site.example/agents-console?agent=a1&run=7`);
    expect(body('discord', followUp)).toMatchObject({ content: 'Brief: Coins: Price change alert on BTC/USDT on binance', embeds: [{ title: 'Brief: Coins: Price change alert on BTC/USDT on binance' }] });
    expect((body('slack', followUp) as { text: string }).text).toMatch(/^\*Brief: Coins: Price change alert on BTC\/USDT on binance\*\n_Brief by GPT/);
  });

  it('a brief not written (pending or failed) adds no text to the human channels', () => {
    const failed: TAlertBrief = { ...ready, status: 'failed', text: null, error: 'GPT is unavailable right now' };
    expect((body('telegram', message({ brief: failed })) as { text: string }).text).not.toContain('Brief');
    expect((body('discord', message({ brief: failed })) as { embeds: unknown[] }).embeds).toHaveLength(1);
  });
});

describe("the owner's conditions in each channel (issue 30)", () => {
  const text = 'AAPL: RSI (14) on 1 hour crossed below 30 (29.4, before 31.2)';
  const conditions = [{ conditionId: 'c1', market: 'AAPL', title: 'RSI (14) on 1 hour crosses below 30', text }];
  const met = message({ title: 'Watch: RSI (14) on 1 hour crosses below 30 on AAPL', message: text, market: 'AAPL', conditions });

  it('webhook: the body validates against ZWebhookBody, version 1, with `conditions` and every field as before', () => {
    const sent = ZWebhookBody.parse(body('webhook', met));
    expect(sent.version).toBe(1);
    expect(sent.notification.conditions).toEqual(conditions);
    expect(ZWebhookBody.parse(body('webhook', message())).notification.conditions).toEqual([]);
  });

  it('slack, discord and telegram: the plain words with their values', () => {
    expect((body('slack', met) as { text: string }).text).toContain(text);
    expect((body('discord', met) as { embeds: Array<{ description: string }> }).embeds[0]!.description).toBe(text);
    expect((body('telegram', met) as { text: string }).text).toContain(text);
  });
});

describe('Standard Webhooks headers (docs/decisions/0090)', () => {
  const now = new Date();
  const send = (signingSecret: string, m = message()) => channelRequest({ kind: 'webhook', url: 'https://hooks.example/x', signingSecret }, m, { telegramBaseUrl: '', now });

  it('signs id.timestamp.body so the standardwebhooks library verifies it, beside X-Signature', () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const { headers, body: sent } = send(secret);
    expect(headers).toMatchObject({ 'webhook-id': 'msg_d1', 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)) });
    expect(headers['x-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(new Webhook(secret).verify(sent, headers)).toMatchObject({ version: 1 });
    // Another secret does not verify it.
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 8).toString('base64')}`).verify(sent, headers)).toThrow('No matching signature found');
  });

  it("keys a secret made before the standard form (base64url) with the same bytes: its base64 form verifies", () => {
    const bytes = Buffer.from([...Array(32).keys()].map((i) => 250 - i * 3));
    const old = `whsec_${bytes.toString('base64url')}`;
    expect(old).toMatch(/[-_]/);
    const { headers, body: sent } = send(old);
    expect(() => new Webhook(old).verify(sent, headers)).toThrow();
    expect(new Webhook(`whsec_${bytes.toString('base64')}`).verify(sent, headers)).toMatchObject({ version: 1 });
  });
});

describe('message templates (docs/decisions/0090)', () => {
  const config = (template: string): ChannelConfig => ({ kind: 'webhook', url: 'https://hooks.example/x', signingSecret: 'whsec_dGVzdA==', template });
  const hostile = message({ agentName: 'Say "hi"\\ {{market}}', alerts: [{ market: 'BTC', threshold: 'priceChange', value: 1, limit: 0.1, message: 'BTC "up"\nline' }], brief: ready });

  it('fills each placeholder JSON-escaped, so no value ends its string or adds a key', () => {
    const template = '{"topic":"alerts","title":"{{agent.name}} on {{market}}","message":"{{alerts}}","click":"{{link}}","brief":"{{brief}}","run":"{{run.id}}","x":"{{ title }}"}';
    const sent = JSON.parse(channelRequest(config(template), hostile, { telegramBaseUrl: '', now: new Date() }).body) as Record<string, string>;
    expect(sent).toEqual({
      topic: 'alerts',
      title: 'Say "hi"\\ {{market}} on BTC/USDT on binance',
      message: 'BTC "up"\nline',
      click: hostile.link,
      brief: HOSTILE,
      run: '7',
      x: hostile.title,
    });
  });

  it('refuses an unknown placeholder, naming it and the known ones', () => {
    expect(templateProblem('{"text":"{{agent.nmae}}"}')).toMatch(/^Unknown placeholder \{\{agent\.nmae\}\}; use one of: \{\{agent\.name\}\}/);
  });

  it('refuses a body that is not JSON once filled in, a placeholder outside a string included', () => {
    expect(templateProblem('{"text": "{{title}}"')).toMatch(/^The template is not JSON once its placeholders are filled in/);
    expect(templateProblem('{"run": {{run.id}}}')).toMatch(/put each placeholder inside a JSON string/);
    expect(templateProblem('{"text": "{{title}}: {{alerts}}"}')).toBeNull();
  });
});

describe('Microsoft Teams (docs/decisions/0090)', () => {
  it('posts a message with one Adaptive Card 1.4: title, text, facts, the brief and a link', () => {
    const alerts = [{ market: 'BTC/USDT on binance', threshold: 'priceChange', value: 0.59, limit: 0.1, message: 'Price change above 0.1%' }];
    const sent = body('teams', message({ alerts, brief: ready })) as { type: string; attachments: Array<{ contentType: string; content: { type: string; version: string; body: Array<Record<string, unknown>>; actions: unknown[] } }> };
    expect(sent.type).toBe('message');
    expect(sent.attachments).toHaveLength(1);
    const card = sent.attachments[0]!;
    expect(card.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(card.content).toMatchObject({ type: 'AdaptiveCard', version: '1.4' });
    expect(card.content.body.map((b) => b.type)).toEqual(['TextBlock', 'TextBlock', 'FactSet', 'TextBlock', 'RichTextBlock']);
    expect(card.content.body[2]).toEqual({
      type: 'FactSet',
      facts: [
        { title: 'Agent', value: 'Coins' },
        { title: 'Market', value: 'BTC/USDT on binance' },
        { title: 'BTC/USDT on binance', value: 'Price change above 0.1%' },
        { title: 'Time', value: '2026-11-27T10:00:00.000Z' },
      ],
    });
    // The assistant's words in a TextRun, which Teams shows as they are (a TextBlock renders markdown).
    expect(card.content.body[4]).toEqual({ type: 'RichTextBlock', inlines: [{ type: 'TextRun', text: HOSTILE }] });
    expect(card.content.actions).toEqual([{ type: 'Action.OpenUrl', title: 'Open the console', url: 'https://site.example/agents-console?agent=a1&run=7' }]);
  });
});
