/**
 * InvenioRDM JSON shapes of file entries and file lists (records-resources FileSchema and
 * FileList.to_dict): pending entries carry no content fields; committed ones add mimetype, ids,
 * size, checksum and storage class; published records' entries add `pids` and have no `commit`
 * link. Key order follows the spec's listing.
 */
import type { BucketGrant, FilesScope } from '../domain/authorizer.js';
import type { FileLinks } from '../domain/links.js';
import { guessMimetype } from '../domain/mimetype.js';
import type { FileRow } from '../repo/files.repo.js';

/** Serialize one entry. */
export function entryJson(f: FileRow, recordId: string, scope: FilesScope, links: FileLinks): Record<string, unknown> {
  const done = f.status === 'completed';
  const out: Record<string, unknown> = { created: f.created, updated: f.updated };
  if (done) {
    out.mimetype = guessMimetype(f.key);
    out.version_id = f.version_id;
    out.file_id = f.object_id;
    out.bucket_id = f.bucket_id;
  }
  out.metadata = f.metadata;
  out.access = { hidden: f.access?.hidden === true };
  out.links = links.entry(recordId, scope, f.key);
  out.key = f.key;
  if (done) out.size = f.size;
  out.transfer = { type: f.transfer?.type ?? 'L' };
  out.status = f.status;
  if (done) {
    out.checksum = f.checksum;
    out.storage_class = 'L';
  }
  if (scope === 'record') out.pids = {};
  return out;
}

/** Serialize a file list: `{enabled, links, entries, default_preview, order}`, or `{enabled:false, links}`. */
export function listJson(
  grant: BucketGrant,
  files: FileRow[],
  recordId: string,
  scope: FilesScope,
  links: FileLinks,
): Record<string, unknown> {
  const l = links.list(recordId, scope);
  if (!grant.enabled) return { enabled: false, links: l };
  return {
    enabled: true,
    links: l,
    entries: files.map((f) => entryJson(f, recordId, scope, links)),
    default_preview: grant.default_preview ?? null,
    order: grant.order ?? [],
  };
}
