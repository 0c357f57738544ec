import { z } from 'zod';
import { ZNotifiedCondition } from './condition-outcomes.ts';
import { ZRunAlert } from './market.ts';

/**
 * Delivery channels (docs/decisions/0043): where an agent's notifications go besides the bell
 * and email. Configured per user at Settings, chosen per agent. Their secrets (webhook URLs, the
 * bot token, the signing secret) are stored encrypted and never sent back after saving: the API
 * answers a channel with a masked `target` only.
 */
export const CHANNEL_KINDS = ['webhook', 'slack', 'discord', 'telegram', 'teams'] as const;
export type TChannelKind = (typeof CHANNEL_KINDS)[number];

export const CHANNEL_KIND_LABELS: Record<TChannelKind, string> = {
  webhook: 'Webhook',
  slack: 'Slack',
  discord: 'Discord',
  telegram: 'Telegram',
  teams: 'Microsoft Teams',
};

/** The rule an agent's channel choice follows: only its owner's channels. */
export const CHANNEL_CHOICE_RULE = 'Each channel must be one of your channels';

/** At most this many channels per user. */
export const MAX_CHANNELS = 20;

const ZChannelName = z.string().trim().min(1, 'Enter a name for this channel').max(60, 'The name must be at most 60 characters');
const ZWebAddress = z.string().trim().min(1, 'Enter the web address').max(2048, 'The address must be at most 2,048 characters');

/** Telegram's bot token as BotFather gives it: the bot's id, a colon, then its secret. */
export const TELEGRAM_TOKEN_RULE = 'Enter the token BotFather gave you, like 123456789:AAF…';
export const TELEGRAM_CHAT_RULE = 'Enter a chat id (a number, negative for groups) or a channel name like @my_channel';

/**
 * A webhook channel's message template (docs/decisions/0090): the body it posts, JSON once its
 * placeholders are filled in, each value JSON-escaped so it belongs inside a JSON string
 * (`"text": "{{agent.name}}: {{title}}"`). Without one, the body is the schema below (version 1).
 */
export const WEBHOOK_TEMPLATE_PLACEHOLDERS = {
  'agent.name': "The agent's name",
  'agent.id': "The agent's id (empty for a test)",
  market: 'The market the notification is about (empty when none)',
  title: "The notification's title",
  message: "The notification's text",
  alerts: "The alerts' sentences, one a line",
  brief: "The assistant's brief, when written (else empty)",
  link: 'Where the notification opens in the console',
  event: "notification, notification.brief or test",
  'notification.id': "The notification's id",
  'run.id': "The run's number (empty when none)",
  created_at: 'When the notification was made (ISO 8601, UTC)',
} as const satisfies Record<string, string>;
export type TWebhookTemplatePlaceholder = keyof typeof WEBHOOK_TEMPLATE_PLACEHOLDERS;

/** The longest template, in characters. */
export const WEBHOOK_TEMPLATE_MAX = 8000;

export const ZCreateChannel = z.discriminatedUnion(
  'kind',
  [
    z
      .object({
        kind: z.literal('webhook'),
        name: ZChannelName,
        url: ZWebAddress,
        /** Empty or absent: the standard body (docs/reference/webhooks.md: Webhook schema). Checked to render by the service. */
        template: z.string().trim().max(WEBHOOK_TEMPLATE_MAX, `The template must be at most ${WEBHOOK_TEMPLATE_MAX.toLocaleString('en-US')} characters`).optional(),
      })
      .strict(),
    z.object({ kind: z.literal('slack'), name: ZChannelName, url: ZWebAddress }).strict(),
    z.object({ kind: z.literal('discord'), name: ZChannelName, url: ZWebAddress }).strict(),
    z.object({ kind: z.literal('teams'), name: ZChannelName, url: ZWebAddress }).strict(),
    z
      .object({
        kind: z.literal('telegram'),
        name: ZChannelName,
        botToken: z.string().trim().regex(/^\d{1,20}:[A-Za-z0-9_-]{20,100}$/, TELEGRAM_TOKEN_RULE),
        chatId: z.string().trim().regex(/^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{4,31})$/, TELEGRAM_CHAT_RULE),
      })
      .strict(),
  ],
  { error: (issue) => (issue.code === 'invalid_union' ? `Kind must be one of: ${CHANNEL_KINDS.join(', ')}` : undefined) },
);
export type TCreateChannel = z.input<typeof ZCreateChannel>;

export const ZChannelIdParams = z.object({ id: z.uuid('Channel id must be a UUID') });

/** One channel as the API answers it: never its secrets. */
export type TChannel = {
  id: string;
  kind: TChannelKind;
  name: string;
  /** A masked hint of where it goes, e.g. 'hooks.slack.com/…/AbC1' or 'chat -1001234 · bot 1234…'. */
  target: string;
  /** Telegram: the chat id the channel was added with, when Telegram said the group became a
   * supergroup with a new id and the channel adopted it (channelMovedNote); else null. */
  movedFrom: string | null;
  createdAt: string;
};

/** What the channel list says of a Telegram channel that adopted its group's new chat id. */
export const channelMovedNote = (movedFrom: string) =>
  `This Telegram group became a supergroup, so its chat id changed from ${movedFrom}; messages now go to the new id (shown above).`;

/** POST /api/channels: the channel, and for a webhook its signing secret, shown this once only. */
export type TCreatedChannel = TChannel & { signingSecret?: string };

export type TChannelList = { channels: TChannel[] };

export const DELIVERY_STATUSES = ['pending', 'sent', 'failed'] as const;
export type TDeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * Why a delivery failed, beyond the outbound door's own sentences (contracts/outbound.ts). A
 * reason the receiver documents (Slack's short codes, Discord's JSON error codes, Telegram's
 * descriptions) has its own sentence, naming it and saying what to do (docs/decisions/0062); the
 * first five are for anything else.
 */
export const DELIVERY_FAILURES = {
  gone: 'The receiver says this address does not exist; check it, or remove the channel and add it again.',
  unauthorized: 'The receiver refused the credentials; check the token or address.',
  refused: "The receiver refused the message; check the channel's settings.",
  'rate-limited': 'The receiver is limiting requests; the delivery is retried later.',
  'receiver-error': 'The receiver had an error; the delivery is retried later.',
  'wait-too-long': 'The receiver asked to be sent nothing for more than an hour, so this message was not delivered; send a test later to check the channel.',
  'slack-invalid-payload': "Slack could not read the message (invalid_payload); send a test from Settings, and if it fails too, tell the site's administrator.",
  'slack-action-prohibited': "Slack's workspace settings do not let this webhook post there (action_prohibited); ask a Slack admin to allow it, or add a webhook for another channel.",
  'slack-channel-not-found': "Slack cannot find the webhook's channel (channel_not_found); create an incoming webhook for an existing channel, then remove this channel and add it with the new address.",
  'slack-no-service': 'Slack says this webhook was disabled or removed (no_service); create a new incoming webhook in Slack, then remove this channel and add it with the new address.',
  'slack-channel-archived': 'The Slack channel is archived (channel_is_archived); unarchive it in Slack, or remove this channel and add a webhook for another one.',
  'discord-unknown-webhook': "Discord says this webhook no longer exists (Unknown Webhook); create a new webhook in the Discord channel's Integrations settings, then remove this channel and add it with the new address.",
  'discord-invalid-token': "Discord refused the webhook's token (Invalid Webhook Token); copy the webhook address again from Discord, then remove this channel and add it with that address.",
  'telegram-unauthorized': 'Telegram refused the bot token (Unauthorized); get the token again from BotFather, then remove this channel and add it with the new token.',
  'telegram-blocked': "The Telegram user blocked the bot ('bot was blocked by the user'); unblock it in Telegram (open the bot's chat and press Restart), then send a test.",
  'telegram-chat-not-found': "Telegram cannot find this chat for the bot ('chat not found'); add the bot to the group or press Start in the bot's chat, and if the chat id is wrong, remove this channel and add it with the right one.",
  'telegram-kicked': "The bot was removed from the Telegram group ('bot was kicked'); add it to the group again, then send a test.",
  'telegram-not-member': "The bot is not a member of the Telegram channel ('bot is not a member'); add it to the channel as an administrator who may post messages, then send a test.",
  'telegram-start-needed': "The bot may not write first to this Telegram user ('bot can't initiate conversation'); open the bot's chat in Telegram and press Start, then send a test.",
  'telegram-chat-deleted': "The Telegram group was deleted ('the group chat was deleted'); remove this channel, or add one for another chat.",
  'telegram-user-deactivated': "This Telegram account was deleted ('user is deactivated'); remove this channel, or add one for another chat.",
  'secret-unreadable': "The channel's secret could not be read (the key changed); remove the channel and add it again.",
  'channel-removed': 'The channel was removed before the delivery.',
  'queue-failed': 'The delivery could not be queued.',
} as const satisfies Record<string, string>;
export type TDeliveryFailure = keyof typeof DELIVERY_FAILURES;

/** The longest wait a receiver may ask for before the next attempt (Retry-After, Discord's and
 * Telegram's retry_after): the delivery waits that long; asked more, it fails with 'wait-too-long'. */
export const CHANNEL_MAX_WAIT_SECONDS = 3600;

/** What a delivery carries: the notification itself, or the follow-up with its brief when the
 * brief came after the notification went out (docs/decisions/0044). The webhook's `event`. */
export const DELIVERY_EVENTS = ['notification', 'notification.brief'] as const;
export type TDeliveryEvent = (typeof DELIVERY_EVENTS)[number];

/** One channel's delivery of one notification, as shown on the notification. */
export const ZChannelDelivery = z.object({
  channelId: z.string().nullable(),
  event: z.enum(DELIVERY_EVENTS),
  kind: z.enum(CHANNEL_KINDS),
  channelName: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  /** A fixed sentence (contracts/outbound.ts or DELIVERY_FAILURES); null without a failure. */
  lastError: z.string().nullable(),
});
export type TChannelDelivery = z.infer<typeof ZChannelDelivery>;

/** POST /api/channels/:id/test: one attempt, at once. */
export type TChannelTestResult = { status: 'sent' } | { status: 'failed'; error: string };

/** The version of the generic webhook's JSON body (docs/reference/webhooks.md: Webhook schema). */
export const WEBHOOK_SCHEMA_VERSION = 1;

/**
 * The generic webhook's JSON body, version 1 (docs/reference/webhooks.md: Webhook schema). Fields are only ever
 * added within a version, never renamed: `conditions` came with issue 30 (the owner's conditions
 * the notification tells of, in plain words; empty otherwise).
 */
export const ZWebhookBody = z.object({
  version: z.literal(WEBHOOK_SCHEMA_VERSION),
  event: z.enum([...DELIVERY_EVENTS, 'test']),
  notification: z.object({
    id: z.string(),
    kind: z.string(),
    agentId: z.string().nullable(),
    agentName: z.string(),
    runId: z.number().int().nullable(),
    market: z.string().nullable(),
    title: z.string(),
    message: z.string(),
    alerts: z.array(ZRunAlert),
    conditions: z.array(ZNotifiedCondition),
    createdAt: z.string(),
    link: z.string(),
    /** The brief (contracts/notifications.ts ZAlertBrief) or null. */
    brief: z.object({ status: z.string(), text: z.string().nullable(), provider: z.string(), model: z.string(), error: z.string().nullable() }).nullable(),
  }),
});
export type TWebhookBody = z.infer<typeof ZWebhookBody>;
