/**
 * Search engines for integration tests: the real OpenSearch started by `scripts/infra/opensearch.sh`
 * (`OPENSEARCH_URL`, default http://127.0.0.1:9200), and the Elasticsearch 8 client wired to that same
 * node through `startEsCompatProxy` — Elasticsearch itself cannot run on these machines.
 *
 * When to use: `const os = await requireOpenSearch('my suite')` in `beforeAll`; it returns null and
 * says loudly what is skipped when no node answers, and throws under `CI` (a missing engine fails the
 * suite there). Use `describe.skipIf(!available)` with `openSearchAvailable()` at collection time.
 */
import { type IncomingHttpHeaders, type Server, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEngine } from '../search/engine/index.js';
import type { SearchEngine } from '../search/engine/port.js';

/** URL of the test OpenSearch node. */
export const TEST_OPENSEARCH_URL = process.env.OPENSEARCH_URL ?? 'http://127.0.0.1:9200';

/** True when the OpenSearch node answers `GET /` within 2 s. */
export async function openSearchAvailable(url = TEST_OPENSEARCH_URL): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * The OpenSearch URL, or null (with a loud warning) when the node is down and we are not under CI.
 * Under `CI` a missing node throws: the suite fails instead of silently skipping.
 */
export async function requireOpenSearch(what: string, url = TEST_OPENSEARCH_URL): Promise<string | null> {
  if (await openSearchAvailable(url)) return url;
  const msg = `OpenSearch is not reachable at ${url}: ${what} SKIPPED. Start it with \`make opensearch\` (scripts/infra/opensearch.sh start).`;
  // CI as the rest of the suites read it (and `make test`): set, and neither 'false' nor '0'.
  const ci = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';
  if (ci) throw new Error(`${msg} (CI: failing instead of skipping)`);
  console.warn(`\n!!! ${msg}\n`);
  return null;
}

const COMPAT = /application\/vnd\.elasticsearch\+(json|x-ndjson)\s*;\s*compatible-with=\d+/gi;

function rewrite(h: IncomingHttpHeaders): IncomingHttpHeaders {
  const { host: _host, ...out }: IncomingHttpHeaders = h;
  for (const k of ['accept', 'content-type']) {
    const v = out[k];
    if (typeof v === 'string')
      out[k] = v.replace(COMPAT, (_m, t: string) => (t.toLowerCase() === 'json' ? 'application/json' : 'application/x-ndjson'));
  }
  return out;
}

/**
 * A test-only HTTP proxy in front of OpenSearch that lets the `@elastic/elasticsearch` 8.x client talk
 * to it: it rewrites the client's `compatible-with=8` media types to plain JSON/NDJSON and adds the
 * `x-elastic-product: Elasticsearch` header the client insists on. Returns its URL and a `close`.
 */
export async function startEsCompatProxy(target = TEST_OPENSEARCH_URL): Promise<{ url: string; close: () => Promise<void> }> {
  const t = new URL(target);
  const server: Server = createServer((req, res) => {
    const up = request({ host: t.hostname, port: t.port || 80, method: req.method, path: req.url, headers: rewrite(req.headers) }, (r) => {
      res.writeHead(r.statusCode ?? 502, { ...r.headers, 'x-elastic-product': 'Elasticsearch' });
      r.pipe(res);
    });
    up.on('error', () => {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end('{"error":"proxy: upstream unreachable"}');
    });
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** Both engine clients against one OpenSearch node: OpenSearch's own and Elasticsearch's (through `startEsCompatProxy`). */
export interface BothEngines {
  engines: Array<[string, SearchEngine]>;
  /** The client of one kind (`opensearch` or `elasticsearch`). */
  of(kind: string): SearchEngine;
  close(): Promise<void>;
}

/** Start both engine clients against `url` (tests that run one suite per engine kind). */
export async function startBothEngines(url: string, timeoutMs = 30_000): Promise<BothEngines> {
  const proxy = await startEsCompatProxy(url);
  const engines: Array<[string, SearchEngine]> = [
    ['opensearch', (await createEngine('opensearch', { url, timeoutMs })) as SearchEngine],
    ['elasticsearch', (await createEngine('elasticsearch', { url: proxy.url, timeoutMs })) as SearchEngine],
  ];
  return {
    engines,
    of: (kind) => engines.find(([k]) => k === kind)?.[1] as SearchEngine,
    async close() {
      for (const [, e] of engines) await e.close();
      await proxy.close();
    },
  };
}
