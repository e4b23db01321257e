/**
 * RPC endpoints served by the files service (proto/README.md): `rdm.files.rpc.manifest`,
 * `…lock`, `…import`, `…delete-bucket`. Records calls them at publish, on new versions
 * (files-import) and when discarding drafts.
 */
import { type Logger, type NatsHandle, type RpcServer, serveRpc } from '@rdm/platform';
import { RPC_SUBJECTS } from '@rdm/platform/contracts';
import type { FilesService, Manifest } from '../domain/files.service.js';
import { keyExtension } from '../domain/keys.js';
import { guessMimetype } from '../domain/mimetype.js';
import type { FileRow } from '../repo/files.repo.js';

/** A file entry in a manifest. */
export interface ManifestEntry {
  id: string;
  key: string;
  checksum: string | null;
  ext: string | null;
  size: number | null;
  mimetype: string;
  storage_class: string;
  metadata: Record<string, unknown> | null;
  access: { hidden: boolean };
  status: string;
  created: string;
  updated: string;
  file_id: string | null;
  version_id: string | null;
  bucket_id: string;
}

/** Reply data of manifest / lock / import. */
export interface ManifestReply {
  bucket_id: string;
  locked: boolean;
  entries: ManifestEntry[];
  /** Number of entries (pending ones included). */
  count: number;
  /** Bytes of the committed entries. */
  total_bytes: number;
  /** Number of entries not committed yet. */
  pending: number;
}

/** Manifest shape of one entry. */
export function manifestEntry(f: FileRow): ManifestEntry {
  return {
    id: f.id,
    key: f.key,
    checksum: f.checksum,
    ext: keyExtension(f.key),
    size: f.size,
    mimetype: guessMimetype(f.key),
    storage_class: 'L',
    metadata: f.metadata,
    access: { hidden: f.access?.hidden === true },
    status: f.status,
    created: f.created,
    updated: f.updated,
    file_id: f.object_id,
    version_id: f.version_id,
    bucket_id: f.bucket_id,
  };
}

/** Reply shape of a manifest. */
export function manifestReply(m: Manifest): ManifestReply {
  return {
    bucket_id: m.bucket_id,
    locked: m.locked,
    entries: m.files.map(manifestEntry),
    count: m.files.length,
    total_bytes: m.files.reduce((n, f) => n + (f.status === 'completed' ? (f.size ?? 0) : 0), 0),
    pending: m.files.filter((f) => f.status !== 'completed').length,
  };
}

const bucketSchema = {
  type: 'object',
  required: ['bucket_id'],
  additionalProperties: false,
  properties: { bucket_id: { type: 'string', minLength: 1, maxLength: 255 } },
};
const lockSchema = {
  type: 'object',
  required: ['bucket_id'],
  additionalProperties: false,
  properties: {
    bucket_id: { type: 'string', minLength: 1, maxLength: 255 },
    if_complete: { type: 'boolean' },
    allow_empty: { type: 'boolean' },
  },
};
const importSchema = {
  type: 'object',
  required: ['from_bucket_id', 'to_bucket_id'],
  additionalProperties: false,
  properties: {
    from_bucket_id: { type: 'string', minLength: 1, maxLength: 255 },
    to_bucket_id: { type: 'string', minLength: 1, maxLength: 255 },
    allow_empty: { type: 'boolean' },
  },
};

/** Start every RPC endpoint; returns them so they can be stopped. */
export function serveFilesRpc(nc: NatsHandle['nc'], service: FilesService, logger: Logger): RpcServer[] {
  const opts = { queue: 'files', logger };
  return [
    serveRpc<{ bucket_id: string }, ManifestReply>(
      nc,
      RPC_SUBJECTS.files.manifest,
      async (r) => manifestReply(await service.manifest(r.bucket_id)),
      {
        ...opts,
        validate: bucketSchema,
      },
    ),
    serveRpc<{ bucket_id: string; if_complete?: boolean; allow_empty?: boolean }, ManifestReply>(
      nc,
      RPC_SUBJECTS.files.lock,
      async (r) =>
        manifestReply(
          r.if_complete
            ? await service.lockIfComplete(r.bucket_id, { allowEmpty: r.allow_empty === true })
            : await service.lock(r.bucket_id),
        ),
      { ...opts, validate: lockSchema },
    ),
    serveRpc<{ from_bucket_id: string; to_bucket_id: string; allow_empty?: boolean }, ManifestReply>(
      nc,
      RPC_SUBJECTS.files.import,
      async (r) => manifestReply(await service.importFiles(r.from_bucket_id, r.to_bucket_id, { allowEmpty: r.allow_empty === true })),
      { ...opts, validate: importSchema },
    ),
    serveRpc<{ bucket_id: string }, { deleted: boolean }>(
      nc,
      RPC_SUBJECTS.files.deleteBucket,
      async (r) => ({ deleted: await service.deleteBucket(r.bucket_id) }),
      { ...opts, validate: bucketSchema },
    ),
  ];
}
