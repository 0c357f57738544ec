import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';

/**
 * OpenTelemetry traces (issue 33 item 4, docs/decisions/0091): off unless
 * OTEL_EXPORTER_OTLP_ENDPOINT is set (start-tracing.ts). Spans are made by hand where the work
 * is (a request, a database statement, a provider call, a job): automatic instrumentation needs
 * loader hooks this ESM server does not run under. Off, `inSpan` calls its work directly: no
 * span, no context, nothing allocated.
 */
let on = false;

export function tracingOn(): boolean {
  return on;
}

/** Set by start-tracing.ts once a tracer provider is registered, and cleared at its shutdown. */
export function setTracingOn(value: boolean): void {
  on = value;
}

const tracer = () => trace.getTracer('automation-hub');

export type SpanOptions = {
  kind?: SpanKind;
  attributes?: Attributes;
  /** Only as a child of a span already open: work done outside any request or job (a timer's
   * statements) would otherwise start a trace of its own every second. */
  childOnly?: boolean;
  /** A job's span: a trace of its own, whatever context the queue's loop happened to run in. */
  root?: boolean;
};

/** Runs `work` in a span of that name (its child spans nest under it); a throw marks it failed. */
export async function inSpan<T>(name: string, options: SpanOptions, work: (span: Span | null) => Promise<T>): Promise<T> {
  if (!on || (options.childOnly && !trace.getActiveSpan())) return work(null);
  return tracer().startActiveSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, root: options.root ?? false, ...(options.attributes ? { attributes: options.attributes } : {}) }, async (span) => {
    try {
      return await work(span);
    } catch (err) {
      failed(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

export function failed(span: Span, err: unknown): void {
  if (err instanceof Error) span.recordException(err);
  span.setStatus({ code: SpanStatusCode.ERROR, ...(err instanceof Error ? { message: err.message } : {}) });
}

/** A request's span, started by hand (its end is in another hook); null when tracing is off.
 * A `traceparent` the caller sent (W3C trace context) makes it part of the caller's trace. */
export function startRequestSpan(name: string, headers: Record<string, unknown>, attributes: Attributes): { span: Span; context: Context } | null {
  if (!on) return null;
  const parent = propagation.extract(context.active(), headers);
  const span = tracer().startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** Calls `fn` with `ctx` active: what it starts (and awaits) is part of that span. */
export function withContext<T>(ctx: Context, fn: () => T): T {
  return context.with(ctx, fn);
}

export { SpanKind };
