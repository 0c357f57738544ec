import { request } from 'node:http';
import { startFakeAiProviders } from '../tests/fakes/ai-providers.ts';
import { ADMIN_EMAIL } from '../tests/e2e/support/constants.ts';
import { type AppServer, benchPostgres, rssMb, sleep, startAppServer } from './lib.ts';
import type { Benchmark, BenchResult } from './types.ts';

const TTFT_REQUESTS = 200;
const TTFT_TARGET_MS = 1.5;
const STREAMS = 500;
const STREAM_MEMORY_TARGET_MB = 200;

/**
 * POSTs a streaming chat request and resolves with the milliseconds until the first piece of
 * text arrives and until the stream ends. `firstText` recognises a text chunk in the raw bytes.
 */
function timeStream(url: string, body: unknown, headers: Record<string, string>, firstText: (chunk: string) => boolean): Promise<{ first: number; total: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let first = -1;
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers } }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`${url} answered ${res.statusCode}`));
        res.resume();
        return;
      }
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (first < 0 && firstText(chunk)) first = performance.now() - started;
      });
      res.on('end', () => (first < 0 ? reject(new Error(`${url}: no text arrived`)) : resolve({ first, total: performance.now() - started })));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** Signs the bench's admin in locally and returns the headers a signed-in request carries. */
async function signInHeaders(url: string): Promise<Record<string, string>> {
  const login = await fetch(`${url}/api/auth/local/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ email: ADMIN_EMAIL, name: 'Bench' }),
  });
  const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
  return { cookie, origin: url };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

/**
 * Time to first token through our server (session, policy, budget, the AI SDK, SSE) against
 * calling the fake OpenAI directly, median of 200 sequential requests each; then 500
 * concurrent streams through one server process, with its resident memory growth.
 */
const benchmark: Benchmark = {
  name: 'chat',
  description: `chat: time to first token added by our server (median of ${TTFT_REQUESTS}); ${STREAMS} concurrent streams`,
  async run({ quick, log }) {
    const fake = await startFakeAiProviders();
    const postgres = await benchPostgres();
    // All the streams come from this one address: without lifting the per-address cap (256,
    // issue 13) Node closes the connections past it and the bench counts them as failed streams.
    const serverEnv = { ...fake.env, CHAT_RATE_LIMIT: '100000', CHAT_DAILY_TOKEN_BUDGET: '0', MAX_CONNECTIONS_PER_IP: '0' };
    const chatBody = { model: 'gpt-4o', messages: [{ role: 'user', content: 'Benchmark question' }] };
    // The same API our server uses for OpenAI (Responses), so only our layer differs.
    const directBody = { model: 'gpt-4o', stream: true, input: [{ role: 'user', content: 'Benchmark question' }] };
    const directHeaders = { authorization: `Bearer ${fake.keys.openai}` };
    const isOurDelta = (chunk: string) => chunk.includes('event: delta');
    const isFakeDelta = (chunk: string) => chunk.includes('output_text.delta');
    const requests = quick ? 20 : TTFT_REQUESTS;

    /** Median time to first token through `ours` and directly, interleaved so both see the same machine. */
    async function measureTtft(ours: AppServer, database: string): Promise<BenchResult> {
      const ourHeaders = await signInHeaders(ours.url);
      log(`time to first token on ${database}: ${requests} sequential requests each way...`);
      for (let i = 0; i < (quick ? 3 : 10); i++) {
        await timeStream(`${ours.url}/api/openai/chat`, chatBody, ourHeaders, isOurDelta);
        await timeStream(`${fake.baseUrls.openai}/responses`, directBody, directHeaders, isFakeDelta);
      }
      const oursTtft: number[] = [];
      const directTtft: number[] = [];
      for (let i = 0; i < requests; i++) {
        oursTtft.push((await timeStream(`${ours.url}/api/openai/chat`, chatBody, ourHeaders, isOurDelta)).first);
        directTtft.push((await timeStream(`${fake.baseUrls.openai}/responses`, directBody, directHeaders, isFakeDelta)).first);
      }
      const oursMedian = median(oursTtft);
      const directMedian = median(directTtft);
      log(`  ours ${oursMedian.toFixed(2)} ms, direct ${directMedian.toFixed(2)} ms, added ${(oursMedian - directMedian).toFixed(2)} ms`);
      return {
        name: `chat-ttft-added (${database})`,
        unit: 'ms',
        ours: oursMedian - directMedian,
        reference: directMedian,
        ratio: oursMedian / directMedian,
        target: `<= ${TTFT_TARGET_MS} ms added`,
        met: oursMedian - directMedian <= TTFT_TARGET_MS,
      };
    }

    const onPostgres = await startAppServer({ env: { ...serverEnv, DATABASE_URL: postgres.url } });
    let postgresTtft: BenchResult;
    try {
      postgresTtft = await measureTtft(onPostgres, 'PostgreSQL');
    } finally {
      await onPostgres.stop();
    }

    const ours = await startAppServer({ env: serverEnv });
    try {
      const pgliteTtft = await measureTtft(ours, 'PGlite');
      const ourHeaders = await signInHeaders(ours.url);

      const streams = quick ? 100 : STREAMS;
      await sleep(1_000);
      const before = rssMb(ours.pid);
      log(`${streams} concurrent streams (RSS before: ${before.toFixed(0)} MB)...`);
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, rssMb(ours.pid))), 50);
      const results = await Promise.allSettled(
        Array.from({ length: streams }, () => timeStream(`${ours.url}/api/openai/chat`, chatBody, ourHeaders, isOurDelta)),
      );
      clearInterval(sampler);
      const completed = results.filter((r) => r.status === 'fulfilled').length;
      const growth = peak - before;
      log(`  ${completed}/${streams} completed; RSS peak ${peak.toFixed(0)} MB (+${growth.toFixed(0)} MB)`);

      const rows: BenchResult[] = [
        postgresTtft,
        pgliteTtft,
        {
          // ours: RSS growth during the streams; reference: RSS before them.
          name: 'chat-streams-memory',
          unit: 'MB',
          ours: growth,
          reference: before,
          ratio: peak / before,
          target: `all ${streams} complete, < ${STREAM_MEMORY_TARGET_MB} MB`,
          met: completed === streams && growth < STREAM_MEMORY_TARGET_MB,
          ...(completed < streams ? { note: `${streams - completed} streams failed` } : {}),
        },
      ];
      return rows;
    } finally {
      await ours.stop();
      await fake.close();
    }
  },
};

export default benchmark;
