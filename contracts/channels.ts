import { z } from 'zod';

/**
 * Delivery channels (docs/decisions/0043): where an agent's notifications go besides the bell
 * and email. Configured per user at Settings, chosen per agent. Their secrets (webhook URLs, the
 * bot token, the signing secret) are stored encrypted and never sent back after saving: the API
 * answers a channel with a masked `target` only.
 */
export const CHANNEL_KINDS = ['webhook', 'slack', 'discord', 'telegram'] as const;
export type TChannelKind = (typeof CHANNEL_KINDS)[number];

export const CHANNEL_KIND_LABELS: Record<TChannelKind, string> = {
  webhook: 'Webhook',
  slack: 'Slack',
  discord: 'Discord',
  telegram: 'Telegram',
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

export const ZCreateChannel = z.discriminatedUnion(
  'kind',
  [
    z.object({ kind: z.literal('webhook'), name: ZChannelName, url: ZWebAddress }).strict(),
    z.object({ kind: z.literal('slack'), name: ZChannelName, url: ZWebAddress }).strict(),
    z.object({ kind: z.literal('discord'), name: ZChannelName, url: ZWebAddress }).strict(),
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
  createdAt: string;
};

/** POST /api/channels: the channel, and for a webhook its signing secret, shown this once only. */
export type TCreatedChannel = TChannel & { signingSecret?: string };

export type TChannelList = { channels: TChannel[] };

export const DELIVERY_STATUSES = ['pending', 'sent', 'failed'] as const;
export type TDeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Why a delivery failed, beyond the outbound door's own sentences (contracts/outbound.ts). */
export const DELIVERY_FAILURES = {
  gone: 'The receiver says this address does not exist; check it, or remove the channel and add it again.',
  unauthorized: 'The receiver refused the credentials; check the token or address.',
  refused: "The receiver refused the message; check the channel's settings.",
  'rate-limited': 'The receiver is limiting requests; the delivery is retried later.',
  'receiver-error': 'The receiver had an error; the delivery is retried later.',
  'secret-unreadable': "The channel's secret could not be read (the key changed); remove the channel and add it again.",
  'channel-removed': 'The channel was removed before the delivery.',
  'queue-failed': 'The delivery could not be queued.',
} as const satisfies Record<string, string>;
export type TDeliveryFailure = keyof typeof DELIVERY_FAILURES;

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

/** The version of the generic webhook's JSON body (README: Webhook schema). */
export const WEBHOOK_SCHEMA_VERSION = 1;
