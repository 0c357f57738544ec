import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppServer, type AppServer } from '../e2e/support/app-server.ts';
import { startFakeAiProviders, type FakeAiProviders } from '../fakes/ai-providers.ts';
import { signIn } from './fault-client.ts';
import { parseEvents } from '../../server/test/chat-helpers.ts';
import { until } from '../../server/test/until.ts';

const SLOW_SOCKETS = 300;
const PER_ADDRESS = 100;
const HEADERS_TIMEOUT_MS = 3_000;
const REQUEST_TIMEOUT_MS = 5_000;
/** The attacker's address, and a visitor's: loopback addresses nothing else in the test uses,
 * so the server's count for the attacker is exactly its slow connections. */
const ATTACKER = '127.0.0.3';
const VISITOR = '127.0.0.2';

type Slow = { socket: Socket; answer: string; closed: boolean };

/**
 * A client that trickles its request, one byte every half second, as in the report: half send
 * their headers that way, half announce a 100 kB body and send that so. Both would hold the
 * connection for ever without the server's timeouts.
 */
function openSlow(port: number, origin: string, kind: 'headers' | 'body'): Promise<Slow> {
  const socket = connect({ port, host: '127.0.0.1', localAddress: ATTACKER });
  const slow: Slow = { socket, answer: '', closed: false };
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (slow.answer += chunk));
  socket.on('error', () => {});
  socket.on('close', () => {
    slow.closed = true;
    clearInterval(trickle);
  });
  const trickle = setInterval(() => {
    if (socket.writable) socket.write(kind === 'headers' ? 'X' : ' ');
  }, 500);
  return new Promise((resolve) =>
    socket.once('connect', () => {
      socket.write(
        kind === 'headers'
          ? 'GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: '
          : `POST /api/auth/logout HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: ${origin}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`,
      );
      resolve(slow);
    }),
  );
}

/** A GET on a connection of its own from `from`: its status, or what went wrong; `ms` is how long it took. */
function get(url: string, from: string, headers: Record<string, string> = {}): Promise<{ status: number | string; ms: number }> {
  const sentAt = Date.now();
  return new Promise((resolve) => {
    const req = request(url, { localAddress: from, agent: false, headers, timeout: 5_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, ms: Date.now() - sentAt }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer')));
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ status: err.code ?? err.message, ms: Date.now() - sentAt }));
    req.end();
  });
}

/**
 * Issue 13: one client with no account held thousands of connections open by trickling its
 * requests, and the server stopped answering. A real server process, with short timeouts so
 * the test is quick: one address opens 300 slow connections; the server keeps its cap of them
 * and closes the rest at once, answers another visitor's health check and signed-in read
 * within a second meanwhile, and closes every slow connection when its timeout passes.
 */
describe('slow clients', () => {
  let ai: FakeAiProviders;
  let server: AppServer;
  beforeAll(async () => {
    // The AI provider answers in 4 chunks this far apart: a stream longer than the request timeout.
    ai = await startFakeAiProviders({ chunkDelayMs: 2_000 });
    server = await startAppServer({
      env: { ...ai.env, HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS), REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), MAX_CONNECTIONS_PER_IP: String(PER_ADDRESS) },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await ai?.close();
  });

  it('cannot take the server: capped per address, timed out, and others are served meanwhile', async () => {
    const session = await signIn(server.url);
    const port = Number(new URL(server.url).port);
    const slow = await Promise.all(Array.from({ length: SLOW_SOCKETS }, (_, i) => openSlow(port, server.url, i % 2 ? 'headers' : 'body')));

    // Over the address's cap: closed at once, before a byte of answer.
    const refused = await until(
      async () => slow.filter((s) => s.closed),
      (closed) => closed.length >= SLOW_SOCKETS - PER_ADDRESS,
      HEADERS_TIMEOUT_MS - 1_000,
    );
    expect(refused.every((s) => s.answer === '')).toBe(true);

    // While the address holds its cap of slow connections, another client is answered within a
    // second, signed out and signed in; the attacker's own address gets no more connections.
    const health = await get(`${server.url}/api/health`, VISITOR);
    const settings = await get(`${server.url}/api/settings`, VISITOR, { cookie: session.cookie });
    const stillOpen = slow.filter((s) => !s.closed).length;
    const fromAttacker = await get(`${server.url}/api/health`, ATTACKER);
    expect(stillOpen).toBe(PER_ADDRESS);
    expect(health.status).toBe(200);
    expect(health.ms).toBeLessThan(1_000);
    expect(settings.status).toBe(200);
    expect(settings.ms).toBeLessThan(1_000);
    expect(fromAttacker.status).not.toBe(200);

    // Each one the server kept is answered 408 and closed once its timeout passes.
    await until(async () => slow.filter((s) => !s.closed).length, (open) => open === 0, REQUEST_TIMEOUT_MS + 3_000);
    const kept = slow.filter((s) => !refused.includes(s));
    expect(kept).toHaveLength(PER_ADDRESS);
    for (const s of kept) expect(s.answer).toMatch(/^HTTP\/1\.1 408 /);

    // The address is served again once its connections are gone.
    expect((await get(`${server.url}/api/health`, ATTACKER)).status).toBe(200);
  }, 60_000);

  it('does not cut an answer that takes longer than the request timeout: the request had arrived', async () => {
    const session = await signIn(server.url);
    // The fake sends its 4 chunks 2 s apart, so the answer streams for longer than REQUEST_TIMEOUT_MS.
    const body = await new Promise<string>((resolve, reject) => {
      const req = request(
        `${server.url}/api/openai/chat`,
        { method: 'POST', agent: false, localAddress: VISITOR, headers: { ...session, 'content-type': 'application/json', accept: 'text/event-stream' } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve(text));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'a slow one' }] }));
    });
    const events = parseEvents(body);
    expect(events.at(-1)?.event).toBe('done');
    expect(events.flatMap((e) => (e.event === 'delta' ? [e.data.text] : [])).join('')).toBe('Reply to: a slow one');
  }, 30_000);
});
