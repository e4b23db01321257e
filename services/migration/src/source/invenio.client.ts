/**
 * The source: a running InvenioRDM read ONLY through its public REST API with an administrator's
 * token (issue 26). Records are listed as latest versions (`GET /api/records`, oldest first,
 * `updated:[since TO *]` for a delta run, following `links.next`), each parent's published
 * versions come from `GET /api/records/<id>/versions`, a version's files from
 * `GET /api/records/<id>/files` and their bytes from each entry's `links.content`, streamed
 * (never buffered). Every request is paced (rate-limit.ts) and retried on 429/5xx/connection
 * errors with back-off.
 *
 * When to use: the migration runner's `SourcePort` in production; tests use a fake source.
 */
import { Readable } from 'node:stream';
import type { SourceFile, SourcePort, SourceRecord } from '../domain/ports.js';
import { Pacer } from './rate-limit.js';

/** A source answer the migration cannot work with (wrong URL, token, or not InvenioRDM). */
export class SourceError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'SourceError';
  }
}

/** Options of the client. */
export interface InvenioSourceOptions {
  url: string;
  token: string;
  /** Request starts per second (0: unpaced). */
  ratePerSecond: number;
  pageSize?: number;
  timeoutMs?: number;
  retries?: number;
}

/** InvenioRDM's REST API as the migration's source. */
export class InvenioSource implements SourcePort {
  readonly url: string;
  private readonly pacer: Pacer;
  /** Requests made (progress lines). */
  requests = 0;

  constructor(private readonly o: InvenioSourceOptions) {
    this.url = o.url.replace(/\/+$/, '');
    this.pacer = new Pacer(o.ratePerSecond);
  }

  private async get(pathOrUrl: string, accept = 'application/json'): Promise<Response> {
    const url = pathOrUrl.startsWith('http') ? pathOrUrl : `${this.url}${pathOrUrl}`;
    const retries = this.o.retries ?? 4;
    for (let attempt = 0; ; attempt++) {
      await this.pacer.wait();
      this.requests++;
      let res: Response;
      try {
        res = await fetch(url, {
          headers: { authorization: `Bearer ${this.o.token}`, accept },
          signal: AbortSignal.timeout(this.o.timeoutMs ?? 60_000),
        });
      } catch (err) {
        if (attempt >= retries) throw new SourceError(`Source not reachable at ${url}: ${(err as Error).message}`);
        await backoff(attempt);
        continue;
      }
      if ((res.status === 429 || res.status >= 500) && attempt < retries) {
        await res.body?.cancel();
        await backoff(attempt, Number(res.headers.get('retry-after')) || 0);
        continue;
      }
      return res;
    }
  }

  private async json(path: string): Promise<any> {
    const res = await this.get(path);
    const type = res.headers.get('content-type') ?? '';
    if (res.status === 401 || res.status === 403) {
      await res.body?.cancel();
      throw new SourceError(
        `The source refused the token (HTTP ${res.status} on ${path}): an administrator's token is needed.`,
        res.status,
      );
    }
    if (!res.ok || !type.includes('json')) {
      const text = (await res.text()).slice(0, 200);
      throw new SourceError(`Unexpected answer from the source (HTTP ${res.status}, ${type || 'no type'}) on ${path}: ${text}`, res.status);
    }
    return res.json();
  }

  /** Check that the source is an InvenioRDM this migration knows, and that the token works. */
  async check(): Promise<{ total: number }> {
    const body = await this.json('/api/records?size=1&allversions=true');
    if (!body || typeof body !== 'object' || !body.hits || !Array.isArray(body.hits.hits) || !body.links) {
      throw new SourceError(`${this.url} does not answer like InvenioRDM's records API (GET /api/records has no hits/links).`);
    }
    const first = body.hits.hits[0];
    if (first && (typeof first.parent?.id !== 'string' || typeof first.versions?.index !== 'number')) {
      throw new SourceError('The source answers records without parent/versions: an InvenioRDM version before 8 is not supported.');
    }
    return { total: typeof body.hits.total === 'number' ? body.hits.total : Number(body.hits.total?.value ?? 0) };
  }

  /** Every latest version (one per parent), oldest first; `since`: only those updated since. */
  async *latestRecords(since?: string): AsyncGenerator<SourceRecord> {
    const q = since ? `&q=${encodeURIComponent(`updated:[${since} TO *]`)}` : '';
    let next: string | undefined = `/api/records?sort=oldest&size=${this.o.pageSize ?? 50}${q}`;
    while (next) {
      const page: any = await this.json(next);
      for (const hit of page.hits?.hits ?? []) yield hit as SourceRecord;
      next = page.links?.next;
    }
  }

  /** Every published version of the parent of `recordId`, in version order. */
  async versions(recordId: string): Promise<SourceRecord[]> {
    const out: SourceRecord[] = [];
    let next: string | undefined = `/api/records/${encodeURIComponent(recordId)}/versions?size=100&sort=version`;
    while (next) {
      const page: any = await this.json(next);
      out.push(...((page.hits?.hits ?? []) as SourceRecord[]));
      next = page.links?.next;
    }
    return out.sort((a, b) => a.versions.index - b.versions.index);
  }

  /** The file entries of a published version. */
  async files(recordId: string): Promise<SourceFile[]> {
    const body = await this.json(`/api/records/${encodeURIComponent(recordId)}/files`);
    return ((body.entries ?? []) as any[]).map((e) => ({
      key: String(e.key),
      checksum: String(e.checksum),
      size: Number(e.size),
      content: String(e.links?.content ?? `${this.url}/api/records/${recordId}/files/${encodeURIComponent(e.key)}/content`),
    }));
  }

  /** A file's bytes as a stream (never held whole). */
  async content(file: SourceFile): Promise<Readable> {
    const res = await this.get(file.content, '*/*');
    if (!res.ok || !res.body) {
      await res.body?.cancel();
      throw new SourceError(`Could not read ${file.key} from the source (HTTP ${res.status}).`, res.status);
    }
    return Readable.fromWeb(res.body as import('node:stream/web').ReadableStream);
  }
}

function backoff(attempt: number, retryAfterS = 0): Promise<void> {
  const ms = Math.max(retryAfterS * 1000, Math.min(30_000, 500 * 2 ** attempt));
  return new Promise((r) => setTimeout(r, ms));
}
