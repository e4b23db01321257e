/**
 * RPC endpoints served by the files service (proto/README.md): `rdm.files.rpc.manifest`,
 * `…lock`, `…import`, `…delete-bucket`. Records calls them at publish, on new versions
 * (files-import) and when discarding drafts.
 */
import { type Logger, type NatsHandle, type RpcServer, serveContract } from '@rdm/platform';
import { type FilesManifestReply, RPC_SUBJECTS } from '@rdm/contracts';
import type { FilesService, Manifest } from '../domain/files.service.js';
import { keyExtension } from '../domain/keys.js';
import { guessMimetype } from '../domain/mimetype.js';
import type { FileRow } from '../repo/files.repo.js';

/** A file entry in a manifest (the contract's type, proto/rpc/files/manifest.json). */
export type ManifestEntry = FilesManifestReply['entries'][number];

/** Reply data of manifest / lock / import (the contract's `Manifest`). */
export type ManifestReply = FilesManifestReply;

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
    status: f.status as ManifestEntry['status'],
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

/** Start every RPC endpoint; returns them so they can be stopped. */
export function serveFilesRpc(nc: NatsHandle['nc'], service: FilesService, logger: Logger): RpcServer[] {
  const opts = { queue: 'files', logger };
  return [
    serveContract(nc, RPC_SUBJECTS.files.manifest, async (r) => manifestReply(await service.manifest(r.bucket_id)), opts),
    serveContract(
      nc,
      RPC_SUBJECTS.files.lock,
      async (r) =>
        manifestReply(
          r.if_complete
            ? await service.lockIfComplete(r.bucket_id, { allowEmpty: r.allow_empty === true })
            : await service.lock(r.bucket_id),
        ),
      opts,
    ),
    serveContract(
      nc,
      RPC_SUBJECTS.files.import,
      async (r) => manifestReply(await service.importFiles(r.from_bucket_id, r.to_bucket_id, { allowEmpty: r.allow_empty === true })),
      opts,
    ),
    serveContract(nc, RPC_SUBJECTS.files.deleteBucket, async (r) => ({ deleted: await service.deleteBucket(r.bucket_id) }), opts),
  ];
}
