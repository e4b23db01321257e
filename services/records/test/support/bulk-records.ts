/**
 * Many published records at once, for harvest tests and benchmarks: copies of one template
 * record's search document (`search_docs`, which OAI-PMH and the sitemap read) with their own id,
 * parent id and OAI identifier, in ONE INSERT … SELECT (10,000 rows in well under a second).
 *
 * `updated` advances one second per `sameSecond` copies, so many copies share a datestamp and a
 * harvest must page through ties (the keyset is `(updated, id)`); every `deletedEvery`-th copy is
 * a tombstone (`deletion_status` D: a deleted header). The template's DOI is dropped (unique).
 *
 * When to use: only in tests and benchmarks; real records come through the records service.
 */
import type { Knex } from '@rdm/platform';

/** Options of a bulk copy. */
export interface BulkOptions {
  /** Id prefix of the copies (ids are `<prefix><6 digits>`). */
  prefix: string;
  /** OAI namespace of the copies' identifiers (`oai:<namespace>:<id>`). */
  oaiNamespace: string;
  /** `updated` of the first copy. */
  from: Date;
  sameSecond?: number;
  /** Every n-th copy deleted (0: none). */
  deletedEvery?: number;
}

const COLUMNS = [
  'kind',
  'owner_id',
  'is_published',
  'is_latest',
  'is_latest_draft',
  'has_draft',
  'access_record',
  'access_files',
  'access_status',
  'resource_type_id',
  'resource_type_type',
  'resource_type_subtype',
  'file_types',
  'publication_date_start',
  'publication_date_end',
  'created',
  'version_index',
  'views',
  'downloads',
  'revision_id',
  'search_vector',
  'community_ids',
];

/** Insert `n` copies of the published record `templateId`; returns their OAI identifiers (deleted ones included). */
export async function copyPublishedRecord(
  db: Knex,
  templateId: string,
  n: number,
  o: BulkOptions,
): Promise<{ oai: string[]; deleted: number }> {
  const same = o.sameSecond ?? 7;
  const every = o.deletedEvery ?? 0;
  const r = await db.raw(
    `INSERT INTO search_docs (id, parent_id, deletion_status, updated, doc, ${COLUMNS.join(', ')})
     SELECT c.id, 'p' || c.id,
            CASE WHEN ? > 0 AND c.g % ? = 0 THEN 'D' ELSE 'P' END,
            ?::timestamptz + ((c.g - 1) / ?) * interval '1 second',
            jsonb_set(jsonb_set(jsonb_set(t.doc #- '{pids,doi}' #- '{parent,pids,doi}', '{id}', to_jsonb(c.id)),
                      '{pids,oai}', jsonb_build_object('identifier', 'oai:' || ? || ':' || c.id, 'provider', 'oai')),
                      '{parent,id}', to_jsonb('p' || c.id)),
            ${COLUMNS.map((col) => `t.${col}`).join(', ')}
     FROM search_docs t
     CROSS JOIN LATERAL (SELECT g, ? || lpad(g::text, 6, '0') AS id FROM generate_series(1, ?) g) c
     WHERE t.id = ? AND t.kind = 'record'
     RETURNING doc->'pids'->'oai'->>'identifier' AS oai, deletion_status`,
    [every, every || 1, o.from.toISOString(), same, o.oaiNamespace, o.prefix, n, templateId],
  );
  const rows = r.rows as { oai: string; deletion_status: string }[];
  if (rows.length !== n) throw new Error(`template ${templateId} not found (copied ${rows.length} of ${n})`);
  return { oai: rows.map((x) => x.oai), deleted: rows.filter((x) => x.deletion_status !== 'P').length };
}
