/**
 * Process lifecycle of a service: listen, run background workers, turn ready (`/readyz`) only
 * once the workers started, the RPC subscriptions reached NATS and `ready` resolved (a service is
 * never ready before it is reachable), and on SIGTERM/SIGINT drain
 * in order — readiness fails, new connections are still accepted for the drain delay (the
 * orchestrator stops routing meanwhile), HTTP stops accepting and finishes in-flight requests, workers
 * (relays, consumers) stop, pools and connections close — within SHUTDOWN_TIMEOUT_MS.
 */
import { createServer, type Server } from 'node:http';
import type Koa from 'koa';
import type { Health } from './health.js';
import { createBoundedServer, DEFAULT_HTTP_SERVER_BOUNDS, type HttpServerBounds } from './http-bounds.js';
import type { Logger } from './logger.js';
import { rpcSubscriptionsFlushed } from './nats.js';

/** A background worker started after listen and stopped on shutdown. */
export interface Worker {
  name: string;
  start(): Promise<void> | void;
  stop(): Promise<void> | void;
}

/** Options of runService. */
export interface RunServiceOptions {
  name: string;
  app: Koa<any>;
  health: Health;
  logger: Logger;
  host: string;
  port: number;
  workers?: Worker[];
  /** Closed last (db pools, NATS connection, telemetry). */
  closers?: (() => Promise<unknown> | unknown)[];
  shutdownTimeoutMs?: number;
  /**
   * After SIGTERM, how long to keep accepting connections while `/readyz` answers 503 before
   * closing (SHUTDOWN_DRAIN_DELAY_MS): an orchestrator removes a terminating pod from its
   * endpoints only after a moment, and a connection refused meanwhile is a 502 at the ingress.
   */
  drainDelayMs?: number;
  /** More things readiness waits for (e.g. consumers' `ready`); RPC subscriptions are awaited anyway. */
  ready?: Promise<unknown>[];
  /**
   * Time bounds of the HTTP server (http-bounds.ts). `serviceMain` passes the configuration's; without
   * them (the gateway, which bounds client bodies itself: gateway/src/body-timeouts.ts) the server has
   * node's timeouts only, as set by the caller.
   */
  bounds?: HttpServerBounds;
}

/** A plain server: keep-alive above the gateway pool's idle time, no request timeout (the caller sets its own). */
function unboundedServer(app: Koa<any>): Server {
  const server = createServer(app.callback());
  server.keepAliveTimeout = DEFAULT_HTTP_SERVER_BOUNDS.keepAliveTimeoutMs;
  server.headersTimeout = DEFAULT_HTTP_SERVER_BOUNDS.keepAliveTimeoutMs + 1000;
  server.requestTimeout = 0;
  return server;
}

/** Start the HTTP server and workers; resolves once listening. Returns a stop function. */
export async function runService(o: RunServiceOptions): Promise<{ server: Server; stop: (reason?: string) => Promise<void> }> {
  let started!: () => void;
  let failed!: (err: unknown) => void;
  o.health.holdUntil(
    new Promise<void>((resolve, reject) => {
      started = resolve;
      failed = reject;
    }),
  );
  // Why bounded: slow heads and bodies would otherwise hold connections (and the gateway's pool) for ever.
  const server = o.bounds ? createBoundedServer(o.app.callback(), o.bounds) : unboundedServer(o.app);
  server.listen(o.port, o.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  try {
    for (const w of o.workers ?? []) await w.start();
    await Promise.all([rpcSubscriptionsFlushed(), ...(o.ready ?? [])]);
    started();
  } catch (err) {
    failed(err);
    throw err;
  }
  o.logger.info({ port: o.port, host: o.host }, `${o.name} listening`);

  let stopping: Promise<void> | undefined;
  const stop = (reason = 'stop') => {
    stopping ??= (async () => {
      o.logger.info({ reason }, 'shutting down');
      o.health.setShuttingDown();
      const timer = setTimeout(
        () => {
          o.logger.error('shutdown timed out; exiting');
          process.exit(1);
        },
        (o.drainDelayMs ?? 0) + (o.shutdownTimeoutMs ?? 10_000),
      );
      timer.unref();
      if (o.drainDelayMs) await new Promise((resolve) => setTimeout(resolve, o.drainDelayMs));
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections?.();
      });
      for (const w of [...(o.workers ?? [])].reverse()) {
        try {
          await w.stop();
        } catch (err) {
          o.logger.warn({ err, worker: w.name }, 'worker stop failed');
        }
      }
      for (const c of o.closers ?? []) {
        try {
          await c();
        } catch (err) {
          o.logger.warn({ err }, 'closer failed');
        }
      }
      clearTimeout(timer);
      o.logger.info('stopped');
    })();
    return stopping;
  };
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    process.once(sig, () => {
      void stop(sig).then(() => process.exit(0));
    });
  }
  return { server, stop };
}
