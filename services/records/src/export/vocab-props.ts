/**
 * Vocabulary `props` of the exports (resource types' `datacite_general`/`csl`/`schema.org`/
 * `marc21_*`/`eurepo`, the `datacite` names of date, title, description, relation types and
 * roles). The stored record keeps only `{id, title}`, so the props come from the vocabularies
 * service (`rdm.vocabularies.rpc.resolve`), one batched call for the misses of a record or an OAI
 * page, then cached (`ttlMs`, bounded size): a warm export never leaves the process. When the
 * vocabularies service is unreachable, exports still render with each serializer's fallback
 * (e.g. `resourceTypeGeneral` "Other") rather than failing, and the miss is retried next time.
 */
import type { MsgLogger } from '@rdm/platform';
import { list, type PropsLookup, type RecordJson, resourceTypeOf } from './util.js';

/** What the cache needs from the vocabularies service (the records service's VocabulariesPort). */
export interface VocabResolver {
  resolve(
    items: { type: string; id: string }[],
  ): Promise<{ type: string; id: string; found: boolean; entry?: { props?: Record<string, any> } }[]>;
}

/** A `{type, id}` reference. */
export interface VocabRef {
  type: string;
  id: string;
}

const refId = (v: unknown): string | undefined => {
  const id = (v as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' && id !== '' ? id : undefined;
};

/** The vocabulary references whose props the serializers read. */
export function vocabRefsOf(r: RecordJson): VocabRef[] {
  const m = r.metadata ?? {};
  const out: VocabRef[] = [];
  const add = (type: string, id: string | undefined) => {
    if (id) out.push({ type, id });
  };
  add('resourcetypes', refId(resourceTypeOf(r)));
  for (const c of list(m.creators)) add('creatorsroles', refId(c.role));
  for (const c of list(m.contributors)) add('contributorsroles', refId(c.role));
  for (const t of list(m.additional_titles)) add('titletypes', refId(t.type));
  for (const d of list(m.additional_descriptions)) add('descriptiontypes', refId(d.type));
  for (const d of list(m.dates)) add('datetypes', refId(d.type));
  for (const x of list(m.related_identifiers)) {
    add('relationtypes', refId(x.relation_type));
    add('resourcetypes', refId(x.resource_type));
  }
  return out;
}

/** Options of the cache. */
export interface VocabPropsOptions {
  ttlMs?: number;
  maxEntries?: number;
  logger?: MsgLogger;
}

/** A TTL cache of vocabulary props in front of the resolve RPC. */
export class VocabPropsCache {
  private readonly entries = new Map<string, { at: number; props: Record<string, any> }>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;

  constructor(
    private readonly resolver: VocabResolver | undefined,
    private readonly o: VocabPropsOptions = {},
  ) {
    this.ttlMs = o.ttlMs ?? 10 * 60_000;
    this.maxEntries = o.maxEntries ?? 10_000;
  }

  /** Resolve the props of every reference of these records (one RPC for the misses) and return a lookup. */
  async lookupFor(records: RecordJson[]): Promise<PropsLookup> {
    const now = Date.now();
    const missing = new Map<string, VocabRef>();
    for (const r of records) {
      for (const ref of vocabRefsOf(r)) {
        const key = `${ref.type}\u0000${ref.id}`;
        const hit = this.entries.get(key);
        if (!hit || now - hit.at > this.ttlMs) missing.set(key, ref);
      }
    }
    if (missing.size > 0 && this.resolver) {
      try {
        const answers = await this.resolver.resolve([...missing.values()]);
        if (this.entries.size + answers.length > this.maxEntries) this.entries.clear();
        for (const a of answers) {
          this.entries.set(`${a.type}\u0000${a.id}`, { at: now, props: a.found && a.entry?.props ? a.entry.props : {} });
        }
      } catch (err) {
        // Why: an export must not fail because vocabularies is down; fallbacks apply, retried next time.
        this.o.logger?.warn({ err }, 'vocabulary props unavailable; exporting with fallbacks');
      }
    }
    return (type, id) => (id ? (this.entries.get(`${type}\u0000${id}`)?.props ?? {}) : {});
  }
}
