/**
 * The gateway's background work and shutdown order, so that main.ts stays a declaration: the
 * shared rate-limit bucket and the OpenAPI fragments start in the background (until they are
 * there, the in-process limiter and the gateway's own document answer); on shutdown the token
 * invalidation subscriptions go first, then NATS, the upstream connections and telemetry.
 *
 * When to use: only from main.ts.
 */
import type { NatsHandle } from '@rdm/platform';
import type { Gateway } from './app.js';

/** Workers and closers of a running gateway, for runService. */
export function gatewayLifecycle(
  gw: Gateway,
  nc: NatsHandle['nc'],
  subscriptions: { unsubscribe(): void }[],
  telemetry: { shutdown(): Promise<void> },
) {
  return {
    workers: [
      // Not awaited: until the bucket is open, the in-process limiter decides.
      { name: 'rate-limits', start: () => void gw.sharedLimits?.start(), stop: () => gw.sharedLimits?.stop() },
      // Not awaited: fragments arrive in the background while the gateway already serves.
      { name: 'openapi', start: () => void gw.openapi.start(), stop: () => gw.openapi.stop() },
    ],
    closers: [
      () => {
        for (const s of subscriptions) s.unsubscribe();
      },
      () => nc.drain(),
      () => gw.proxy.close(),
      () => telemetry.shutdown(),
    ],
  };
}
