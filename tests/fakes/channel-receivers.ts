import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startOutboundTarget, type OutboundTarget } from './outbound-target.ts';

/**
 * The four kinds of channel receiver on one https server on 127.0.0.1 (its certificate in
 * `caFile`, for OUTBOUND_CA_FILE), each checking what arrives and answering as the real
 * service does:
 * - `/webhook/<name>`: a generic webhook endpoint that verifies the X-Signature header with
 *   the secret registered for <name> (400 when it does not match), then answers 204; one
 *   named 'flaky…' answers 503 to its first request;
 * - `/slack/<name>`: a Slack incoming webhook: 200 'ok' for `{text, blocks?}`, 400
 *   'invalid_payload' without text, 404 'no_service' when <name> is 'gone';
 * - `/discord/<name>`: a Discord webhook: 204, or for 'limited' 429 with
 *   `{message, retry_after, global}` JSON, 400 with a JSON error when neither content nor embeds;
 * - `/bot<token>/sendMessage`: Telegram's Bot API: `{ok:true,result}` for a known token and
 *   chat, else `{ok:false,error_code,description}` (401 Unauthorized, 400 chat not found).
 * Every request is kept in `received` with a verdict, as the checks found it.
 */
export type ChannelReceipt = { kind: 'webhook' | 'slack' | 'discord' | 'telegram' | 'unknown'; name: string; body: unknown; verdict: string };

export type ChannelReceivers = {
  origin: string;
  /** The certificate to trust, for OUTBOUND_CA_FILE (https only). */
  caFile: string;
  target: OutboundTarget;
  receipts: ChannelReceipt[];
  /** The signing secret the webhook endpoint <name> verifies with (given once at creation). */
  setWebhookSecret(name: string, secret: string): void;
  /** A bot token Telegram knows, and the chats it may write to. */
  addTelegramBot(token: string, chats: string[]): void;
  close(): Promise<void>;
};

/** How old a signed timestamp may be, as a receiver following the README would check. */
const SIGNATURE_TOLERANCE_SECONDS = 300;

/** `tls: false`: plain http on 127.0.0.1, for a server started elsewhere that cannot be handed
 * the certificate (the journeys' server, with OUTBOUND_ALLOW_LOOPBACK). */
export async function startChannelReceivers({ tls = true }: { tls?: boolean } = {}): Promise<ChannelReceivers> {
  const receipts: ChannelReceipt[] = [];
  const secrets = new Map<string, string>();
  const bots = new Map<string, Set<string>>();
  const seenFlaky = new Set<string>();
  const answer = (res: ServerResponse, status: number, body?: unknown, type = 'application/json') => {
    if (body === undefined) return res.writeHead(status).end();
    res.writeHead(status, { 'content-type': type }).end(typeof body === 'string' ? body : JSON.stringify(body));
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
    const keep = (k: ChannelReceipt['kind'], n: string, verdict: string) => receipts.push({ kind: k, name: n, body, verdict });
    const done = (k: ChannelReceipt['kind'], n: string, verdict: string, status: number, reply?: unknown, type?: string) => {
      keep(k, n, verdict);
      answer(res, status, reply, type);
    };

    if (kind === 'webhook') {
      // A 'flaky-…' endpoint is down for its first request, as a receiver mid-deploy.
      if (name.startsWith('flaky') && !seenFlaky.has(name)) {
        seenFlaky.add(name);
        return done('webhook', name, 'unavailable', 503, { error: 'unavailable' });
      }
      const verdict = verifySignature(secrets.get(name), String(req.headers['x-signature'] ?? ''), last.body);
      return verdict === 'signed' ? done('webhook', name, verdict, 204) : done('webhook', name, verdict, 400, { error: verdict });
    }
    if (kind === 'slack') {
      const text = (body as { text?: unknown } | null)?.text;
      if (name === 'gone') return done('slack', name, 'no_service', 404, 'no_service', 'text/plain');
      if (typeof text !== 'string' || text === '') return done('slack', name, 'invalid_payload', 400, 'invalid_payload', 'text/plain');
      return done('slack', name, 'ok', 200, 'ok', 'text/plain');
    }
    if (kind === 'discord') {
      const b = body as { content?: unknown; embeds?: unknown } | null;
      if (name === 'limited') return done('discord', name, 'rate limited', 429, { message: 'You are being rate limited.', retry_after: 0.25, global: false });
      if (!b || (typeof b.content !== 'string' && !Array.isArray(b.embeds))) {
        return done('discord', name, 'empty', 400, { message: 'Cannot send an empty message', code: 50006 });
      }
      return done('discord', name, 'ok', 204);
    }
    const bot = /^\/bot([^/]+)\/sendMessage$/.exec(url.pathname);
    if (bot) {
      const token = decodeURIComponent(bot[1]!);
      const chats = bots.get(token);
      const b = body as { chat_id?: unknown; text?: unknown } | null;
      if (!chats) return done('telegram', token, 'Unauthorized', 401, { ok: false, error_code: 401, description: 'Unauthorized' });
      if (!b || typeof b.text !== 'string' || b.text === '') {
        return done('telegram', token, 'empty', 400, { ok: false, error_code: 400, description: 'Bad Request: message text is empty' });
      }
      if (!chats.has(String(b.chat_id))) {
        return done('telegram', token, 'chat not found', 400, { ok: false, error_code: 400, description: 'Bad Request: chat not found' });
      }
      return done('telegram', token, 'ok', 200, { ok: true, result: { message_id: receipts.length, chat: { id: b.chat_id }, date: Math.floor(Date.now() / 1000), text: b.text } });
    }
    return done('unknown', url.pathname, 'not found', 404, { error: 'not found' });
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
    setWebhookSecret: (name, secret) => secrets.set(name, secret),
    addTelegramBot: (token, chats) => bots.set(token, new Set(chats)),
    close: () => target.close(),
  };
}

/** The check the README tells receivers to make: the header's parts, the time, then the HMAC. */
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
