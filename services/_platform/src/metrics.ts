/**
 * Prometheus metrics: default process metrics, an HTTP duration histogram per service and the
 * number of SQL statements its pools sent (`db_statements_total`, BEGIN/COMMIT included, idle
 * polls not: what the deposit bench counts per step). Requests are observed by request-steps.ts
 * (`observeRequest`, `metricsMiddleware`).
 */
import type { Context } from 'koa';
import client from 'prom-client';

/** The process-wide registry. */
export const registry = new client.Registry();
let initialised = false;
let httpHistogram: client.Histogram<'method' | 'route' | 'status'> | undefined;

/** The request duration histogram (`http_request_duration_seconds`), once `initMetrics` ran. */
export const requestHistogram = () => httpHistogram;

/** Initialise default metrics once per process. */
export function initMetrics(service: string): void {
  if (initialised) return;
  initialised = true;
  registry.setDefaultLabels({ service });
  client.collectDefaultMetrics({ register: registry });
  httpHistogram = new client.Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
}

const dbStatements = new client.Counter({
  name: 'db_statements_total',
  help: 'SQL statements sent to PostgreSQL (BEGIN and COMMIT included)',
  registers: [registry],
});

/** Statements of idle background loops (the outbox relay's "anything waiting?" poll), not counted. */
export const IDLE_STATEMENTS = new Set<string>();

/** Count one statement (the knex `query` event of every pool made by createDb). */
export function countDbStatement(q: { sql?: string }): void {
  if (q.sql === undefined || !IDLE_STATEMENTS.has(q.sql)) dbStatements.inc();
}

/** Serve `/metrics`. */
export async function renderMetrics(ctx: Context): Promise<void> {
  ctx.type = registry.contentType;
  ctx.body = await registry.metrics();
}

export { client as promClient };
