import type { TracingConfig } from '../../config.ts';
import { setTracingOn } from './tracing.ts';

export type Tracing = {
  /** Sends the spans still held (tests wait on it). */
  flush(): Promise<void>;
  /** Sends what is held and stops tracing. */
  shutdown(): Promise<void>;
};

/**
 * Registers this process's tracer provider, exporting over OTLP/HTTP (JSON) to the collector at
 * OTEL_EXPORTER_OTLP_ENDPOINT (`/v1/traces` under it, as the specification says of that
 * variable); null when it is unset, and nothing of the SDK is loaded or running. The exporter
 * also reads OTEL_EXPORTER_OTLP_HEADERS (a collector's key) from the environment itself.
 */
export async function startTracing(config: TracingConfig | null, process: 'web' | 'worker'): Promise<Tracing | null> {
  if (!config) return null;
  // Imported here, not at the top: a process that does not trace never loads the SDK and the
  // exporter (the whole bench's server memory grew past its target when they were always loaded).
  const [{ context, propagation, trace }, { AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }, { OTLPTraceExporter }, { resourceFromAttributes }, { BasicTracerProvider, BatchSpanProcessor }] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-base'),
  ]);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName, 'service.instance.role': process }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: config.tracesUrl }))],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  setTracingOn(true);
  return {
    flush: () => provider.forceFlush(),
    async shutdown() {
      setTracingOn(false);
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
