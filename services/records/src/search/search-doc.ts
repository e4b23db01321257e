/**
 * The row of `search_docs` for one draft or record (see README "search_docs"): filter and sort
 * columns, the stored document, and the texts of the full-text vector (title, creators and
 * contributors with affiliations, description, publisher, subjects, identifiers, funding,
 * version, additional titles/descriptions, references), folded by the repo with the platform's
 * `searchVectorSql`. Pure: the postgres engine (pg-indexer.ts) writes what it returns.
 */
import { edtfRange } from '../domain/edtf.js';
import { htmlToText } from '@rdm/platform';
import type { IndexedItem } from '../domain/ports.js';
import type { ItemDoc } from '../model/rows.js';
import { boundVectorTexts } from './vector-bound.js';

/** Column values of a search document (the vector is built from `texts` by the repo). */
export interface SearchDocRow {
  id: string;
  kind: 'draft' | 'record';
  parent_id: string;
  owner_id: string | null;
  is_published: boolean;
  is_latest: boolean;
  is_latest_draft: boolean;
  has_draft: boolean;
  deletion_status: string;
  access_record: string;
  access_files: string;
  access_status: string;
  resource_type_id: string | null;
  resource_type_type: string | null;
  resource_type_subtype: string | null;
  file_types: string[];
  /** The parent's community ids (`parent.communities.ids`). */
  community_ids: string[];
  publication_date_start: string | null;
  publication_date_end: string | null;
  created: string;
  updated: string;
  version_index: number;
  revision_id: number;
  doc: ItemDoc;
  texts: string[];
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function i18nValues(v: unknown): string[] {
  return v && typeof v === 'object' && !Array.isArray(v) ? Object.values(v).filter((x): x is string => typeof x === 'string') : [];
}

/** The texts indexed for full-text search, from a metadata read form. */
export function searchTexts(id: string, metadata: Record<string, any>, pids: Record<string, any>): string[] {
  const t: (string | undefined)[] = [id, str(metadata.title)];
  for (const p of [...(metadata.creators ?? []), ...(metadata.contributors ?? [])]) {
    const po = p?.person_or_org ?? {};
    t.push(str(po.name), str(po.given_name), str(po.family_name));
    for (const i of po.identifiers ?? []) t.push(str(i?.identifier));
    for (const a of p?.affiliations ?? []) t.push(str(a?.name), str(a?.id));
  }
  if (str(metadata.description)) t.push(htmlToText(metadata.description));
  t.push(str(metadata.publisher), str(metadata.version), str(metadata.copyright));
  for (const s of metadata.subjects ?? []) t.push(str(s?.subject), str(s?.id));
  for (const i of [...(metadata.alternate_identifiers ?? []), ...(metadata.related_identifiers ?? [])]) t.push(str(i?.identifier));
  for (const f of metadata.funding ?? []) {
    t.push(str(f?.funder?.name), str(f?.funder?.id), str(f?.award?.number), str(f?.award?.acronym), ...i18nValues(f?.award?.title));
  }
  for (const a of metadata.additional_titles ?? []) t.push(str(a?.title));
  for (const a of metadata.additional_descriptions ?? []) if (str(a?.description)) t.push(htmlToText(a.description));
  for (const r of metadata.references ?? []) t.push(str(r?.reference), str(r?.identifier));
  for (const rt of metadata.resource_types ?? []) t.push(...i18nValues(rt?.title));
  for (const l of metadata.languages ?? []) t.push(str(l?.id));
  for (const p of Object.values(pids ?? {})) t.push(str((p as { identifier?: unknown } | null)?.identifier));
  return t.filter((x): x is string => !!x);
}

/** File type keys (`file_type` facet): extension from the mimetype's subtype or the key, lowercased. */
export function fileTypes(entries: Record<string, any>): string[] {
  const out = new Set<string>();
  for (const [key, e] of Object.entries(entries ?? {})) {
    const fromExt = typeof e?.ext === 'string' && e.ext ? e.ext : undefined;
    const dot = key.lastIndexOf('.');
    const fromKey = dot >= 0 && key.length - dot - 1 <= 5 ? key.slice(dot + 1) : undefined;
    const ext = (fromExt ?? fromKey)?.toLowerCase();
    if (ext) out.add(ext);
  }
  return [...out].sort();
}

/** Build the search row of an indexed item. */
export function searchDocRow(item: IndexedItem): SearchDocRow {
  const { doc, row } = item;
  const md = doc.metadata ?? {};
  const range = edtfRange(md.publication_date, 'date');
  const rt = Array.isArray(md.resource_types) ? md.resource_types[0] : undefined;
  return {
    id: doc.id,
    kind: item.kind,
    parent_id: doc.parent.id,
    owner_id: doc.parent.access?.owned_by?.user ?? null,
    is_published: doc.is_published === true,
    is_latest: doc.versions?.is_latest === true,
    is_latest_draft: doc.versions?.is_latest_draft === true,
    // Why always false: a record is (re)indexed only when published, when no edit draft exists
    // any more; `setHasDraft` flips it while one does. Drafts do not use the column.
    has_draft: false,
    deletion_status: doc.deletion_status?.status ?? 'P',
    access_record: doc.access?.record ?? 'public',
    access_files: doc.access?.files ?? 'public',
    access_status: doc.access?.status ?? 'open',
    resource_type_id: typeof rt?.id === 'string' ? rt.id : null,
    resource_type_type: row.resource_type_type,
    resource_type_subtype: row.resource_type_subtype,
    file_types: fileTypes(doc.files?.entries ?? {}),
    community_ids: Array.isArray(doc.parent.communities?.ids) ? (doc.parent.communities.ids as string[]) : [],
    publication_date_start: range.start,
    publication_date_end: range.end,
    created: row.created.toISOString(),
    updated: row.updated.toISOString(),
    version_index: doc.versions?.index ?? 1,
    revision_id: doc.revision_id,
    doc,
    // Bounded: PostgreSQL refuses a tsvector over 1 MiB (search/vector-bound.ts).
    texts: boundVectorTexts(searchTexts(doc.id, md, doc.pids ?? {})),
  };
}
