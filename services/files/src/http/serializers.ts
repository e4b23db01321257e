/**
 * InvenioRDM JSON shapes of file entries and file lists (records-resources FileSchema and
 * FileList.to_dict): pending entries carry no content fields; committed ones add mimetype, ids,
 * size, checksum and storage class; published records' entries add `pids` (always `{}`: no PID is
 * minted for files; the spec shows the key) and have no `commit` link. Key order follows the spec's listing.
 */
import type { BucketGrant, FilesKind, FilesScope } from '../domain/authorizer.js';
import type { FileLinks } from '../domain/links.js';
import { guessMimetype } from '../domain/mimetype.js';
import type { FileRow } from '../repo/files.repo.js';

/**
 * Serialize one entry. A pending multipart entry shows its announced size, its transfer
 * `{type: "M", parts, part_size}` and `links.parts` (no content yet: `links.content` is null, as
 * InvenioRDM's MultipartStorageExt answers).
 */
export function entryJson(
  f: FileRow,
  recordId: string,
  scope: FilesScope,
  links: FileLinks,
  kind: FilesKind = 'files',
): Record<string, unknown> {
  const done = f.status === 'completed';
  const multipart = !done && f.transfer?.type === 'M';
  const out: Record<string, unknown> = { created: f.created, updated: f.updated };
  if (done) {
    out.mimetype = guessMimetype(f.key);
    out.version_id = f.version_id;
    out.file_id = f.object_id;
    out.bucket_id = f.bucket_id;
  }
  out.metadata = f.metadata;
  out.access = { hidden: f.access?.hidden === true };
  const l: Record<string, unknown> = links.entry(recordId, scope, f.key, kind);
  if (multipart) {
    l.content = null;
    l.parts = links.parts(l.self as string, f.transfer.parts ?? 1, f.created);
  }
  out.links = l;
  out.key = f.key;
  if (done) out.size = f.size;
  else if (multipart) out.size = f.declared_size;
  out.transfer = multipart ? { type: 'M', parts: f.transfer.parts, part_size: f.transfer.part_size } : { type: f.transfer?.type ?? 'L' };
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
  kind: FilesKind = 'files',
): Record<string, unknown> {
  const l = links.list(recordId, scope, kind);
  if (!grant.enabled) return { enabled: false, links: l };
  return {
    enabled: true,
    links: l,
    entries: files.map((f) => entryJson(f, recordId, scope, links, kind)),
    default_preview: grant.default_preview ?? null,
    order: grant.order ?? [],
  };
}
