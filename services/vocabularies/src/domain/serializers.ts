/**
 * JSON shapes of vocabulary types and entries, exactly as the spec and InvenioRDM render them.
 *
 * - Generic entry: `{id, created, updated, links{self}, revision_id, title, description?, icon,
 *   tags, props, type}`; `type` is the vocabulary type id (`resourcetypes`). `icon`, `tags` and
 *   `props` are always present (`""`, `[]`, `{}` when the fixture has none) because the spec lists
 *   them as entry fields; `description` only when the entry has one, as InvenioRDM does.
 * - Special entries (affiliations, funders, awards, names, subjects): `{id, created, updated,
 *   links, revision_id}` plus the kind's fields that are set (InvenioRDM's schemas dump only
 *   present fields), and no `type`.
 * - Vocabulary type: `{id, pid_type, count, is_custom_vocabulary, links{self}}`.
 */
import type { EntryDoc } from './entry.js';
import { type EntryRow, rowToDoc } from './documents.js';
import { kindOf } from './kinds.js';
import { entrySelf, typeSelf } from './links.js';
import type { TypeRow } from '../repo/vocabularies.repo.js';

/** The HTTP form of one entry. */
export function serializeEntry(row: EntryRow, baseUrl: string): Record<string, unknown> {
  const doc = rowToDoc(row);
  const head = {
    id: row.id,
    created: row.created,
    updated: row.updated,
    links: { self: entrySelf(baseUrl, row.type, row.id) },
    revision_id: row.revision_id,
  };
  if (kindOf(row.type) !== 'generic') {
    const { id: _id, ...fields } = doc;
    return { ...head, ...fields };
  }
  const out: Record<string, unknown> = { ...head, title: doc.title ?? {} };
  if (doc.description !== undefined) out.description = doc.description;
  out.icon = doc.icon ?? '';
  out.tags = doc.tags ?? [];
  out.props = doc.props ?? {};
  out.type = row.type;
  return out;
}

/** The compact form the resolve RPC returns: `{id, title, props, tags, type}` plus, for special vocabularies, their identifying fields. */
export function resolvedEntry(
  row: EntryRow,
): { id: string; title: unknown; props: unknown; tags: unknown; type: string } & Record<string, unknown> {
  const doc: EntryDoc = rowToDoc(row);
  const out: { id: string; title: unknown; props: unknown; tags: unknown; type: string } & Record<string, unknown> = {
    id: row.id,
    title: doc.title ?? {},
    props: doc.props ?? {},
    tags: doc.tags ?? [],
    type: row.type,
  };
  if (kindOf(row.type) !== 'generic') {
    for (const f of ['name', 'acronym', 'identifiers', 'scheme', 'subject', 'number', 'funder', 'country'] as const) {
      if (doc[f] !== undefined) out[f] = doc[f];
    }
  }
  return out;
}

/** One item of `GET /api/vocabularies`. */
export function serializeType(row: TypeRow, baseUrl: string): Record<string, unknown> {
  return {
    id: row.id,
    pid_type: row.pid_type,
    count: row.count,
    is_custom_vocabulary: row.is_custom,
    links: { self: typeSelf(baseUrl, row.id) },
  };
}

/** The localized UI form (`Accept: application/vnd.inveniordm.v1+json`): `{id, title_l10n, description_l10n?, icon?, props?}`. */
export function serializeL10n(row: EntryRow, lang: string): Record<string, unknown> {
  const doc = rowToDoc(row);
  const pick = (m: unknown) => {
    if (!m || typeof m !== 'object') return undefined;
    const r = m as Record<string, string>;
    return r[lang] ?? r.en ?? Object.values(r)[0];
  };
  const out: Record<string, unknown> = { id: row.id, title_l10n: pick(doc.title) ?? '' };
  const d = pick(doc.description);
  if (d !== undefined) out.description_l10n = d;
  if (doc.icon !== undefined) out.icon = doc.icon;
  if (doc.props !== undefined) out.props = doc.props;
  return out;
}
