import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppServer } from '../e2e/support/app-server.ts';
import { startFakeAiProviders, type FakeAiProviders } from '../fakes/ai-providers.ts';
import { postgresInstalled, startPostgresCluster } from '../support/postgres-cluster.ts';
import { parseEvents } from '../../server/test/chat-helpers.ts';
import { signIn } from './fault-client.ts';

const STREAMS = 50;
/** The fake answers in 4 chunks this far apart: each answer is in flight for about 3 s. */
const CHUNK_DELAY_MS = 750;

type Stream = { started: Promise<void>; finished: Promise<string>; done: boolean };

/** A chat answer streamed on a connection of its own; `started` resolves at its first text. */
function openStream(url: string, headers: Record<string, string>, question: string): Stream {
  const stream: Stream = { done: false, started: undefined!, finished: undefined! };
  let markStarted!: () => void;
  stream.started = new Promise((resolve) => (markStarted = resolve));
  stream.finished = new Promise((resolve, reject) => {
    const req = request(
      `${url}/api/openai/chat`,
      { method: 'POST', agent: false, headers: { ...headers, 'content-type': 'application/json', accept: 'text/event-stream' } },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`chat answered ${res.statusCode}`));
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
          if (body.includes('event: delta')) markStarted();
        });
        res.on('end', () => {
          stream.done = true;
          resolve(body);
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: question }] }));
  });
  stream.finished.catch(() => markStarted()); // a failed stream fails the test through `finished`
  return stream;
}

/** A request on a brand-new connection: its status, or 'refused' when no connection was taken. */
function probe(url: string): Promise<number | 'refused' | string> {
  return new Promise((resolve) => {
    const req = request(`${url}/api/health`, { agent: false, timeout: 8_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('timeout', () => req.destroy(new Error('hung')));
    req.end();
    // Refused outright, or reset by a listening socket closing before it accepted this one.
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED' || err.code === 'ECONNRESET' ? 'refused' : `error ${err.code ?? err.message}`));
  });
}

const databases = ['PGlite', ...(postgresInstalled() ? ['PostgreSQL'] : [])];

/**
 * SIGTERM to a real server process (server/index.ts) while 50 chat answers stream from a slow AI
 * provider: each answer still completes in full, new connections are refused (or answered 503)
 * from the signal on, and the process exits 0, which it does only within its shutdown deadline
 * (past it, it exits 1), although one connection is open without ever sending a request.
 */
describe('SIGTERM with requests in flight', () => {
  let ai: FakeAiProviders;
  beforeAll(async () => {
    ai = await startFakeAiProviders({ chunkDelayMs: CHUNK_DELAY_MS });
  });
  afterAll(async () => ai?.close());

  it.each(databases)('on %s: every in-flight answer completes, new connections are turned away, exit 0', async (database) => {
    const cluster = database === 'PostgreSQL' ? await startPostgresCluster() : null;
    const server = await startAppServer({
      env: { ...ai.env, CHAT_RATE_LIMIT: '100000', CHAT_DAILY_TOKEN_BUDGET: '0', MARKET_DATA: 'simulated', ...(cluster ? { DATABASE_URL: cluster.url } : {}) },
    });
    try {
      const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
      const session = await signIn(server.url);
      const streams = Array.from({ length: STREAMS }, (_, i) => openStream(server.url, session, `question ${i}`));
      await Promise.all(streams.map((s) => s.started));
      expect(streams.filter((s) => s.done)).toHaveLength(0); // all mid-answer when the signal comes
      // A connection that never sends a request (a browser's preconnect) must not hold the exit.
      const preconnect = connect(Number(new URL(server.url).port), '127.0.0.1');
      preconnect.on('error', () => {});
      await new Promise((resolve) => preconnect.once('connect', resolve));
      const preconnectClosed = new Promise<void>((resolve) => preconnect.once('close', () => resolve()));

      server.child.kill('SIGTERM');
      // New connections from the signal until the exit, each noting whether answers were still streaming.
      const probes: Array<{ answer: Awaited<ReturnType<typeof probe>>; whileStreaming: boolean }> = [];
      let exitedYet = false;
      void exited.then(() => (exitedYet = true));
      while (!exitedYet) {
        const answer = await probe(server.url);
        probes.push({ answer, whileStreaming: streams.some((s) => !s.done) });
        await new Promise((r) => setTimeout(r, 50));
      }

      const bodies = await Promise.all(streams.map((s) => s.finished));
      bodies.forEach((body, i) => {
        const events = parseEvents(body);
        expect(events.at(-1)?.event).toBe('done');
        const text = events.flatMap((e) => (e.event === 'delta' ? [e.data.text] : [])).join('');
        expect(text).toBe(`Reply to: question ${i}`);
      });
      expect(await exited).toBe(0);
      await preconnectClosed;
      // A probe that raced the signal may have been served in full; none hung or failed otherwise.
      expect(probes.filter((p) => p.answer !== 200 && p.answer !== 503 && p.answer !== 'refused')).toEqual([]);
      expect(probes.filter((p) => p.whileStreaming && (p.answer === 'refused' || p.answer === 503)).length).toBeGreaterThan(0);
    } finally {
      await server.stop();
      cluster?.stop();
    }
  }, 50_000);
});
