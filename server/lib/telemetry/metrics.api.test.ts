import { readFileSync } from 'node:fs';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate, type TAgent, type TAgentConfig, type TAgentRun } from '../../../contracts/agents.ts';
import { estimateCostUsd } from '../../../contracts/chat.ts';
import type { TCreatedChannel } from '../../../contracts/channels.ts';
import { startChannelReceivers, type ChannelReceivers } from '../../../tests/fakes/channel-receivers.ts';
import { startFakeAiProviders, type FakeAiProviders } from '../../../tests/fakes/ai-providers.ts';
import { startHealthServer } from '../../modules/health/health-server.ts';
import { createHealthService } from '../../modules/health/health.service.ts';
import { startWorkers, type Workers } from '../../modules/runtime/workers.ts';
import { chat, TEST_MODELS } from '../../test/chat-helpers.ts';
import { listenLocally, openEvents } from '../../test/event-stream-client.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { until } from '../../test/until.ts';
import { startMetricsServer } from './metrics-endpoint.ts';

const silent = pino({ level: 'silent' });
const TOKEN = 'metrics-token-for-the-tests-0123456789';
const ADMIN = 'metrics-admin@example.com';

type Sample = { labels?: Record<string, string>; value?: string; count?: string; sum?: string; buckets?: Record<string, string> };
type Family = { name: string; help: string; type: string; metrics: Sample[] };

/**
 * The metrics as Prometheus reads them: a text-format parser, not our own. It folds a histogram's
 * series into one sample and drops their labels when there are any besides `le`, so histograms
 * are read a second time as untyped, which gives their `_count`, `_sum` and `_bucket` series
 * whole, under those names.
 */
function parse(text: string): Map<string, Family> {
  const families = new Map((parsePrometheusTextFormat(text) as Family[]).map((f) => [f.name, f]));
  for (const f of parsePrometheusTextFormat(text.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped')) as Family[]) {
    const base = f.name.replace(/_(count|sum|bucket)$/, '');
    if (base === f.name || families.get(base)?.type !== 'HISTOGRAM') continue;
    const kept = families.get(f.name);
    if (kept) kept.metrics.push(...f.metrics);
    else families.set(f.name, { ...f, metrics: [...f.metrics] });
  }
  return families;
}

/** The value of the series with exactly these labels (a histogram's: `<name>_count`); 0 when absent. */
function valueOf(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const sample = families.get(name)?.metrics.find((m) => {
    const own = m.labels ?? {};
    return Object.keys(own).length === Object.keys(labels).length && Object.entries(labels).every(([k, v]) => own[k] === v);
  });
  return sample ? Number(sample.value) : 0;
}

describe('metrics', () => {
  let t: TestApp;
  let ai: FakeAiProviders;
  let receivers: ChannelReceivers;
  let workers: Workers;
  let admin: string;
  let adminId: string;

  const scrape = async () => {
    const res = await t.request({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return parse(res.body);
  };

  beforeAll(async () => {
    ai = await startFakeAiProviders();
    receivers = await startChannelReceivers({ tls: false });
    t = await createTestApp({
      env: { ...ai.env, ADMIN_EMAILS: ADMIN, METRICS_TOKEN: TOKEN, MARKET_DATA: 'simulated', OUTBOUND_ALLOW_LOOPBACK: 'true', CHANNEL_RETRIES: '0', DISPATCH_LOOKAHEAD_MS: '0' },
    });
    admin = await t.signIn(ADMIN, 'Meg Metrics');
    adminId = (await t.request({ url: '/api/auth/me', cookie: admin })).json<{ user: { id: string } }>().user.id;
    workers = await startWorkers({ config: t.config, database: t.database, jobs: t.jobs, logger: silent, notifications: t.app.notifications, channels: t.app.channels, events: t.app.events });
  });
  afterAll(async () => {
    await workers?.stop();
    await t?.close();
    await ai?.close();
    await receivers?.close();
  });

  it('are served at /metrics only with the bearer token', async () => {
    expect((await t.request({ url: '/metrics' })).statusCode).toBe(401);
    const wrong = await t.request({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}x` } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.headers['www-authenticate']).toBe('Bearer');
    expect(wrong.body).not.toContain('http_requests_total');
    await scrape();
  });

  it('count HTTP requests by route pattern and status, with their latency', async () => {
    const before = await scrape();
    for (let i = 0; i < 3; i++) expect((await t.request({ url: '/api/health' })).statusCode).toBe(200);
    expect((await t.request({ url: '/api/agents/5f0c0d4e-8f57-4c1b-9a43-2b8f8f8f8f8f/runs', cookie: admin })).statusCode).toBe(404);
    expect((await t.request({ url: '/api/no-such-thing' })).statusCode).toBe(404);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => valueOf(after, name, labels) - valueOf(before, name, labels);
    expect(delta('http_requests_total', { method: 'GET', route: '/api/health', status_code: '200' })).toBe(3);
    expect(delta('http_request_duration_seconds_count', { method: 'GET', route: '/api/health', status_code: '200' })).toBe(3);
    expect(delta('http_requests_total', { method: 'GET', route: '/api/agents/:id/runs', status_code: '404' })).toBe(1);
    expect(delta('http_requests_total', { method: 'GET', route: 'unmatched', status_code: '404' })).toBe(1);
    // Never the raw URL: one series per path a scanner tries would grow without bound.
    const routes = after.get('http_requests_total')!.metrics.map((m) => m.labels?.route ?? '');
    expect(routes.some((r) => r.includes('5f0c0d4e') || r.includes('no-such-thing'))).toBe(false);
    expect(after.get('http_request_duration_seconds')!.type).toBe('HISTOGRAM');
  });

  it('count chat answers, tokens and cost by provider and model, and time the first token of a stream', async () => {
    const before = await scrape();
    const json = await chat(t, admin, 'openai');
    expect(json.json().error).toBe(false);
    const streamed = await chat(t, admin, 'anthropic', { stream: true });
    expect(streamed.statusCode).toBe(200);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => valueOf(after, name, labels) - valueOf(before, name, labels);
    const usage = json.json().usage as { inputTokens: number; outputTokens: number };
    const gpt = { provider: 'openai', model: TEST_MODELS.openai };
    expect(delta('chat_answers_total', { ...gpt, outcome: 'ok' })).toBe(1);
    expect(delta('chat_tokens_total', { ...gpt, direction: 'input' })).toBe(usage.inputTokens);
    expect(delta('chat_tokens_total', { ...gpt, direction: 'output' })).toBe(usage.outputTokens);
    expect(delta('chat_cost_usd_total', gpt)).toBeCloseTo(estimateCostUsd(gpt.model, usage), 9);
    const claude = { provider: 'anthropic', model: TEST_MODELS.anthropic };
    expect(delta('chat_answers_total', { ...claude, outcome: 'ok' })).toBe(1);
    expect(delta('chat_time_to_first_token_seconds_count', claude)).toBe(1);
    // A JSON answer has no first token of its own.
    expect(delta('chat_time_to_first_token_seconds_count', gpt)).toBe(0);
  });

  it('count runs by status and show the queue; deliveries by channel and status', async () => {
    const before = await scrape();
    const template = findTemplate('stock-market-scanner')!;
    // Its run may alert; only the alert below emails, so the email count is known.
    const quiet = (config: TAgentConfig): TAgentConfig => ({ ...config, notifications: { ...config.notifications, email: false } });
    const created = await t.request({ method: 'POST', url: '/api/agents', cookie: admin, payload: { templateId: template.id, name: 'Counted', config: quiet(defaultAgentConfig(template)) } });
    const agent = created.json<TAgent>();
    expect((await t.request({ method: 'POST', url: `/api/agents/${agent.id}/run`, cookie: admin })).statusCode).toBe(202);
    await until(async () => (await t.request({ url: `/api/agents/${agent.id}/runs`, cookie: admin })).json<TAgentRun[]>(), (runs) => runs[0]?.status === 'success');

    const slack = (await t.request({ method: 'POST', url: '/api/channels', cookie: admin, payload: { kind: 'slack', name: 'Team', url: `${receivers.origin}/slack/team` } })).json<TCreatedChannel>();
    const gone = (await t.request({ method: 'POST', url: '/api/channels', cookie: admin, payload: { kind: 'discord', name: 'Gone', url: `${receivers.origin}/discord/gone` } })).json<TCreatedChannel>();
    await t.app.notifications.applyAlerts({
      userId: adminId,
      agentId: agent.id,
      agentName: agent.name,
      runId: null,
      emailEnabled: true,
      inAppEnabled: true,
      channelIds: [slack.id, gone.id],
      conditions: [{ market: 'AAPL', thresholdType: 'priceChange', firing: true, value: 3.2, limit: 1, message: 'AAPL moved 3.2%' }],
    });
    // Each is counted once its outcome is stored, a moment after the API can show it: wait for all of them.
    const grew = (m: Map<string, Family>, name: string, labels: Record<string, string>) => valueOf(m, name, labels) > valueOf(before, name, labels);
    const after = await until(scrape, (m) =>
      [{ channel: 'slack', status: 'sent' }, { channel: 'discord', status: 'failed' }, { channel: 'email', status: 'logged' }].every((labels) => grew(m, 'channel_deliveries_total', labels)) &&
      grew(m, 'agent_runs_total', { status: 'success' }),
    );
    const delta = (name: string, labels: Record<string, string> = {}) => valueOf(after, name, labels) - valueOf(before, name, labels);
    expect(delta('agent_runs_total', { status: 'success' })).toBe(1);
    expect(after.get('agent_runs_queued')!.metrics[0]!.value).toBe('0');
    expect(after.get('agent_run_start_lag_seconds')!.type).toBe('HISTOGRAM');
    expect(delta('channel_deliveries_total', { channel: 'slack', status: 'sent' })).toBe(1);
    expect(delta('channel_deliveries_total', { channel: 'discord', status: 'failed' })).toBe(1);
    // No SMTP_URL here: the alert's email is written to the log.
    expect(delta('channel_deliveries_total', { channel: 'email', status: 'logged' })).toBe(1);
  });

  it('show the database queue (PGlite) or pool (PostgreSQL), and the event streams open', async () => {
    const families = await scrape();
    if (t.database.kind === 'pglite') {
      expect(valueOf(families, 'db_queue_wait_seconds_count')).toBeGreaterThan(0);
    } else {
      expect(valueOf(families, 'db_pool_connections', { state: 'total' })).toBeGreaterThan(0);
      expect(families.get('db_pool_connections')!.metrics.map((m) => m.labels!.state).sort()).toEqual(['idle', 'total', 'waiting']);
    }
    expect(valueOf(families, 'event_streams_open')).toBe(0);
    const stream = await openEvents(await listenLocally(t.app), admin);
    expect(stream.status).toBe(200);
    expect(valueOf(await scrape(), 'event_streams_open')).toBe(1);
    stream.close();
    await until(scrape, (m) => valueOf(m, 'event_streams_open') === 0);
  });

  it("every metric the Grafana dashboard in deploy/ queries is one /metrics serves", async () => {
    const dashboard = JSON.parse(readFileSync(new URL('../../../deploy/grafana/automation-hub.json', import.meta.url), 'utf8')) as { panels: Array<{ title: string; targets?: Array<{ expr: string }> }> };
    const served = await scrape();
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((target) => ({ panel: p.title, expr: target.expr })));
    expect(exprs.length).toBeGreaterThan(10);
    for (const { panel, expr } of exprs) {
      const names = metricNames(expr);
      expect(names.length, `${panel}: ${expr}`).toBeGreaterThan(0);
      for (const name of names) expect(served.has(name), `${panel} queries ${name}, which /metrics does not serve`).toBe(true);
    }
  });
});

/** The metric names a PromQL expression reads: its identifiers once grouping labels, selectors,
 * ranges and strings are taken out, less function names (followed by '(') and PromQL's words. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/"[^"]*"/g, ' ');
  return [...bare.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b(?!\s*\()/g)].map((m) => m[1]!).filter((n) => !PROMQL_WORDS.has(n));
}

/** PromQL's own words that stand where a metric name could. */
const PROMQL_WORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset']);


describe('metrics on a port of their own (METRICS_PORT) and on the worker\'s health port', () => {
  it('METRICS_PORT serves /metrics, asking for the token when one is set', async () => {
    const server = await startMetricsServer({ host: '127.0.0.1', port: 0, token: TOKEN, logger: silent });
    try {
      expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
      const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status).toBe(200);
      expect(parse(await res.text()).has('process_cpu_seconds_total')).toBe(true);
      expect((await fetch(`${server.url}/`)).status).toBe(404);
    } finally {
      await server.close();
    }
    const open = await startMetricsServer({ host: '127.0.0.1', port: 0, token: null, logger: silent });
    try {
      const res = await fetch(`${open.url}/metrics`);
      expect(res.status).toBe(200);
      expect(parse(await res.text()).get('http_requests_total')!.type).toBe('COUNTER');
    } finally {
      await open.close();
    }
  });

  it("the worker's health port serves /metrics beside its probes", async () => {
    const health = createHealthService({ database: { ping: async () => {} }, checks: [] });
    const server = await startHealthServer({ health, host: '127.0.0.1', port: 0, logger: silent, metricsToken: null });
    try {
      const res = await fetch(`${server.url}/metrics`);
      expect(res.status).toBe(200);
      expect(parse(await res.text()).has('agent_runs_total')).toBe(true);
      expect((await fetch(`${server.url}/api/health/live`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('without METRICS_TOKEN', () => {
  it('the web app serves no metrics on its public port', async () => {
    const t = await createTestApp();
    try {
      const res = await t.request({ url: '/metrics' });
      expect(res.statusCode).toBe(404);
      expect(res.body).not.toContain('http_requests_total');
      expect(res.json().message).toContain('METRICS_PORT');
    } finally {
      await t.close();
    }
  });
});
