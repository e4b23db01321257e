/**
 * InvenioRDM's published record (REST read form) → the import form of records'
 * `rdm.records.rpc.import-record` (issue 26). Pure functions; unit-tested.
 *
 * Kept as published: metadata and custom fields (vocabulary entries reduced to their ids, as the
 * deposit form takes them: the target resolves them again against its own vocabularies), access
 * (record, files, embargo with its date and reason), PIDs, files enabled and default preview,
 * ids, version index, `created`/`updated`. The owner keeps the source's user id (users are
 * migrated with their ids, so it maps 1:1).
 */
import type { RecordsImportRecordRequest } from '@rdm/contracts';
import type { SourceFile, SourceRecord } from './ports.js';

type ImportVersion = RecordsImportRecordRequest['versions'][number];

/** Keys of vocabulary-backed objects that the deposit form takes as `{id}` only. */
const VOCAB_LIST_FIELDS = ['languages', 'subjects', 'rights'] as const;

/** `{id, title, …}` → `{id}` when the entry has an id (a vocabulary entry); anything else as is. */
function idOnly<T>(v: T): T {
  if (v && typeof v === 'object' && !Array.isArray(v) && typeof (v as { id?: unknown }).id === 'string') {
    return { id: (v as unknown as { id: string }).id } as T;
  }
  return v;
}

/** The published metadata in the deposit form (vocabulary entries as `{id}`). */
export function depositMetadata(m: Record<string, any>): Record<string, any> {
  const { resource_type, ...rest } = structuredClone(m);
  const out: Record<string, any> = rest;
  // InvenioRDM's single `resource_type` is this project's `resource_types` list (spec §metadata).
  if (resource_type && !out.resource_types) out.resource_types = [idOnly(resource_type)];
  if (Array.isArray(out.resource_types)) out.resource_types = out.resource_types.map(idOnly);
  for (const f of VOCAB_LIST_FIELDS) if (Array.isArray(out[f])) out[f] = out[f].map(idOnly);
  for (const f of ['creators', 'contributors'] as const) {
    if (!Array.isArray(out[f])) continue;
    out[f] = out[f].map((c: Record<string, any>) => ({
      ...c,
      ...(c.role ? { role: idOnly(c.role) } : {}),
      ...(Array.isArray(c.affiliations) ? { affiliations: c.affiliations.map((a: Record<string, any>) => (a.id ? { id: a.id } : a)) } : {}),
    }));
  }
  for (const f of ['additional_titles', 'additional_descriptions'] as const) {
    if (!Array.isArray(out[f])) continue;
    out[f] = out[f].map((t: Record<string, any>) => ({
      ...t,
      ...(t.type ? { type: idOnly(t.type) } : {}),
      ...(t.lang ? { lang: idOnly(t.lang) } : {}),
    }));
  }
  if (Array.isArray(out.dates))
    out.dates = out.dates.map((d: Record<string, any>) => ({ ...d, ...(d.type ? { type: idOnly(d.type) } : {}) }));
  if (Array.isArray(out.related_identifiers)) {
    out.related_identifiers = out.related_identifiers.map((r: Record<string, any>) => ({
      ...r,
      ...(r.relation_type ? { relation_type: idOnly(r.relation_type) } : {}),
      ...(r.resource_type ? { resource_type: idOnly(r.resource_type) } : {}),
    }));
  }
  if (Array.isArray(out.funding)) {
    out.funding = out.funding.map((f: Record<string, any>) => ({
      ...f,
      ...(f.funder?.id ? { funder: { id: f.funder.id } } : {}),
      ...(f.award?.id ? { award: { id: f.award.id } } : {}),
    }));
  }
  return out;
}

/** The access of a version as the deposit form takes it. */
export function depositAccess(a: SourceRecord['access']): Record<string, unknown> {
  const embargo = a.embargo ?? {};
  return {
    record: a.record,
    files: a.files,
    ...(embargo.active || embargo.until
      ? { embargo: { active: embargo.active === true, until: embargo.until ?? undefined, reason: embargo.reason ?? null } }
      : {}),
  };
}

/** The PIDs a version keeps: every one but the source's own OAI identifier (this instance has its own OAI prefix). */
export function externalPids(pids: SourceRecord['pids']): Record<string, unknown> {
  return Object.fromEntries(Object.entries(pids ?? {}).filter(([scheme]) => scheme !== 'oai'));
}

/** One source version in the import form. */
export function importVersion(r: SourceRecord, files: SourceFile[]): ImportVersion {
  return {
    id: r.id,
    index: r.versions.index,
    created: r.created,
    updated: r.updated,
    record: {
      metadata: depositMetadata(r.metadata ?? {}),
      ...(r.custom_fields && Object.keys(r.custom_fields).length ? { custom_fields: r.custom_fields } : {}),
      access: depositAccess(r.access),
      pids: externalPids(r.pids),
      files: { enabled: r.files?.enabled !== false, ...(r.files?.default_preview ? { default_preview: r.files.default_preview } : {}) },
    },
    files: files.map((f) => ({ key: f.key, checksum: f.checksum, size: f.size })),
  };
}

/** The import request of a parent from its versions (any order) and their files. */
export function importRequest(versions: SourceRecord[], filesOf: Map<string, SourceFile[]>, dryRun = false): RecordsImportRecordRequest {
  const sorted = [...versions].sort((a, b) => a.versions.index - b.versions.index);
  const first = sorted[0]!;
  const owner = first.parent.access?.owned_by?.user;
  return {
    parent: {
      id: first.parent.id,
      created: first.created,
      owner_id: owner === undefined || owner === null ? null : String(owner),
      ...(Object.keys(externalPids(first.parent.pids)).length ? { pids: externalPids(first.parent.pids) } : {}),
      ...(first.parent.access?.settings ? { access_settings: first.parent.access.settings } : {}),
    },
    versions: sorted.map((v) => importVersion(v, filesOf.get(v.id) ?? [])) as RecordsImportRecordRequest['versions'],
    ...(dryRun ? { dry_run: true } : {}),
  };
}
