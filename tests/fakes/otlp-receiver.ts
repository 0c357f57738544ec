import type { IncomingMessage } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { sendJson, startFakeHttpServer, type FakeHttpServer } from './http.ts';

/**
 * A local OTLP/HTTP traces receiver, as an OpenTelemetry Collector's `otlp` receiver answers
 * (OTLP specification, "OTLP/HTTP"): POST /v1/traces only; the JSON encoding
 * (`application/json`; protobuf, which the JSON exporter does not send, is answered 415 like any
 * other type); gzip when Content-Encoding says so; ids hex strings as OTLP/JSON requires (a
 * base64 id, protobuf's own JSON mapping, is refused 400); 64-bit numbers as strings or numbers;
 * a body that is not an ExportTraceServiceRequest refused 400 with a google.rpc.Status. Accepted
 * requests get 200 and an empty ExportTraceServiceResponse.
 */

/** A span as received, its attributes made plain. */
export type ReceivedSpan = {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  /** 0 unset, 1 ok, 2 error. */
  status: number;
  service: string | null;
};

export type OtlpReceiver = FakeHttpServer & {
  /** OTEL_EXPORTER_OTLP_ENDPOINT for the exporter. */
  endpoint: string;
  spans: ReceivedSpan[];
  requests: number;
};

const HEX_TRACE_ID = /^[0-9a-f]{32}$/;
const HEX_SPAN_ID = /^[0-9a-f]{16}$/;

class BadRequest extends Error {}

type AnyValue = { stringValue?: string; boolValue?: boolean; intValue?: string | number; doubleValue?: number; arrayValue?: { values?: AnyValue[] } };
type KeyValue = { key: string; value: AnyValue };

function plain(value: AnyValue): unknown {
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('arrayValue' in value) return (value.arrayValue?.values ?? []).map(plain);
  return null;
}

function attributesOf(list: unknown): Record<string, unknown> {
  if (list === undefined) return {};
  if (!Array.isArray(list)) throw new BadRequest('attributes must be a list of KeyValue');
  return Object.fromEntries((list as KeyValue[]).map((kv) => {
    if (typeof kv?.key !== 'string' || typeof kv.value !== 'object') throw new BadRequest('a KeyValue needs key and value');
    return [kv.key, plain(kv.value)];
  }));
}

function spansOf(body: unknown): ReceivedSpan[] {
  const resourceSpans = (body as { resourceSpans?: unknown })?.resourceSpans;
  if (!Array.isArray(resourceSpans)) throw new BadRequest('resourceSpans must be a list');
  const out: ReceivedSpan[] = [];
  for (const rs of resourceSpans as Array<{ resource?: { attributes?: unknown }; scopeSpans?: unknown }>) {
    const service = attributesOf(rs.resource?.attributes)['service.name'];
    if (!Array.isArray(rs.scopeSpans)) throw new BadRequest('scopeSpans must be a list');
    for (const ss of rs.scopeSpans as Array<{ spans?: unknown }>) {
      if (!Array.isArray(ss.spans)) throw new BadRequest('spans must be a list');
      for (const span of ss.spans as Array<Record<string, unknown>>) {
        const { traceId, spanId, parentSpanId, name, kind, startTimeUnixNano, endTimeUnixNano } = span;
        if (typeof traceId !== 'string' || !HEX_TRACE_ID.test(traceId)) throw new BadRequest(`invalid traceId ${String(traceId)}: OTLP/JSON ids are hex`);
        if (typeof spanId !== 'string' || !HEX_SPAN_ID.test(spanId)) throw new BadRequest(`invalid spanId ${String(spanId)}: OTLP/JSON ids are hex`);
        if (parentSpanId !== undefined && parentSpanId !== '' && (typeof parentSpanId !== 'string' || !HEX_SPAN_ID.test(parentSpanId))) throw new BadRequest('invalid parentSpanId');
        if (typeof name !== 'string' || name === '') throw new BadRequest('a span needs a name');
        for (const time of [startTimeUnixNano, endTimeUnixNano]) {
          if (!(typeof time === 'number' || (typeof time === 'string' && /^\d+$/.test(time)))) throw new BadRequest('timestamps are fixed64: numbers or decimal strings');
        }
        if (kind !== undefined && (typeof kind !== 'number' || kind < 0 || kind > 5)) throw new BadRequest('kind is an integer enum (0 to 5)');
        out.push({
          traceId,
          spanId,
          parentSpanId: typeof parentSpanId === 'string' && parentSpanId !== '' ? parentSpanId : null,
          name,
          kind: typeof kind === 'number' ? kind : 0,
          attributes: attributesOf(span.attributes),
          status: Number((span.status as { code?: number } | undefined)?.code ?? 0),
          service: typeof service === 'string' ? service : null,
        });
      }
    }
  }
  return out;
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  return req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
}

export async function startOtlpReceiver(port = 0): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const state = { requests: 0 };
  const fake = await startFakeHttpServer('otlp receiver', port, async (req, res) => {
    if (req.url !== '/v1/traces') return sendJson(res, 404, { code: 5, message: `unknown path ${req.url}` });
    if (req.method !== 'POST') return sendJson(res, 405, { code: 12, message: `${req.method} not allowed` });
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
    if (type !== 'application/json') return sendJson(res, 415, { code: 3, message: `unsupported content type ${type}: this receiver takes application/json` });
    state.requests += 1;
    try {
      spans.push(...spansOf(JSON.parse((await bodyOf(req)).toString('utf8'))));
    } catch (err) {
      if (!(err instanceof BadRequest) && !(err instanceof SyntaxError)) throw err;
      return sendJson(res, 400, { code: 3, message: err.message });
    }
    sendJson(res, 200, {});
  });
  return {
    ...fake,
    endpoint: fake.root,
    spans,
    get requests() {
      return state.requests;
    },
  };
}
