import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus metrics (issue 33 item 4, docs/decisions/0091). One registry per
 * process, like the process it describes: the code that does the work counts it here, and
 * /metrics (metrics-endpoint.ts) reads it. Names follow Prometheus' conventions: base units in
 * the name (_seconds), counters end in _total, labels hold bounded values only (a route's pattern,
 * never its URL; a provider's model id from the allowlist; a channel's kind, never its id).
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

/** Latencies of requests, provider calls and waits: from 5 ms to 30 s (CHAT_TIMEOUT_MS' default). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export const httpRequests = new Counter({
  name: 'http_requests_total',
  help: 'HTTP requests answered, by method, route pattern and status code',
  labelNames: ['method', 'route', 'status_code'] as const,
  registers: [registry],
});
export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Time from a request to the end of its answer, by method, route pattern and status code',
  labelNames: ['method', 'route', 'status_code'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export const chatAnswers = new Counter({
  name: 'chat_answers_total',
  help: 'Chat answers recorded, by provider, model and outcome (ok, error, stopped, interrupted, rejected)',
  labelNames: ['provider', 'model', 'outcome'] as const,
  registers: [registry],
});
export const chatTimeToFirstToken = new Histogram({
  name: 'chat_time_to_first_token_seconds',
  help: 'Time from the provider call to the first text of a streamed answer, by provider and model',
  labelNames: ['provider', 'model'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});
export const chatTokens = new Counter({
  name: 'chat_tokens_total',
  help: 'Tokens recorded for chat answers (as the usage records hold them), by provider, model and direction (input, output)',
  labelNames: ['provider', 'model', 'direction'] as const,
  registers: [registry],
});
export const chatCost = new Counter({
  name: 'chat_cost_usd_total',
  help: "Estimated cost of chat answers in US dollars (the usage report's prices), by provider and model",
  labelNames: ['provider', 'model'] as const,
  registers: [registry],
});

export const agentRuns = new Counter({
  name: 'agent_runs_total',
  help: 'Agent runs finished, by status (success, failure; interrupted: failed because their worker stopped)',
  labelNames: ['status'] as const,
  registers: [registry],
});
export const agentRunStartLag = new Histogram({
  name: 'agent_run_start_lag_seconds',
  help: 'Time from a scheduled run’s slot to its start',
  buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  registers: [registry],
});
export const agentRunsQueued = new Gauge({
  name: 'agent_runs_queued',
  help: 'Agent runs queued and not started, in the whole database (read at each scrape)',
  registers: [registry],
  async collect() {
    this.set(await sumOf(queuedRunReaders));
  },
});

export const channelDeliveries = new Counter({
  name: 'channel_deliveries_total',
  help: 'Attempts to deliver an alert, by channel (its kind, or email) and status (sent; logged: an email written to the log without SMTP_URL; retry: failed, tried again later; failed: given up)',
  labelNames: ['channel', 'status'] as const,
  registers: [registry],
});

export const dbQueueWait = new Histogram({
  name: 'db_queue_wait_seconds',
  help: 'PGlite: time a statement waited in the queue in front of the embedded database',
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [registry],
});
export const dbQueueRefused = new Counter({
  name: 'db_queue_refused_total',
  help: 'PGlite: requests refused 503 because their wait for the embedded database would be too long (DB_QUEUE_MAX_WAIT_MS)',
  registers: [registry],
});
export const dbPoolConnections = new Gauge({
  name: 'db_pool_connections',
  help: "PostgreSQL: the pool's connections by state (total, idle, waiting: requests waiting for a connection)",
  labelNames: ['state'] as const,
  registers: [registry],
  collect() {
    for (const state of ['total', 'idle', 'waiting'] as const) {
      let sum = 0;
      for (const pool of pools) sum += state === 'total' ? pool.totalCount : state === 'idle' ? pool.idleCount : pool.waitingCount;
      this.set({ state }, sum);
    }
  },
});

export const eventStreamsOpen = new Gauge({
  name: 'event_streams_open',
  help: "Live console event streams open on this process",
  registers: [registry],
  async collect() {
    this.set(await sumOf(openStreamReaders));
  },
});

type Reader = () => number | Promise<number>;
type PoolCounts = { totalCount: number; idleCount: number; waitingCount: number };
const queuedRunReaders = new Set<Reader>();
const openStreamReaders = new Set<Reader>();
const pools = new Set<PoolCounts>();

async function sumOf(readers: ReadonlySet<Reader>): Promise<number> {
  let sum = 0;
  for (const read of readers) sum += await read();
  return sum;
}

/** Each `watch*` adds a source read at every scrape and answers the function that removes it
 * (a closed database, app or worker is no longer counted). */
function watch<T>(set: Set<T>, item: T): () => void {
  set.add(item);
  return () => void set.delete(item);
}
export const watchQueuedRuns = (read: Reader) => watch(queuedRunReaders, read);
export const watchEventStreams = (read: Reader) => watch(openStreamReaders, read);
export const watchPool = (pool: PoolCounts) => watch(pools, pool);

/** The metrics in Prometheus' text format, and its content type. */
export async function metricsText(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}
