import { DELIVERY_FAILURES, type TDeliveryFailure } from '../../../contracts/channels.ts';
import { OutboundError } from '../outbound/outbound-error.ts';
import { sendOutbound, type OutboundOptions } from '../outbound/send-outbound.ts';
import type { ChannelConfig } from './channel-config.ts';
import { channelRequest, type ChannelMessage } from './channel-message.ts';

export type ChannelSendOptions = OutboundOptions & { telegramBaseUrl: string; now: () => Date };

/** How one attempt ended: sent, or failed with a fixed sentence for the user and whether a later
 * attempt may succeed. `detail` is for the log only (status, the receiver's error code). */
export type ChannelOutcome =
  | { ok: true }
  | { ok: false; error: string; retryable: boolean; detail: { status?: number; code?: string; kind?: string } };

const failure = (kind: TDeliveryFailure, retryable: boolean, status: number, code?: string): ChannelOutcome => ({
  ok: false,
  error: DELIVERY_FAILURES[kind],
  retryable,
  detail: { status, ...(code ? { code } : {}) },
});

/**
 * One delivery attempt through the outbound door (docs/decisions/0040, 0043). The answer is
 * judged as each service documents it: Slack answers 200 'ok' or a status with a short code
 * ('no_service', 'invalid_payload'), Discord 204 or a JSON error (429 with retry_after),
 * Telegram `{ok:true,result}` or `{ok:false,error_code,description}`; a generic webhook any 2xx.
 */
export async function sendToChannel(config: ChannelConfig, message: ChannelMessage, options: ChannelSendOptions): Promise<ChannelOutcome> {
  const request = channelRequest(config, message, { telegramBaseUrl: options.telegramBaseUrl, now: options.now() });
  try {
    const answer = await sendOutbound({ url: request.url, method: 'POST', headers: request.headers, body: request.body }, options);
    return judge(config.kind, answer.status, answer.body);
  } catch (err) {
    if (err instanceof OutboundError) return { ok: false, error: err.message, retryable: err.retryable, detail: { kind: err.kind, ...(err.detail.code ? { code: err.detail.code } : {}) } };
    throw err;
  }
}

function judge(kind: ChannelConfig['kind'], status: number, body: string): ChannelOutcome {
  // The receiver's short error code, for the log: Slack's text, or Telegram's/Discord's JSON.
  const code = receiverCode(kind, body);
  if (kind === 'telegram' && status >= 200 && status < 300) {
    return code === 'ok' ? { ok: true } : failure('refused', false, status, code);
  }
  if (status >= 200 && status < 300) return { ok: true };
  if (status === 404 || status === 410) return failure('gone', false, status, code);
  if (status === 401) return failure('unauthorized', false, status, code);
  if (status === 429) return failure('rate-limited', true, status, code);
  if (status >= 500) return failure('receiver-error', true, status, code);
  return failure('refused', false, status, code);
}

function receiverCode(kind: ChannelConfig['kind'], body: string): string | undefined {
  // A generic webhook's answer is anybody's text: not logged.
  if (kind === 'webhook') return undefined;
  if (kind === 'slack') return body.trim().slice(0, 60) || undefined;
  try {
    const parsed = JSON.parse(body) as { ok?: boolean; description?: unknown; code?: unknown; message?: unknown };
    if (kind === 'telegram') return parsed.ok === true ? 'ok' : String(parsed.description ?? 'not ok').slice(0, 60);
    return String(parsed.code ?? parsed.message ?? '').slice(0, 60) || undefined;
  } catch {
    return kind === 'telegram' ? 'not JSON' : undefined;
  }
}
