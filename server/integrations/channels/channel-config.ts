import { CHANNEL_KINDS, type TChannelKind } from '../../../contracts/channels.ts';

/** A channel's configuration as stored sealed: everything needed to send, secrets included. */
export type ChannelConfig =
  /** `template`: the body it posts instead of the standard one (docs/decisions/0090). */
  | { kind: 'webhook'; url: string; signingSecret: string; template?: string }
  | { kind: 'slack'; url: string }
  | { kind: 'discord'; url: string }
  | { kind: 'teams'; url: string }
  /** `movedFrom`: the chat id it was added with, when Telegram moved the group to a supergroup
   * and the channel adopted the new id (docs/decisions/0062). */
  | { kind: 'telegram'; botToken: string; chatId: string; movedFrom?: string };

/** The channel's user-supplied URL, which the outbound door checks; Telegram's host is fixed. */
export function channelUrl(config: ChannelConfig): string | null {
  return config.kind === 'telegram' ? null : config.url;
}

/**
 * What the API shows of a channel: enough to recognise it, never enough to use it. A URL
 * shows its host and the last 4 characters of its path ('hooks.slack.com/…/AbC1'); a Telegram
 * channel its chat and the bot's id (the part of the token before its secret).
 */
export function maskedTarget(config: ChannelConfig): string {
  if (config.kind === 'telegram') return `chat ${config.chatId} · bot ${config.botToken.split(':')[0]}`;
  const url = new URL(config.url);
  const path = url.pathname.replace(/\/+$/, '');
  return path.length > 1 ? `${url.host}/…/${path.slice(-4)}` : url.host;
}

export const isChannelKind = (kind: string): kind is TChannelKind => (CHANNEL_KINDS as readonly string[]).includes(kind);
