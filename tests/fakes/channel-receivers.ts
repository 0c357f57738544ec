import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { startOutboundTarget, type OutboundTarget } from './outbound-target.ts';
import { adaptiveCardProblem } from './teams-card-schema.ts';

/**
 * The four kinds of channel receiver on one https server on 127.0.0.1 (its certificate in
 * `caFile`, for OUTBOUND_CA_FILE), each checking what arrives and answering as the real
 * service documents it:
 * - `/webhook/<name>`: a generic webhook endpoint that verifies the X-Signature header and the
 *   Standard Webhooks headers (with the `standardwebhooks` library, as a receiver would) with the
 *   secret registered for <name> (400 when either does not match) and acts on each webhook-id
 *   once, as the webhooks reference (docs/reference/webhooks.md) and the specification tell receivers (a repeat's verdict is
 *   'duplicate'), answering 204; one named 'flaky…' answers 503 to its first request;
 * - `/teams/<name>`: a Teams Workflows webhook ("Send webhook alerts to a channel"): 202 Accepted
 *   with no body for a message whose Adaptive Card follows the documented schema
 *   (teams-card-schema.ts), else 400 with Power Automate's error body `{error: {code, message}}`
 *   (stricter than Teams, which accepts the request and fails the flow's run, so a card Teams
 *   could not show is caught here); 'gone' answers 404 `WorkflowNotFound`;
 * - `/ntfy`: an ntfy server's JSON publishing (POST to its root): 200 with the message as ntfy
 *   answers it, 400 `{code: 40017, http: 400, error}` when the body is not message JSON, 40009
 *   without a valid topic;
 * - `/mattermost/hooks/<key>`: a Mattermost incoming webhook: 200 'ok', 400 'No text specified.'
 *   (its JSON app error) without `text`;
 * - `/slack/<name>`: a Slack incoming webhook: 200 'ok' for `{text, blocks?}`, else a status with
 *   Slack's short code as plain text (api.slack.com, "Improving error conditions for Incoming
 *   Webhooks"): 400 'invalid_payload' without text, and by <name>: 'gone' 404 'no_service',
 *   'no-channel' 404 'channel_not_found', 'archived' 410 'channel_is_archived', 'prohibited' 403
 *   'action_prohibited', 'unreadable' 400 'invalid_payload';
 * - `/discord/<name>`: a Discord webhook: 204, or JSON errors as Discord's docs give them: for
 *   'gone' 404 `{message: 'Unknown Webhook', code: 10015}`, for 'limited' always 429 (below),
 *   400 `{message, code: 50006}` when neither content nor embeds;
 * - `/bot<token>/sendMessage`: Telegram's Bot API: `{ok:true,result}` for a known token and
 *   chat, else `{ok:false,error_code,description,parameters?}`: 401 'Unauthorized', 400 'Bad
 *   Request: chat not found', 403 'Forbidden: bot was blocked by the user' (blockTelegramBot),
 *   400 'Bad Request: group chat was upgraded to a supergroup chat' with
 *   `parameters.migrate_to_chat_id` (migrateTelegramChat).
 * A rate limit (`limit`) answers 429 the service's way: Slack and a webhook with `Retry-After`;
 * Discord with `Retry-After` (whole seconds), `X-RateLimit-Reset-After` and a JSON body
 * `{message, retry_after, global}`; Telegram with `parameters.retry_after` and 'Too Many
 * Requests: retry after N'.
 * Every request is kept in `received` with a verdict, as the checks found it.
 */
export type ChannelReceipt = {
  kind: 'webhook' | 'slack' | 'discord' | 'telegram' | 'teams' | 'ntfy' | 'mattermost' | 'unknown';
  name: string;
  body: unknown;
  verdict: string;
  at: number;
  /** The request's headers and body exactly as they arrived, for a test's own verification. */
  headers: IncomingMessage['headers'];
  raw: string;
};

export type ChannelReceivers = {
  origin: string;
  /** The certificate to trust, for OUTBOUND_CA_FILE (https only). */
  caFile: string;
  target: OutboundTarget;
  receipts: ChannelReceipt[];
  /** The signing secret the webhook endpoint <name> verifies with (given once at creation);
   * `standardSecret`: the one it gives the standardwebhooks library, when another form of it
   * (a secret made before the standard form, converted as docs/reference/webhooks.md says). */
  setWebhookSecret(name: string, secret: string, standardSecret?: string): void;
  /** A bot token Telegram knows, and the chats it may write to. */
  addTelegramBot(token: string, chats: string[]): void;
  /** The group `from` became the supergroup `to`: `from` answers with migrate_to_chat_id. */
  migrateTelegramChat(token: string, from: string, to: string): void;
  /** The user of private chat `chat` blocked the bot. */
  blockTelegramBot(token: string, chat: string): void;
  /**
   * The next `times` requests to `receiver` ('slack/<name>', 'discord/<name>', 'webhook/<name>',
   * or 'telegram/<token>') answer 429, asking to wait `seconds` (Discord's may have decimals).
   */
  limit(receiver: string, seconds: number, times?: number): void;
  close(): Promise<void>;
};

/** How old a signed timestamp may be, as a receiver following docs/reference/webhooks.md would check. */
const SIGNATURE_TOLERANCE_SECONDS = 300;

/** Slack's documented refusals of an incoming webhook, by the fake's <name>: [status, code]. */
const SLACK_REFUSALS: Record<string, [number, string]> = {
  gone: [404, 'no_service'],
  'no-channel': [404, 'channel_not_found'],
  archived: [410, 'channel_is_archived'],
  prohibited: [403, 'action_prohibited'],
  unreadable: [400, 'invalid_payload'],
};

type Answer = { status: number; body?: unknown; type?: string; headers?: Record<string, string> };

/** A 429 as each service sends it, asking for `seconds`. */
function rateLimited(kind: string, seconds: number): Answer {
  const whole = String(Math.ceil(seconds));
  if (kind === 'discord') {
    return {
      status: 429,
      headers: {
        'retry-after': whole,
        'x-ratelimit-limit': '5',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': (Date.now() / 1000 + seconds).toFixed(3),
        'x-ratelimit-reset-after': String(seconds),
        'x-ratelimit-bucket': 'fake-bucket',
        'x-ratelimit-scope': 'user',
      },
      body: { message: 'You are being rate limited.', retry_after: seconds, global: false },
    };
  }
  if (kind === 'telegram') {
    return { status: 429, body: { ok: false, error_code: 429, description: `Too Many Requests: retry after ${whole}`, parameters: { retry_after: Number(whole) } } };
  }
  if (kind === 'slack') return { status: 429, headers: { 'retry-after': whole }, body: 'rate_limited', type: 'text/plain' };
  return { status: 429, headers: { 'retry-after': whole }, body: { error: 'rate limited' } };
}

/** `tls: false`: plain http on 127.0.0.1, for a server started elsewhere that cannot be handed
 * the certificate (the journeys' server, with OUTBOUND_ALLOW_LOOPBACK). */
export async function startChannelReceivers({ tls = true }: { tls?: boolean } = {}): Promise<ChannelReceivers> {
  const receipts: ChannelReceipt[] = [];
  const secrets = new Map<string, { secret: string; standard: string }>();
  const bots = new Map<string, Set<string>>();
  const migrated = new Map<string, string>();
  const blocked = new Set<string>();
  const limits = new Map<string, { seconds: number; times: number }>();
  const seenFlaky = new Set<string>();
  const handled = new Set<string>();
  const answer = (res: ServerResponse, { status, body, type = 'application/json', headers = {} }: Answer) => {
    if (body === undefined) return res.writeHead(status, headers).end();
    res.writeHead(status, { 'content-type': type, ...headers }).end(typeof body === 'string' ? body : JSON.stringify(body));
  };
  /** A rate limit set on `receiver` takes this request, if one is left. */
  const limited = (receiver: string): number | null => {
    const limit = limits.get(receiver);
    if (!limit || limit.times <= 0) return null;
    limit.times -= 1;
    return limit.seconds;
  };

  const respond = (req: IncomingMessage, res: ServerResponse) => {
    const last = target.received[target.received.length - 1]!;
    const url = new URL(req.url ?? '/', 'https://receiver');
    const [, kind = '', name = ''] = url.pathname.split('/');
    let body: unknown = null;
    try {
      body = JSON.parse(last.body);
    } catch {
      // Judged below as the service would: a body that is not JSON.
    }
    const done = (k: ChannelReceipt['kind'], n: string, verdict: string, reply: Answer) => {
      receipts.push({ kind: k, name: n, body, verdict, at: Date.now(), headers: req.headers, raw: last.body });
      answer(res, reply);
    };
    const bot = /^\/bot([^/]+)\/sendMessage$/.exec(url.pathname);
    const token = bot ? decodeURIComponent(bot[1]!) : '';
    const receiver = bot ? `telegram/${token}` : `${kind}/${name}`;
    const wait = limited(receiver);
    if (wait !== null) return done(bot ? 'telegram' : (kind as ChannelReceipt['kind']), bot ? token : name, 'rate limited', rateLimited(bot ? 'telegram' : kind, wait));

    if (kind === 'webhook') {
      // A 'flaky-…' endpoint is down for its first request, as a receiver mid-deploy.
      if (name.startsWith('flaky') && !seenFlaky.has(name)) {
        seenFlaky.add(name);
        return done('webhook', name, 'unavailable', { status: 503, body: { error: 'unavailable' } });
      }
      const registered = secrets.get(name);
      const verdict = verifySignature(registered?.secret, String(req.headers['x-signature'] ?? ''), last.body);
      if (verdict !== 'signed') return done('webhook', name, verdict, { status: 400, body: { error: verdict } });
      const standard = verifyStandardWebhook(registered?.standard, req.headers, last.body);
      if (standard !== 'signed') return done('webhook', name, standard, { status: 400, body: { error: standard } });
      // As docs/reference/webhooks.md and the specification say: a request signed within the tolerance may be a
      // replay or a retry, so each webhook-id is acted on once; a repeat is answered 2xx and ignored.
      const key = `${name} ${String(req.headers['webhook-id'])}`;
      if (handled.has(key)) return done('webhook', name, 'duplicate', { status: 204 });
      handled.add(key);
      return done('webhook', name, verdict, { status: 204 });
    }
    if (kind === 'teams') {
      const workflowError = (status: number, code: string, message: string) => done('teams', name, code, { status, body: { error: { code, message } } });
      if (name === 'gone') return workflowError(404, 'WorkflowNotFound', "The workflow could not be found.");
      if (body === null) return workflowError(400, 'InvalidRequestContent', 'The request content is not valid JSON.');
      const problem = adaptiveCardProblem(body);
      if (problem) return workflowError(400, 'InvalidRequestContent', problem);
      return done('teams', name, 'ok', { status: 202 });
    }
    if (kind === 'ntfy') {
      const b = body as { topic?: unknown; message?: unknown; title?: unknown; click?: unknown } | null;
      const ntfyError = (code: number, error: string) => done('ntfy', '', error, { status: 400, body: { code, http: 400, error } });
      if (!b || typeof b !== 'object' || Array.isArray(b)) return ntfyError(40017, 'invalid request: request body must be message JSON');
      if (typeof b.topic !== 'string' || !/^[-_A-Za-z0-9]{1,64}$/.test(b.topic)) return ntfyError(40009, 'invalid request: topic invalid');
      const time = Math.floor(Date.now() / 1000);
      return done('ntfy', b.topic, 'ok', { status: 200, body: { id: `n${receipts.length}`, time, expires: time + 43200, event: 'message', topic: b.topic, message: b.message, title: b.title, click: b.click } });
    }
    if (kind === 'mattermost') {
      const hook = url.pathname.split('/')[3] ?? '';
      const text = (body as { text?: unknown } | null)?.text;
      if (typeof text !== 'string' || text === '') {
        return done('mattermost', hook, 'No text specified.', { status: 400, body: { id: 'web.incoming_webhook.text.app_error', message: 'No text specified.', detailed_error: '', request_id: 'fake', status_code: 400 } });
      }
      return done('mattermost', hook, 'ok', { status: 200, body: 'ok', type: 'text/plain' });
    }
    if (kind === 'slack') {
      const text = (body as { text?: unknown } | null)?.text;
      const refusal = SLACK_REFUSALS[name];
      if (refusal) return done('slack', name, refusal[1], { status: refusal[0], body: refusal[1], type: 'text/plain' });
      if (typeof text !== 'string' || text === '') return done('slack', name, 'invalid_payload', { status: 400, body: 'invalid_payload', type: 'text/plain' });
      return done('slack', name, 'ok', { status: 200, body: 'ok', type: 'text/plain' });
    }
    if (kind === 'discord') {
      const b = body as { content?: unknown; embeds?: unknown } | null;
      if (name === 'limited') return done('discord', name, 'rate limited', rateLimited('discord', 0.25));
      if (name === 'gone') return done('discord', name, 'Unknown Webhook', { status: 404, body: { message: 'Unknown Webhook', code: 10015 } });
      if (!b || (typeof b.content !== 'string' && !Array.isArray(b.embeds))) {
        return done('discord', name, 'empty', { status: 400, body: { message: 'Cannot send an empty message', code: 50006 } });
      }
      return done('discord', name, 'ok', { status: 204 });
    }
    if (bot) {
      const chats = bots.get(token);
      const b = body as { chat_id?: unknown; text?: unknown } | null;
      const refuse = (status: number, description: string, parameters?: object) =>
        done('telegram', token, description, { status, body: { ok: false, error_code: status, description, ...(parameters ? { parameters } : {}) } });
      if (!chats) return refuse(401, 'Unauthorized');
      if (!b || typeof b.text !== 'string' || b.text === '') return refuse(400, 'Bad Request: message text is empty');
      const chat = String(b.chat_id);
      const movedTo = migrated.get(`${token} ${chat}`);
      // Telegram's chat ids are numbers: a supergroup's fits in 52 bits, so JSON carries it as one.
      if (movedTo !== undefined) return refuse(400, 'Bad Request: group chat was upgraded to a supergroup chat', { migrate_to_chat_id: Number(movedTo) });
      if (blocked.has(`${token} ${chat}`)) return refuse(403, 'Forbidden: bot was blocked by the user');
      if (!chats.has(chat)) return refuse(400, 'Bad Request: chat not found');
      return done('telegram', token, 'ok', { status: 200, body: { ok: true, result: { message_id: receipts.length, chat: { id: b.chat_id }, date: Math.floor(Date.now() / 1000), text: b.text } } });
    }
    return done('unknown', url.pathname, 'not found', { status: 404, body: { error: 'not found' } });
  };

  const target = await startOutboundTarget({ ...(tls ? { tls: { names: ['127.0.0.1'] } } : {}), respond });
  const dir = mkdtempSync(path.join(tmpdir(), 'channel-receivers-'));
  const caFile = path.join(dir, 'ca.pem');
  if (target.cert) writeFileSync(caFile, target.cert);
  return {
    origin: `${tls ? 'https' : 'http'}://127.0.0.1:${target.port}`,
    caFile,
    target,
    receipts,
    setWebhookSecret: (name, secret, standardSecret = secret) => secrets.set(name, { secret, standard: standardSecret }),
    addTelegramBot: (token, chats) => bots.set(token, new Set(chats)),
    migrateTelegramChat: (token, from, to) => {
      migrated.set(`${token} ${from}`, to);
      bots.get(token)?.add(to);
    },
    blockTelegramBot: (token, chat) => blocked.add(`${token} ${chat}`),
    limit: (receiver, seconds, times = 1) => limits.set(receiver, { seconds, times }),
    close: () => target.close(),
  };
}

/** The Standard Webhooks check, by the specification's own library: id, timestamp (5 minutes) and signature. */
function verifyStandardWebhook(secret: string | undefined, headers: IncomingMessage['headers'], body: string): string {
  if (!secret) return 'no secret registered';
  const wanted = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;
  try {
    new Webhook(secret).verify(body, Object.fromEntries(wanted.map((h) => [h, String(headers[h] ?? '')])), { jsonParse: false });
    return 'signed';
  } catch (err) {
    return err instanceof WebhookVerificationError ? `standard webhook: ${err.message}` : `standard webhook secret unreadable: ${String(err)}`;
  }
}

/** The check docs/reference/webhooks.md tells receivers to make: the header's parts, the time, then the HMAC. */
export function verifySignature(secret: string | undefined, header: string, body: string, nowSeconds = Math.floor(Date.now() / 1000)): string {
  if (!secret) return 'no secret registered';
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || !parts.v1) return 'malformed signature header';
  if (Math.abs(nowSeconds - t) > SIGNATURE_TOLERANCE_SECONDS) return 'signature too old';
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected) ? 'signed' : 'signature mismatch';
}
