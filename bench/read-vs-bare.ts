import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SeedArticle } from '../tests/e2e/support/seed-articles.ts';
import { cpuMs, cpuPlacement, load, pinProcess, startAppServer, startBareServer, type LoadResult } from './lib.ts';
import { publishThroughApi } from './signed-in-load.ts';
import type { Benchmark } from './types.ts';

const CONNECTIONS = 50;
/** A multiple of the three servers: each is loaded first, second and third equally often. */
const ROUNDS = 6;
const ROUND_SECONDS = 2;
const WARMUP_SECONDS = 2;
export const PUBLISHED = 20;

export function seedList(): SeedArticle[] {
  const categories = ['Automation', 'AI', 'Analytics', 'Case Study'];
  const list: SeedArticle[] = [];
  for (let i = 0; i < PUBLISHED + 5; i++) {
    list.push({
      title: `Insight ${i + 1}: automating the ${['invoice', 'onboarding', 'reporting', 'support', 'inventory'][i % 5]} workflow`,
      category: categories[i % categories.length]!,
      excerpt: 'How a mid-sized team replaced manual hand-offs with an automated, observable pipeline, and what it saved.',
      content: `# Insight ${i + 1}\n\n${'Lorem ipsum dolor sit amet. '.repeat(40)}`,
      readTime: `${3 + (i % 5)} min read`,
      published: i < PUBLISHED,
      createdAt: new Date(Date.UTC(2025, 0, 1 + i, 12)).toISOString(),
    });
  }
  return list;
}

/**
 * A public read on our real server (child process, PGlite, 20 published articles) against bare
 * Fastify answering the same bytes from memory on the same path, with autocannon at 50
 * connections. The servers are all up for the whole measurement and are loaded one at a time, in
 * rounds, each round starting with the next of them: on this shared machine the same server's
 * throughput drifts by a quarter from one 10 s run to the next, so ten seconds of one followed
 * by ten of the other measured the drift as much as the servers. Each side's figure is its
 * requests over its own rounds' time; the log shows each round's ratio. The servers run on one
 * CPU and the load generator (autocannon, in this process) on the others (`cpuPlacement`), so
 * that they do not take each other's core; the CPU time each server process used per answered
 * request is printed too, as it is what the server itself costs whatever the client costs.
 *
 * A second bare server sends our answer's own headers too (security headers, ETag, cache
 * policy: ~840 bytes against bare Fastify's ~150), loaded in the same rounds: the row against it
 * is printed, and tells what those headers cost (to the server that writes them and to the
 * client that reads them) from what the rest of our server costs.
 */
export function readVsBare(spec: {
  name: string;
  description: string;
  /** The path to load, given the first published article's slug. */
  path: (slug: string) => string;
  /** What a correct answer looks like, so a benchmark of an error page cannot pass. */
  check: (body: string) => void;
  targetRatio: number;
}): Benchmark {
  return {
    name: spec.name,
    description: spec.description,
    async run({ quick, log }) {
      // 12 s of load for each side in full runs, in 6 rounds of 2 s.
      const rounds = quick ? 1 : ROUNDS;
      const roundSeconds = quick ? 1 : ROUND_SECONDS;
      const work = mkdtempSync(path.join(tmpdir(), `bench-${spec.name}-`));
      const stops: Array<() => Promise<void>> = [];
      try {
        log(`starting our server with ${PUBLISHED} published articles (PGlite)...`);
        const ours = await startAppServer();
        stops.push(() => ours.stop());
        await publishThroughApi(ours.url, seedList());
        const list = (await (await fetch(`${ours.url}/api/articles?limit=1`)).json()) as Array<{ slug: string }>;
        const url = spec.path(list[0]!.slug);
        // As autocannon asks: no compression, so the headers are the ones its requests get.
        const res = await fetch(`${ours.url}${url}`, { headers: { 'accept-encoding': 'identity' } });
        const body = await res.text();
        if (!res.ok) throw new Error(`GET ${url} answered ${res.status}: ${body.slice(0, 200)}`);
        spec.check(body);
        const contentType = res.headers.get('content-type') ?? 'application/octet-stream';
        const bodyFile = path.join(work, 'body');
        writeFileSync(bodyFile, body);

        const headers = ownHeaders(res.headers);
        if ('content-encoding' in headers) throw new Error(`GET ${url} came compressed without being asked to`);
        const headersFile = path.join(work, 'headers.json');
        writeFileSync(headersFile, JSON.stringify(headers));

        log('starting bare Fastify with the same bytes, and another with our headers too...');
        const route = url.split('?')[0]!;
        const bare = await startBareServer({ route, bodyFile, contentType });
        stops.push(() => bare.stop());
        const bareWithHeaders = await startBareServer({ route, bodyFile, contentType, headersFile });
        stops.push(() => bareWithHeaders.stop());

        const placement = cpuPlacement();
        if (placement) {
          for (const pid of [ours.pid, bare.pid, bareWithHeaders.pid]) pinProcess(pid, placement.servers);
          pinProcess(process.pid, placement.loadGenerator);
          stops.push(async () => pinProcess(process.pid, placement.all));
          log(`  the servers on CPU ${placement.servers}, the load generator (this process) on CPU ${placement.loadGenerator}`);
        } else {
          log('  no CPU pinning (one CPU, or no taskset): the servers and the load generator share the CPUs');
        }

        log(`  GET ${url}: ${body.length} bytes per response; ${rounds} round(s) of ${roundSeconds} s each, the three servers in turn...`);
        const settings = { connections: CONNECTIONS, seconds: roundSeconds, warmupSeconds: 0 };
        const warmup = { ...settings, seconds: quick ? 0.5 : WARMUP_SECONDS };
        const sides: Side[] = [
          { label: 'ours', url: `${ours.url}${url}`, pid: ours.pid, rounds: [], cpuMs: 0 },
          { label: 'bare', url: `${bare.url}${url}`, pid: bare.pid, rounds: [], cpuMs: 0 },
          { label: 'bare with our headers', url: `${bareWithHeaders.url}${url}`, pid: bareWithHeaders.pid, rounds: [], cpuMs: 0 },
        ];
        for (const side of sides) await load(side.url, warmup);
        for (let round = 0; round < rounds; round++) {
          // Each round starts with the next server, so none is always first (or last) after a pause.
          for (let i = 0; i < sides.length; i++) {
            const side = sides[(round + i) % sides.length]!;
            const cpuBefore = cpuMs(side.pid);
            side.rounds.push(await load(side.url, settings));
            side.cpuMs += cpuMs(side.pid) - cpuBefore;
          }
          const [o, b, h] = sides.map((side) => side.rounds[round]!.requestsPerSecond) as [number, number, number];
          log(
            `  round ${round + 1}: ours ${o.toFixed(0)} req/s, bare ${b.toFixed(0)} req/s (ratio ${(o / b).toFixed(2)}), ` +
              `bare with our headers ${h.toFixed(0)} req/s (ratio ${(o / h).toFixed(2)})`,
          );
        }
        const results = sides.map((side) => combined(side.rounds));
        sides.forEach((side, i) => {
          log(`  ${side.label}: ${results[i]!.requestsPerSecond.toFixed(0)} req/s (p99 ${results[i]!.latencyP99Ms} ms), server CPU ${cpuPerRequest(side, results[i]!)} per request`);
        });
        const cpuNote = `server CPU per request: ${sides.map((side, i) => `${side.label} ${cpuPerRequest(side, results[i]!)}`).join(', ')}`;
        const [oursResult, bareResult, headersResult] = results as [LoadResult, LoadResult, LoadResult];
        const [oursRounds, bareRounds, headersRounds] = sides.map((side) => side.rounds) as [LoadResult[], LoadResult[], LoadResult[]];

        const ratio = oursResult.requestsPerSecond / bareResult.requestsPerSecond;
        const problems = sides.flatMap((side, i) => {
          const { errors, non2xx } = results[i]!;
          return errors + non2xx > 0 ? [`${side.label}: ${errors} errors, ${non2xx} non-2xx`] : [];
        });
        const roundRatios = (reference: LoadResult[]) => oursRounds.map((o, i) => (o.requestsPerSecond / reference[i]!.requestsPerSecond).toFixed(2)).join(', ');
        return [
          {
            name: spec.name,
            unit: 'req/s',
            ours: oursResult.requestsPerSecond,
            reference: bareResult.requestsPerSecond,
            ratio,
            target: `ratio >= ${spec.targetRatio}`,
            met: ratio >= spec.targetRatio && problems.length === 0,
            note: [`${rounds} rounds of ${roundSeconds} s in turn, ratios ${roundRatios(bareRounds)}`, cpuNote, ...problems].join('; '),
          },
          {
            name: `${spec.name} vs bare with our headers`,
            unit: 'req/s',
            ours: oursResult.requestsPerSecond,
            reference: headersResult.requestsPerSecond,
            ratio: oursResult.requestsPerSecond / headersResult.requestsPerSecond,
            target: 'printed',
            met: problems.length === 0,
            note: [`bare Fastify sending our answer's ${Object.keys(headers).length} other headers; round ratios ${roundRatios(headersRounds)}`, ...problems].join('; '),
          },
        ];
      } finally {
        for (const stop of stops.reverse()) await stop();
        rmSync(work, { recursive: true, force: true });
      }
    },
  };
}

/** What our answer says besides the body's type and the connection's own headers (bare Fastify
 * sets those itself). */
function ownHeaders(headers: Headers): Record<string, string> {
  const own: Record<string, string> = {};
  for (const [name, value] of headers) {
    if (!['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding'].includes(name)) own[name] = value;
  }
  return own;
}

/** One server under load: its rounds and the CPU time its process used in them. */
type Side = { label: string; url: string; pid: number; rounds: LoadResult[]; cpuMs: number };

/** The server process's CPU time per answered request over its rounds, e.g. "46 µs": what the
 * server itself spends, whoever else (the load generator) shares the machine. */
function cpuPerRequest(side: Side, result: LoadResult): string {
  return result.total > 0 ? `${Math.round((side.cpuMs * 1000) / result.total)} µs` : 'n/a';
}

/** One side's rounds as one figure: the mean of equal-length rounds' rates (their requests over
 * their time), the worst round's p99, and every error. */
function combined(rounds: LoadResult[]): LoadResult {
  return {
    requestsPerSecond: rounds.reduce((sum, r) => sum + r.requestsPerSecond, 0) / rounds.length,
    latencyP99Ms: Math.max(...rounds.map((r) => r.latencyP99Ms)),
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
    non2xx: rounds.reduce((sum, r) => sum + r.non2xx, 0),
    total: rounds.reduce((sum, r) => sum + r.total, 0),
  };
}
