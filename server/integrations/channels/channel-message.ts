import { createHmac } from 'node:crypto';
import { WEBHOOK_SCHEMA_VERSION } from '../../../contracts/channels.ts';
import type { TRunAlert } from '../../../contracts/market.ts';
import type { ChannelConfig } from './channel-config.ts';

/** What a channel is told: a notification, or the 'Send test' message. */
export type ChannelMessage = {
  event: 'notification' | 'test';
  id: string;
  kind: string;
  agentId: string | null;
  agentName: string;
  runId: number | null;
  market: string | null;
  title: string;
  message: string;
  alerts: TRunAlert[];
  createdAt: Date;
  /** Where the owner reads it: the console. */
  link: string;
};

export type ChannelRequest = { url: string; headers: Record<string, string>; body: string };

// Each service's own limits on a message's text.
const SLACK_TEXT_MAX = 3000;
const DISCORD_CONTENT_MAX = 2000;
const DISCORD_TITLE_MAX = 256;
const DISCORD_DESCRIPTION_MAX = 4096;
const TELEGRAM_TEXT_MAX = 4096;

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

/** The generic webhook's body, schema version 1 (README: Webhook schema). Keys never change meaning. */
export function webhookBody(message: ChannelMessage): string {
  return JSON.stringify({
    version: WEBHOOK_SCHEMA_VERSION,
    event: message.event,
    notification: {
      id: message.id,
      kind: message.kind,
      agentId: message.agentId,
      agentName: message.agentName,
      runId: message.runId,
      market: message.market,
      title: message.title,
      message: message.message,
      alerts: message.alerts,
      createdAt: message.createdAt.toISOString(),
      link: message.link,
    },
  });
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`: the receiver checks both, and the time. */
export function webhookSignature(secret: string, body: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000);
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return `t=${t},v1=${v1}`;
}

/** Slack's mrkdwn treats &, < and > as markup; escaped, a message cannot ping or link. */
const slackEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The HTTP request each kind of channel takes, per each service's documented webhook/API. */
export function channelRequest(config: ChannelConfig, message: ChannelMessage, options: { telegramBaseUrl: string; now: Date }): ChannelRequest {
  const plain = `${message.title}\n${message.message}\n${message.link}`;
  switch (config.kind) {
    case 'webhook': {
      const body = webhookBody(message);
      return { url: config.url, headers: { ...JSON_HEADERS, 'x-signature': webhookSignature(config.signingSecret, body, options.now) }, body };
    }
    case 'slack': {
      const text = clip(`*${slackEscape(message.title)}*\n${slackEscape(message.message)}\n<${message.link}|Open the console>`, SLACK_TEXT_MAX);
      return { url: config.url, headers: JSON_HEADERS, body: JSON.stringify({ text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] }) };
    }
    case 'discord':
      return {
        url: config.url,
        headers: JSON_HEADERS,
        body: JSON.stringify({
          content: clip(message.title, DISCORD_CONTENT_MAX),
          embeds: [{ title: clip(message.title, DISCORD_TITLE_MAX), description: clip(message.message, DISCORD_DESCRIPTION_MAX), url: message.link, timestamp: message.createdAt.toISOString() }],
          // An agent's text must never ping @everyone or a role.
          allowed_mentions: { parse: [] },
        }),
      };
    case 'telegram':
      return {
        url: `${options.telegramBaseUrl}/bot${config.botToken}/sendMessage`,
        headers: JSON_HEADERS,
        // Plain text (no parse_mode): nothing in the message is taken as markup.
        body: JSON.stringify({ chat_id: config.chatId, text: clip(plain, TELEGRAM_TEXT_MAX), disable_web_page_preview: true }),
      };
  }
}
