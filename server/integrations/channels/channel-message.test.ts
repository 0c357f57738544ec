import { describe, expect, it } from 'vitest';
import { ZWebhookBody } from '../../../contracts/channels.ts';
import { notificationUrl } from '../../../contracts/links.ts';
import type { TAlertBrief } from '../../../contracts/notifications.ts';
import type { ChannelConfig } from './channel-config.ts';
import { channelRequest, discordEscape, type ChannelMessage } from './channel-message.ts';

const HOSTILE = 'BTC *rose* <!channel> [click](https://evil.example) @everyone & `code` > quote';
const ready: TAlertBrief = { status: 'ready', text: HOSTILE, provider: 'openai', model: 'gpt-4o', error: null };

const message = (overrides: Partial<ChannelMessage> = {}): ChannelMessage => ({
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
