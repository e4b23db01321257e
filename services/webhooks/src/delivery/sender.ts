/**
 * One HTTP attempt of a delivery: POST with the Standard Webhooks headers through an undici Agent
 * whose `connect.lookup` is the SSRF guard's pinned lookup (the connection goes to the address
 * checked), IP-literal hosts checked before connecting, redirects never followed (a 3xx is a
 * failure), a timeout over the whole exchange, and only a prefix of the response body read.
 *
 * When to use: the delivery worker (delivery/worker.ts) for every attempt; nothing else posts to
 * subscriber targets.
 */
import { Agent, request } from 'undici';
import { checkAddress, isIpLiteral, parseCidrs, pinnedLookup, TargetRefused } from '../domain/ssrf.js';

/** Bytes of a response body kept in the delivery log. */
export const RESPONSE_PREFIX_BYTES = 1024;

/** Result of one attempt that got an HTTP answer. */
export interface SendResult {
  status: number;
  prefix: string;
  latencyMs: number;
}

/** Posts deliveries to checked targets. */
export class Sender {
  private readonly allowed: ReturnType<typeof parseCidrs>;
  private readonly agent: Agent;

  constructor(o: { allowedCidrs: string; timeoutMs: number; connections?: number }) {
    this.allowed = parseCidrs(o.allowedCidrs);
    this.timeoutMs = o.timeoutMs;
    this.agent = new Agent({
      connect: { lookup: pinnedLookup(this.allowed) as never, timeout: o.timeoutMs },
      headersTimeout: o.timeoutMs,
      bodyTimeout: o.timeoutMs,
      connections: o.connections ?? 8,
    });
  }

  private readonly timeoutMs: number;

  /** POST `body` to `url` with `headers`; throws on network errors, refused targets and timeouts. */
  async post(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const u = new URL(url);
    if (isIpLiteral(u.hostname)) {
      const refusal = checkAddress(u.hostname, this.allowed);
      if (refusal) throw new TargetRefused(refusal);
    }
    const started = performance.now();
    const signal = AbortSignal.timeout(this.timeoutMs);
    const res = await request(u, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'rdm-webhooks/1', ...headers },
      body,
      dispatcher: this.agent,
      signal,
    });
    let prefix = Buffer.alloc(0);
    try {
      for await (const chunk of res.body) {
        prefix = Buffer.concat([prefix, chunk as Buffer]);
        if (prefix.length >= RESPONSE_PREFIX_BYTES) break;
      }
    } finally {
      res.body.destroy();
    }
    return {
      status: res.statusCode,
      prefix: prefix
        .subarray(0, RESPONSE_PREFIX_BYTES)
        .toString('utf8')
        .replace(/\uFFFD+$/, ''),
      latencyMs: Math.round(performance.now() - started),
    };
  }

  /** Close the connection pool. */
  async close(): Promise<void> {
    await this.agent.close();
  }
}
