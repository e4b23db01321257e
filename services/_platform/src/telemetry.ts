/**
 * OpenTelemetry: the SDK (when OTEL_ENABLED) and W3C trace-context propagation over HTTP and
 * NATS headers. Propagation works even with the SDK off, so trace ids still reach the logs.
 */
import { context, propagation, trace, type Context as OtelContext, type Span } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
// Why: the SDK is heavy to import (seconds of CPU); CLIs and tests that never enable it skip it.
let sdk: { shutdown(): Promise<void> } | undefined;

/** True once startTelemetry enabled the SDK: only then are per-request spans worth creating. */
export function isTelemetryEnabled(): boolean {
  return sdk !== undefined;
}

/** Register the propagator and, when enabled, start the SDK (exporter from OTEL_* env vars). */
export function startTelemetry(serviceName: string, enabled: boolean): { shutdown: () => Promise<void> } {
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  if (enabled && !sdk) {
    const starting = import('@opentelemetry/sdk-node').then(({ NodeSDK }) => {
      const instance = new NodeSDK({ serviceName });
      instance.start();
      return instance;
    });
    sdk = { shutdown: async () => (await starting).shutdown() };
  }
  return {
    shutdown: async () => {
      await sdk?.shutdown().catch(() => undefined);
      sdk = undefined;
    },
  };
}

/** The tracer of a service. */
export const tracer = (name: string) => trace.getTracer(name);

/** Add `traceparent`/`tracestate` of the active context to a header record. */
export function injectTraceHeaders(headers: Record<string, string> = {}, ctx: OtelContext = context.active()): Record<string, string> {
  propagation.inject(ctx, headers);
  return headers;
}

/** Extract a context from incoming headers. */
export function extractTraceContext(headers: Record<string, string | string[] | undefined>): OtelContext {
  return propagation.extract(context.active(), headers);
}

/** Trace id of the active span (or of `span`), for logs. */
export function currentTraceId(span?: Span): string | undefined {
  const s = span ?? trace.getActiveSpan();
  const id = s?.spanContext().traceId;
  return id && id !== '00000000000000000000000000000000' ? id : undefined;
}
