/**
 * Labels of resource type facet buckets (InvenioRDM's `VocabularyLabels('resourcetypes')`): the
 * English title of the vocabulary entry whose id is the bucket key (`image` → Image,
 * `image-photo` → Photo).
 *
 * When to use: one instance per app, asked once per search for the keys it renders. Titles come
 * from an in-process cache; misses are resolved in one batch through the vocabularies RPC
 * (bounded by a short timeout so a slow vocabularies service never slows search), then from the
 * dereferenced `metadata.resource_type.title` stored in the search documents, and last the key
 * title-cased. Fallback labels are cached briefly so they heal when the vocabulary answers again.
 */
import type { MsgLogger } from '@rdm/platform';
import type { VocabulariesPort } from '../domain/ports.js';
import { titleCase } from './facet-render.js';
import type { Indexer } from './indexer.js';

/** Tuning of the label cache. */
export interface LabelOptions {
  /** How long a vocabulary or document title is kept (ms). */
  ttlMs?: number;
  /** How long a fallback (title-cased key) is kept (ms). */
  fallbackTtlMs?: number;
  /** Longest wait for the vocabularies RPC (ms). */
  rpcTimeoutMs?: number;
}

/** Cached resource type titles. */
export class ResourceTypeLabels {
  private readonly cache = new Map<string, { label: string; until: number }>();
  private readonly ttl: number;
  private readonly fallbackTtl: number;
  private readonly rpcTimeout: number;

  constructor(
    private readonly index: Pick<Indexer, 'resourceTypeTitles'>,
    private readonly vocabularies: VocabulariesPort | undefined,
    private readonly logger?: MsgLogger,
    o: LabelOptions = {},
  ) {
    this.ttl = o.ttlMs ?? 10 * 60_000;
    this.fallbackTtl = o.fallbackTtlMs ?? 60_000;
    this.rpcTimeout = o.rpcTimeoutMs ?? 300;
  }

  /** Labels of `ids` (every id gets one). */
  async labels(ids: string[]): Promise<Map<string, string>> {
    const now = Date.now();
    const out = new Map<string, string>();
    let missing: string[] = [];
    for (const id of new Set(ids)) {
      const c = this.cache.get(id);
      if (c && c.until > now) out.set(id, c.label);
      else missing.push(id);
    }
    if (missing.length === 0) return out;
    const put = (id: string, label: string, ttl: number) => {
      out.set(id, label);
      this.cache.set(id, { label, until: now + ttl });
    };
    for (const [id, label] of await this.fromVocabulary(missing)) put(id, label, this.ttl);
    missing = missing.filter((id) => !out.has(id));
    if (missing.length) for (const [id, label] of await this.fromDocuments(missing)) put(id, label, this.ttl);
    for (const id of missing) if (!out.has(id)) put(id, titleCase(id), this.fallbackTtl);
    return out;
  }

  private async fromVocabulary(ids: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (!this.vocabularies) return out;
    let timer: NodeJS.Timeout | undefined;
    try {
      const answers = await Promise.race([
        this.vocabularies.resolve(ids.map((id) => ({ type: 'resourcetypes', id }))),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('vocabularies resolve timed out')), this.rpcTimeout);
        }),
      ]);
      for (const a of answers) {
        const title = a.found ? (a.entry?.title?.en ?? Object.values(a.entry?.title ?? {})[0]) : undefined;
        if (typeof title === 'string' && title) out.set(a.id, title);
      }
    } catch (err) {
      this.logger?.warn({ err }, 'resource type labels: vocabularies unavailable; using stored titles');
    } finally {
      clearTimeout(timer);
    }
    return out;
  }

  private fromDocuments(ids: string[]): Promise<Map<string, string>> {
    return this.index.resourceTypeTitles(ids);
  }
}
