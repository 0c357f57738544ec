import { DELIVERY_FAILURES, type TDeliveryFailure } from '../../../contracts/channels.ts';
import { OutboundError } from '../outbound/outbound-error.ts';
import { sendOutbound, type OutboundOptions, type OutboundResponse } from '../outbound/send-outbound.ts';
import type { ChannelConfig } from './channel-config.ts';
import { channelRequest, type ChannelMessage } from './channel-message.ts';

export type ChannelSendOptions = OutboundOptions & { telegramBaseUrl: string; now: () => Date };

/** What the log may hold about a failed attempt: the receiver's status and short code, or the outbound door's kind. */
export type ChannelFailureDetail = { status?: number; code?: string; kind?: string };

/**
 * How one attempt ended: sent, or failed with a fixed sentence for the user and whether a later
 * attempt may succeed, with how long the receiver asked us to wait first (seconds; absent when it
 * did not say). `movedTo`: Telegram says the chat is now this one (a group that became a
 * supergroup); the same message sent there may succeed. `detail` is for the log only.
 */
export type ChannelOutcome =
  | { ok: true }
  | { ok: false; error: string; retryable: boolean; retryAfterSeconds?: number; movedTo?: string; detail: ChannelFailureDetail };

/**
 * Each service's documented reasons for refusing a message, by its own words, each with its own
 * sentence (contracts/channels.ts). Slack answers an incoming webhook with a short code as plain
 * text (api.slack.com, "Improving error conditions for Incoming Webhooks", and no_service for a
 * disabled or removed webhook); Discord with a JSON error code (10015 Unknown Webhook, 50027
 * Invalid Webhook Token); Telegram with a `description` ('Forbidden: bot was blocked by the user').
 */
const SLACK_REASONS: Readonly<Record<string, TDeliveryFailure>> = {
  invalid_payload: 'slack-invalid-payload',
  action_prohibited: 'slack-action-prohibited',
  channel_not_found: 'slack-channel-not-found',
  no_service: 'slack-no-service',
  channel_is_archived: 'slack-channel-archived',
};
const DISCORD_REASONS: Readonly<Record<number, TDeliveryFailure>> = { 10015: 'discord-unknown-webhook', 50027: 'discord-invalid-token' };
const TELEGRAM_REASONS: ReadonlyArray<[phrase: string, reason: TDeliveryFailure]> = [
  ['bot was blocked by the user', 'telegram-blocked'],
  ['chat not found', 'telegram-chat-not-found'],
  // '… kicked from the group chat', '… from the supergroup chat', '… from the channel chat'
  ['bot was kicked from', 'telegram-kicked'],
  ['bot is not a member of', 'telegram-not-member'],
  ["bot can't initiate conversation", 'telegram-start-needed'],
  ['the group chat was deleted', 'telegram-chat-deleted'],
  ['user is deactivated', 'telegram-user-deactivated'],
];

/** A Telegram chat id as the channel stores it (contracts' TELEGRAM_CHAT_RULE: digits, negative for groups). */
const CHAT_ID = /^-?\d{1,20}$/;

/**
 * One delivery attempt through the outbound door (docs/decisions/0040, 0043, 0062). The answer is
 * judged as each service documents it: Slack answers 200 'ok' or a status with a short code,
 * Discord 204 or a JSON error (429 with retry_after), Telegram `{ok:true,result}` or
 * `{ok:false,error_code,description,parameters}`; Teams Workflows 202 or `{error:{code,message}}`;
 * a generic webhook any 2xx.
 */
export async function sendToChannel(config: ChannelConfig, message: ChannelMessage, options: ChannelSendOptions): Promise<ChannelOutcome> {
  const request = channelRequest(config, message, { telegramBaseUrl: options.telegramBaseUrl, now: options.now() });
  try {
    const answer = await sendOutbound({ url: request.url, method: 'POST', headers: request.headers, body: request.body }, options);
    return judge(config.kind, answer, options.now());
  } catch (err) {
    if (err instanceof OutboundError) return { ok: false, error: err.message, retryable: err.retryable, detail: { kind: err.kind, ...(err.detail.code ? { code: err.detail.code } : {}) } };
    throw err;
  }
}

/** The parts of an answer's JSON body the services document; anything else is ignored. */
type AnswerBody = {
  ok?: unknown;
  description?: unknown;
  error_code?: unknown;
  code?: unknown;
  message?: unknown;
  retry_after?: unknown;
  parameters?: { retry_after?: unknown; migrate_to_chat_id?: unknown };
  /** Teams Workflows (Power Automate) errors: `{error: {code, message}}`. */
  error?: { code?: unknown };
};

export function judge(kind: ChannelConfig['kind'], answer: OutboundResponse, now: Date): ChannelOutcome {
  const { status } = answer;
  const body = parseBody(kind, answer.body);
  // The receiver's short error code, for the log: Slack's text, or Telegram's/Discord's JSON.
  const code = receiverCode(kind, answer.body, body);
  if (kind === 'telegram') {
    if (status >= 200 && status < 300 && body?.ok === true) return { ok: true };
    const movedTo = body?.parameters?.migrate_to_chat_id;
    if ((typeof movedTo === 'number' && Number.isSafeInteger(movedTo)) || (typeof movedTo === 'string' && CHAT_ID.test(movedTo))) {
      return { ...failure('refused', false, status, code), movedTo: String(movedTo) };
    }
  } else if (status >= 200 && status < 300) {
    return { ok: true };
  }
  const reason = documentedReason(kind, status, answer.body, body);
  if (reason) return failure(reason, false, status, code);
  if (status === 429 || status >= 500) {
    const wait = waitAsked(kind, answer.headers, body, now);
    return { ...failure(status === 429 ? 'rate-limited' : 'receiver-error', true, status, code), ...(wait === undefined ? {} : { retryAfterSeconds: wait }) };
  }
  if (status === 404 || status === 410) return failure('gone', false, status, code);
  if (status === 401) return failure('unauthorized', false, status, code);
  return failure('refused', false, status, code);
}

function failure(reason: TDeliveryFailure, retryable: boolean, status: number, code?: string): Extract<ChannelOutcome, { ok: false }> {
  return { ok: false, error: DELIVERY_FAILURES[reason], retryable, detail: { status, ...(code ? { code } : {}) } };
}

function parseBody(kind: ChannelConfig['kind'], text: string): AnswerBody | null {
  // Slack answers plain text; a generic webhook's answer is anybody's and is never read.
  if (kind === 'slack' || kind === 'webhook') return null;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' ? (parsed as AnswerBody) : null;
  } catch {
    return null;
  }
}

/** The refusal the service documents, by its own words in the answer; null for any other. */
function documentedReason(kind: ChannelConfig['kind'], status: number, text: string, body: AnswerBody | null): TDeliveryFailure | null {
  if (kind === 'slack') return SLACK_REASONS[text.trim()] ?? null;
  if (kind === 'discord') return typeof body?.code === 'number' ? (DISCORD_REASONS[body.code] ?? null) : null;
  if (kind === 'telegram') {
    if (status === 401) return 'telegram-unauthorized';
    const description = typeof body?.description === 'string' ? body.description.toLowerCase() : '';
    return TELEGRAM_REASONS.find(([phrase]) => description.includes(phrase))?.[1] ?? null;
  }
  return null;
}

/**
 * How long the receiver asked us to wait, in seconds: the `Retry-After` header (seconds or an
 * HTTP date) of any receiver; Discord's `retry_after` (seconds, with decimals) and
 * `X-RateLimit-Reset-After`; Telegram's `parameters.retry_after`. When several are given, the
 * longest (Discord's header is its body's value rounded up). Undefined when none is.
 */
export function waitAsked(kind: ChannelConfig['kind'], headers: Readonly<Record<string, string>>, body: AnswerBody | null, now: Date): number | undefined {
  const asked = [retryAfterHeader(headers['retry-after'], now)];
  if (kind === 'discord') asked.push(seconds(body?.retry_after), seconds(headers['x-ratelimit-reset-after']));
  if (kind === 'telegram') asked.push(seconds(body?.parameters?.retry_after));
  const given = asked.filter((s): s is number => s !== undefined);
  return given.length === 0 ? undefined : Math.max(...given);
}

/** A non-negative number of seconds, from a number or its text; undefined for anything else. */
function seconds(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : NaN;
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** RFC 9110's Retry-After: delta-seconds, or an HTTP date (then the time until it, at least 0). */
function retryAfterHeader(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now.getTime()) / 1000);
}

function receiverCode(kind: ChannelConfig['kind'], text: string, body: AnswerBody | null): string | undefined {
  // A generic webhook's answer is anybody's text: not logged.
  if (kind === 'webhook') return undefined;
  if (kind === 'slack') return text.trim().slice(0, 60) || undefined;
  if (!body) return kind === 'telegram' ? 'not JSON' : undefined;
  if (kind === 'telegram') return body.ok === true ? 'ok' : String(body.description ?? 'not ok').slice(0, 60);
  if (kind === 'teams') return typeof body.error?.code === 'string' ? body.error.code.slice(0, 60) : undefined;
  return String(body.code ?? body.message ?? '').slice(0, 60) || undefined;
}
