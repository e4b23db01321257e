/**
 * The gateway's view of its services' readiness, for its own `/readyz`.
 *
 * When to use: `createApp` registers one `upstreams` check built here. It asks each service
 * listed in `READY_UPSTREAMS` for its `/readyz` (in parallel, 1 s timeout, answers reused for
 * `READY_UPSTREAMS_CACHE_MS` so probes of many gateway replicas do not multiply). Mode `any`
 * (default): the gateway is not ready only when none of them is — a PostgreSQL or NATS outage,
 * which every service reports — while one stopped service leaves it ready (its routes answer 503
 * and the rest keep working). Mode `all`: every listed service must be ready.
 */
import type { Upstream } from './proxy.js';

/** Options of upstreamsCheck. */
export interface UpstreamsCheckOptions {
  upstreams: Upstream[];
  mode: 'any' | 'all';
  /** How long an answer is reused (ms). */
  cacheMs: number;
  /** Timeout of one `/readyz` call (default 1000 ms). */
  timeoutMs?: number;
}

async function probe(u: Upstream, timeoutMs: number): Promise<string | undefined> {
  try {
    const res = await fetch(`${u.origin}/readyz`, { signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel();
    return res.ok ? undefined : `${u.name} ${res.status}`;
  } catch (err) {
    return `${u.name} ${(err as Error).name === 'TimeoutError' ? 'timeout' : 'unreachable'}`;
  }
}

/** A readiness check over the services' `/readyz` (see the file header); throws naming the services not ready. */
export function upstreamsCheck(o: UpstreamsCheckOptions): () => Promise<void> {
  const timeoutMs = o.timeoutMs ?? 1000;
  let cached: { at: number; down: Promise<string[]> } | undefined;
  return async () => {
    if (o.upstreams.length === 0) return;
    const now = Date.now();
    if (!cached || now - cached.at > o.cacheMs) {
      const down = Promise.all(o.upstreams.map((u) => probe(u, timeoutMs))).then((r) => r.filter((x): x is string => x !== undefined));
      cached = { at: now, down };
    }
    const down = await cached.down;
    const failed = o.mode === 'all' ? down.length > 0 : down.length === o.upstreams.length;
    if (failed) throw new Error(`not ready: ${down.join(', ')}`);
  };
}
