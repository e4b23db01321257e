/**
 * Liveness and readiness. `/healthz` answers 200 while the process runs; `/readyz` answers 503
 * while any dependency check fails or the service is shutting down, so a load balancer stops
 * sending traffic before the drain.
 */
import type { Context } from 'koa';

/** A named dependency check; it throws (or rejects) when the dependency is unreachable. */
export type HealthCheck = () => Promise<unknown> | unknown;

/** Health state of one process. */
export class Health {
  private shuttingDown = false;
  private readonly degradable = new Set<string>();
  constructor(private readonly checks: Record<string, HealthCheck> = {}) {}

  /**
   * Register another check. With `degraded: true` a failure is reported (`degraded: …`) but keeps the
   * service ready: for a dependency only some requests need (the search engine: searches answer 503
   * while writes go on).
   */
  add(name: string, check: HealthCheck, opts: { degraded?: boolean } = {}): void {
    this.checks[name] = check;
    if (opts.degraded) this.degradable.add(name);
    else this.degradable.delete(name);
  }

  /**
   * Hold readiness until `done` settles: the check `name` (default `startup`) answers `starting`
   * until then, and the rejection's message if it rejects. `runService` holds readiness until
   * the workers started and the RPC subscriptions reached NATS.
   */
  holdUntil(done: Promise<unknown>, name = 'startup'): void {
    let state: { ok: true } | { ok: false; reason: string } = { ok: false, reason: 'starting' };
    done.then(
      () => {
        state = { ok: true };
      },
      (err: unknown) => {
        state = { ok: false, reason: `failed: ${(err as Error)?.message ?? String(err)}` };
      },
    );
    this.add(name, () => {
      if (!state.ok) throw new Error(state.reason);
    });
  }

  /** Mark the process as draining: readiness fails from now on. */
  setShuttingDown(): void {
    this.shuttingDown = true;
  }

  /** Run every check with a timeout; returns per-check status. */
  async readiness(timeoutMs = 1500): Promise<{ ready: boolean; checks: Record<string, string> }> {
    const results: Record<string, string> = {};
    await Promise.all(
      Object.entries(this.checks).map(async ([name, check]) => {
        try {
          await Promise.race([
            Promise.resolve().then(check),
            new Promise((_, rej) => setTimeout(() => rej(new Error('timeout')), timeoutMs).unref()),
          ]);
          results[name] = 'ok';
        } catch (e) {
          results[name] = `${this.degradable.has(name) ? 'degraded' : 'down'}: ${(e as Error).message ?? 'error'}`;
        }
      }),
    );
    if (this.shuttingDown) results.shutdown = 'shutting down';
    const ready = !this.shuttingDown && Object.entries(results).every(([name, r]) => r === 'ok' || this.degradable.has(name));
    return { ready, checks: results };
  }

  /** Koa handler for /healthz. */
  async live(ctx: Context): Promise<void> {
    ctx.body = { status: 'ok' };
  }

  /** Koa handler for /readyz. */
  async ready(ctx: Context): Promise<void> {
    const r = await this.readiness();
    ctx.status = r.ready ? 200 : 503;
    ctx.body = { status: r.ready ? 'ready' : 'unavailable', checks: r.checks };
  }
}

/**
 * Report the search engine as the degraded check `search` (nothing without an engine): `/readyz`
 * shows its outage, but searches alone answer 503 meanwhile and the service stays in rotation
 * (writes go on; the indexers catch up when it is back).
 */
export function addSearchHealth(health: Health, engine: { readonly kind: string; ping(): Promise<boolean> } | undefined): void {
  if (!engine) return;
  health.add(
    'search',
    async () => {
      if (!(await engine.ping())) throw new Error(`${engine.kind} unreachable`);
    },
    { degraded: true },
  );
}
