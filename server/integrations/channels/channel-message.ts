import { createHmac } from 'node:crypto';
import { WEBHOOK_SCHEMA_VERSION, type TDeliveryEvent, type TWebhookBody } from '../../../contracts/channels.ts';
import type { TNotifiedCondition } from '../../../contracts/condition-outcomes.ts';
import type { TRunAlert } from '../../../contracts/market.ts';
import { briefAttribution, type TAlertBrief } from '../../../contracts/notifications.ts';
import type { ChannelConfig } from './channel-config.ts';
import { teamsMessage } from './teams-card.ts';
import { renderTemplate, type TemplateValues } from './webhook-template.ts';

/** What a channel is told: a notification, the follow-up with its brief (docs/decisions/0044), or
 * the 'Send test' message. */
export type ChannelMessage = {
  /** The delivery's id, the same at every attempt: a webhook's `webhook-id`, by which a receiver
   * knows a retry from a new message (a fresh one for each 'Send test'). */
  deliveryId: string;
  event: TDeliveryEvent | 'test';
  id: string;
  kind: string;
  agentId: string | null;
  agentName: string;
  runId: number | null;
  market: string | null;
  title: string;
  message: string;
  alerts: TRunAlert[];
  /** The owner's conditions it tells of, in plain words (issue 30); their sentences are in `message` too. */
  conditions: TNotifiedCondition[];
  createdAt: Date;
  /** Where the owner reads it: the agent's details at the run, or the console (contracts/links.ts). */
  link: string;
  /** The notification's brief as it stood when it was sent (null: none). An assistant's text:
   * plain text in every channel, escaped for each one's markup. */
  brief: TAlertBrief | null;
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

/** The generic webhook's body, schema version 1 (docs/reference/webhooks.md: Webhook schema). Keys never change meaning. */
export function webhookBody(message: ChannelMessage): string {
  const body: TWebhookBody = {
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
      conditions: message.conditions,
      createdAt: message.createdAt.toISOString(),
      link: message.link,
      brief: message.brief,
    },
  };
  return JSON.stringify(body);
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`: the receiver checks both, and the time. */
export function webhookSignature(secret: string, body: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000);
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return `t=${t},v1=${v1}`;
}

/**
 * The Standard Webhooks headers (standardwebhooks.com): `webhook-id` (the delivery's, kept on
 * every retry), `webhook-timestamp` (the attempt's unix seconds) and `webhook-signature`:
 * `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` keyed with the bytes the `whsec_`
 * secret's base64 holds. A secret made before the standard form holds base64url (docs/decisions/0090):
 * the same bytes, so its receivers verify with the same secret in base64 (docs/reference/webhooks.md).
 */
export function standardWebhookHeaders(secret: string, deliveryId: string, body: string, at: Date): Record<string, string> {
  const id = `msg_${deliveryId}`;
  const timestamp = String(Math.floor(at.getTime() / 1000));
  // Node's base64 decoder reads the url-safe alphabet too, so both forms give the same key.
  const key = Buffer.from(secret.startsWith(SIGNING_SECRET_PREFIX) ? secret.slice(SIGNING_SECRET_PREFIX.length) : secret, 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}

/** The Standard Webhooks secret's prefix; what follows is base64 of 32 random bytes. */
export const SIGNING_SECRET_PREFIX = 'whsec_';

/** The values a webhook's template fills in (contracts' WEBHOOK_TEMPLATE_PLACEHOLDERS). */
export function templateValuesOf(message: ChannelMessage): TemplateValues {
  const brief = writtenBrief(message);
  return {
    'agent.name': message.agentName,
    'agent.id': message.agentId ?? '',
    market: message.market ?? '',
    title: message.title,
    message: message.message,
    alerts: message.alerts.map((a) => a.message).join('\n'),
    brief: brief?.text ?? '',
    link: message.link,
    event: message.event,
    'notification.id': message.id,
    'run.id': message.runId === null ? '' : String(message.runId),
    created_at: message.createdAt.toISOString(),
  };
}

/** Slack's mrkdwn treats &, < and > as markup; escaped, a message cannot ping or link. */
const slackEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * Discord renders markdown (emphasis, headings, masked links, spoilers) in content and embeds;
 * a backslash before any markdown character shows it as itself (mentions are off anyway).
 */
export const discordEscape = (text: string) => text.replace(/[\\*_~`|>#\-[\]()<:@!]/g, (c) => `\\${c}`);

/** A written brief and who wrote it, when the message carries one. */
function writtenBrief(message: ChannelMessage): { text: string; by: string } | null {
  const { brief } = message;
  return brief?.status === 'ready' && brief.text ? { text: brief.text, by: briefAttribution(brief) } : null;
}

/** The HTTP request each kind of channel takes, per each service's documented webhook/API. */
export function channelRequest(config: ChannelConfig, message: ChannelMessage, options: { telegramBaseUrl: string; now: Date }): ChannelRequest {
  const brief = writtenBrief(message);
  // The follow-up names the alert it explains; the notification carries its brief, if written, after its own text.
  const followUp = message.event === 'notification.brief';
  const title = followUp ? `Brief: ${message.title}` : message.title;
  const body = followUp ? '' : message.message;
  const plain = [title, body, ...(brief ? [`${brief.by}:`, brief.text] : []), message.link].filter((line) => line !== '').join('\n');
  switch (config.kind) {
    case 'webhook': {
      const json = config.template ? renderTemplate(config.template, templateValuesOf(message)) : webhookBody(message);
      const headers = { ...JSON_HEADERS, 'x-signature': webhookSignature(config.signingSecret, json, options.now), ...standardWebhookHeaders(config.signingSecret, message.deliveryId, json, options.now) };
      return { url: config.url, headers, body: json };
    }
    case 'teams': {
      const facts = [
        { title: 'Agent', value: message.agentName },
        ...(message.market ? [{ title: 'Market', value: message.market }] : []),
        ...message.alerts.map((a) => ({ title: a.market, value: a.message })),
        { title: 'Time', value: message.createdAt.toISOString() },
      ];
      return { url: config.url, headers: JSON_HEADERS, body: JSON.stringify(teamsMessage({ title, text: body, facts, brief, link: message.link })) };
    }
    case 'slack': {
      const lines = [`*${slackEscape(title)}*`, ...(body ? [slackEscape(body)] : []), ...(brief ? [`_${slackEscape(brief.by)}:_ ${slackEscape(brief.text)}`] : []), `<${message.link}|Open the console>`];
      const text = clip(lines.join('\n'), SLACK_TEXT_MAX);
      // The brief in a plain_text block of its own: Slack shows the assistant's words as they are, never as markup.
      const blocks = brief
        ? [
            { type: 'section', text: { type: 'mrkdwn', text: clip([`*${slackEscape(title)}*`, ...(body ? [slackEscape(body)] : [])].join('\n'), SLACK_TEXT_MAX) } },
            { type: 'section', text: { type: 'plain_text', text: clip(`${brief.by}: ${brief.text}`, SLACK_TEXT_MAX), emoji: false } },
            { type: 'section', text: { type: 'mrkdwn', text: `<${message.link}|Open the console>` } },
          ]
        : [{ type: 'section', text: { type: 'mrkdwn', text } }];
      return { url: config.url, headers: JSON_HEADERS, body: JSON.stringify({ text, blocks }) };
    }
    case 'discord':
      return {
        url: config.url,
        headers: JSON_HEADERS,
        body: JSON.stringify({
          content: clip(title, DISCORD_CONTENT_MAX),
          embeds: [
            ...(followUp ? [] : [{ title: clip(message.title, DISCORD_TITLE_MAX), description: clip(body, DISCORD_DESCRIPTION_MAX), url: message.link, timestamp: message.createdAt.toISOString() }]),
            ...(brief ? [{ title: clip(followUp ? title : 'Brief', DISCORD_TITLE_MAX), description: clip(discordEscape(brief.text), DISCORD_DESCRIPTION_MAX), footer: { text: brief.by }, url: message.link }] : []),
          ],
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
