/**
 * The part of autocannon 9's API the benches use (the package ships no types; its README is the
 * reference). Only what is read or passed here is declared, so a misspelt option or figure is a
 * type error (`make typecheck` covers scripts/).
 */
declare module 'autocannon' {
  /** One request of a `requests` cycle; `setupRequest` may rewrite it before each send. */
  interface Request {
    method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    setupRequest?: (req: { method?: string; path?: string; headers?: Record<string, string> }) => object;
  }
  interface Options {
    url: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    /** Stop after this many requests instead of `duration`. */
    amount?: number;
    method?: Request['method'];
    headers?: Record<string, string>;
    body?: string | Buffer;
    /** Cycled through by every connection; undefined = `url` with `method`/`headers`. */
    requests?: Request[];
  }
  /** A histogram summary (ms for latency, per second for requests, bytes/s for throughput). */
  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
  }
  interface Result {
    requests: Histogram & { sent: number };
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    '1xx': number;
    '2xx': number;
    '3xx': number;
    '4xx': number;
    '5xx': number;
    duration: number;
  }
  function autocannon(opts: Options): Promise<Result>;
  export default autocannon;
}
