import http from 'node:http';
import { EVENTS_PATH } from '../contracts/events.ts';
import { rssMb, sleep, startAppServer, startBareServer } from './lib.ts';
import { signIn } from './signed-in-load.ts';
import type { Benchmark } from './types.ts';

const STREAMS = 1_000;
const TARGET_MB = 100;
/** After the connections are open, before sampling: buffers settle and a GC can run. */
const SETTLE_MS = 5_000;

/** Opens `count` connections (one socket each), each with one request that `ready` accepts the answer of; resolves once all have answered. */
async function openConnections(count: number, url: string, headers: Record<string, string>, ready: (res: http.IncomingMessage) => void): Promise<http.Agent> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const batch = 100;
  for (let i = 0; i < count; i += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, count - i) }, () => new Promise<void>((resolve, reject) => {
        const req = http.get(url, { agent, headers }, (res) => {
          if (res.statusCode !== 200) return reject(new Error(`${url} answered ${res.statusCode}`));
          ready(res);
          resolve();
        });
        req.on('error', reject);
      })),
    );
  }
  return agent;
}

/**
 * 1,000 open live-console streams (GET /api/events) on one server process: its RSS before and
 * after, and per stream. Reference: the same number of idle keep-alive connections (each after
 * one answered request) held open to a bare Fastify server, measured the same way. One signed-in
 * admin holds them all (the per-user cap raised for the bench, the per-address cap off).
 */
const benchmark: Benchmark = {
  name: 'event-streams',
  description: `${STREAMS} open event streams on one process (target < ${TARGET_MB} MB more RSS) vs as many idle keep-alive connections to bare Fastify`,
  async run({ quick, log }) {
    const count = quick ? 200 : STREAMS;
    const server = await startAppServer({ env: { EVENT_STREAMS_PER_USER: String(count + 10), MAX_CONNECTIONS_PER_IP: '0' } });
    let oursDelta: number;
    try {
      const session = await signIn(server.url);
      await sleep(quick ? 3_000 : 10_000); // PGlite's start-up heap is released (see server-memory)
      const before = rssMb(server.pid);
      const agent = await openConnections(count, `${server.url}${EVENTS_PATH}`, { cookie: session.cookie, accept: 'text/event-stream' }, (res) => res.resume());
      await sleep(SETTLE_MS);
      const after = rssMb(server.pid);
      oursDelta = after - before;
      log(`  ours: ${before.toFixed(1)} MB before, ${after.toFixed(1)} MB with ${count} streams: ${oursDelta.toFixed(1)} MB, ${((oursDelta * 1024) / count).toFixed(1)} KB per stream`);
      agent.destroy();
    } finally {
      await server.stop();
    }

    const bare = await startBareServer();
    let bareDelta: number;
    try {
      await sleep(quick ? 1_000 : 3_000);
      const before = rssMb(bare.pid);
      const agent = await openConnections(count, `${bare.url}/api/health`, {}, (res) => res.resume());
      await sleep(SETTLE_MS);
      const after = rssMb(bare.pid);
      bareDelta = after - before;
      log(`  bare: ${before.toFixed(1)} MB before, ${after.toFixed(1)} MB with ${count} idle keep-alive connections: ${bareDelta.toFixed(1)} MB, ${((bareDelta * 1024) / count).toFixed(1)} KB each`);
      agent.destroy();
    } finally {
      await bare.stop();
    }

    // The quick run opens fewer: its figure is scaled to STREAMS for the target.
    const scaled = (oursDelta * STREAMS) / count;
    return [
      {
        name: `event-streams ${STREAMS} streams`,
        unit: 'MB RSS added',
        ours: scaled,
        reference: (bareDelta * STREAMS) / count,
        ratio: bareDelta > 0 ? oursDelta / bareDelta : null,
        target: `< ${TARGET_MB} MB`,
        met: scaled < TARGET_MB,
        ...(quick ? { note: `${count} streams, scaled` } : {}),
      },
    ];
  },
};

export default benchmark;
