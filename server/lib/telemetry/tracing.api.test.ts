import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate, type TAgent } from '../../../contracts/agents.ts';
import { startFakeAiProviders, type FakeAiProviders } from '../../../tests/fakes/ai-providers.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../../tests/fakes/otlp-receiver.ts';
import { loadConfig } from '../../config.ts';
import { startWorkers, type Workers } from '../../modules/runtime/workers.ts';
import { chat, TEST_MODELS } from '../../test/chat-helpers.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { until } from '../../test/until.ts';
import { startTracing, type Tracing } from './start-tracing.ts';

const silent = pino({ level: 'silent' });
const ADMIN = 'traced-admin@example.com';
const SERVER = 2;
const CLIENT = 3;

describe('traces over OTLP/HTTP', () => {
  let receiver: OtlpReceiver;
  let tracing: Tracing;
  let ai: FakeAiProviders;
  let t: TestApp;
  let admin: string;
  let workers: Workers | null = null;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    const config = loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: 'hub-under-test' }, { inMemoryDatabase: true }).tracing;
    tracing = (await startTracing(config, 'web'))!;
    ai = await startFakeAiProviders();
    t = await createTestApp({ env: { ...ai.env, ADMIN_EMAILS: ADMIN, MARKET_DATA: 'simulated', DISPATCH_LOOKAHEAD_MS: '0' } });
    admin = await t.signIn(ADMIN, 'Tracy Trace');
  });
  afterAll(async () => {
    await workers?.stop();
    await t?.close();
    await tracing?.shutdown();
    await ai?.close();
    await receiver?.close();
  });

  /** The spans received once the exporter has sent what it holds. */
  const received = async (match: (span: ReceivedSpan) => boolean): Promise<ReceivedSpan[]> =>
    until(
      async () => {
        await tracing.flush();
        return receiver.spans;
      },
      (spans) => spans.some(match),
    );
  const ancestors = (spans: ReceivedSpan[], span: ReceivedSpan): ReceivedSpan[] => {
    const chain: ReceivedSpan[] = [];
    for (let at = span.parentSpanId; at; ) {
      const parent = spans.find((s) => s.spanId === at);
      if (!parent) break;
      chain.push(parent);
      at = parent.parentSpanId;
    }
    return chain;
  };

  it('a chat request is one trace: the request, its database statements and the provider call', async () => {
    const res = await chat(t, admin, 'openai');
    expect(res.json().error).toBe(false);
    const model = TEST_MODELS.openai;
    const spans = await received((s) => s.name === `chat ${model}`);
    const request = spans.find((s) => s.name === 'POST /api/:provider/chat' || s.name === 'POST /api/openai/chat')!;
    expect(request, spans.map((s) => s.name).join(', ')).toBeDefined();
    expect(request.kind).toBe(SERVER);
    expect(request.service).toBe('hub-under-test');
    expect(request.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': 200 });
    const provider = spans.find((s) => s.name === `chat ${model}`)!;
    expect(provider.kind).toBe(CLIENT);
    expect(provider.traceId).toBe(request.traceId);
    expect(ancestors(spans, provider).map((s) => s.spanId)).toContain(request.spanId);
    const usage = res.json().usage as { inputTokens: number; outputTokens: number };
    expect(provider.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': model,
      'gen_ai.usage.input_tokens': usage.inputTokens,
      'gen_ai.usage.output_tokens': usage.outputTokens,
    });
    // The body was read before its statements ran: they are still the request's.
    const statements = spans.filter((s) => s.name === 'db query' && s.traceId === request.traceId);
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.every((s) => s.kind === CLIENT && s.attributes['db.system.name'] === 'postgresql' && typeof s.attributes['db.query.text'] === 'string')).toBe(true);
    // Nothing of the conversation is in the spans.
    expect(JSON.stringify(spans.filter((s) => s.traceId === request.traceId))).not.toContain('hello there');
  });

  it("a request that carries a caller's traceparent continues the caller's trace", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parent = '00f067aa0ba902b7';
    expect((await t.request({ url: '/api/health', headers: { traceparent: `00-${traceId}-${parent}-01` } })).statusCode).toBe(200);
    const spans = await received((s) => s.traceId === traceId && s.name === 'GET /api/health');
    expect(spans.find((s) => s.traceId === traceId && s.name === 'GET /api/health')!.parentSpanId).toBe(parent);
  });

  it("an agent's run is a job's trace: its span, and its statements under it", async () => {
    workers = await startWorkers({ config: t.config, database: t.database, jobs: t.jobs, logger: silent, notifications: t.app.notifications, channels: t.app.channels, events: t.app.events });
    const template = findTemplate('stock-market-scanner')!;
    const agent = (await t.request({ method: 'POST', url: '/api/agents', cookie: admin, payload: { templateId: template.id, name: 'Traced', config: defaultAgentConfig(template) } })).json<TAgent>();
    expect((await t.request({ method: 'POST', url: `/api/agents/${agent.id}/run`, cookie: admin })).statusCode).toBe(202);
    const spans = await received((s) => s.name === 'agent runs');
    const job = spans.find((s) => s.name === 'agent runs')!;
    expect(job.parentSpanId, spans.find((s) => s.spanId === job.parentSpanId)?.name).toBeNull();
    const statements = spans.filter((s) => s.traceId === job.traceId && s.name === 'db query');
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.some((s) => String(s.attributes['db.query.text']).includes('agent_runs'))).toBe(true);
  });
});

describe('tracing configuration', () => {
  const load = (env: Record<string, string>) => loadConfig(env, { inMemoryDatabase: true });

  it('is off without OTEL_EXPORTER_OTLP_ENDPOINT, and then nothing is started', async () => {
    expect(load({}).tracing).toBeNull();
    expect(await startTracing(null, 'web')).toBeNull();
  });

  it('sends to /v1/traces under the endpoint, or to the traces endpoint as given', () => {
    expect(load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing).toEqual({ tracesUrl: 'http://collector:4318/v1/traces', serviceName: 'automation-hub' });
    expect(load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://other:4318/custom' }).tracing!.tracesUrl).toBe('http://other:4318/custom');
    expect(() => load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT: must be an http:\/\/ or https:\/\/ URL/);
  });

  it('metrics settings: a port, a long token, and never the web port', () => {
    expect(load({}).metrics).toEqual({ port: null, host: '127.0.0.1', token: null });
    expect(() => load({ METRICS_PORT: 'ninety' })).toThrow(/METRICS_PORT: must be a port number/);
    expect(() => load({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN: must be at least 32 characters/);
    expect(() => load({ METRICS_PORT: '3000' })).toThrow(/METRICS_PORT: must differ from PORT/);
    expect(load({ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' }).startWarnings.join(' ')).toMatch(/METRICS_HOST is 0\.0\.0\.0 and METRICS_TOKEN is unset/);
  });
});
