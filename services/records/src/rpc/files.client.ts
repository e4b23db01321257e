/**
 * Client of the files service's RPCs (proto/README.md): manifest, lock, import, delete-bucket.
 * `RpcFilesClient` implements the domain's `FilesPort` (domain/ports.ts) over NATS. A 404 on
 * `manifest` (bucket never created) means an empty manifest.
 */
import { injectTraceHeaders, isAppError, type NatsHandle, callContract } from '@rdm/platform';
import { RPC_SUBJECTS, type RpcContract, type RpcSubject } from '@rdm/contracts';
import type { FilesPort, Manifest } from '../domain/ports.js';

const emptyManifest = (bucketId: string): Manifest => ({
  bucket_id: bucketId,
  locked: false,
  entries: [],
  count: 0,
  total_bytes: 0,
  pending: 0,
});

/** RPC subjects of the files service. */
export const FILES_SUBJECTS = {
  manifest: RPC_SUBJECTS.files.manifest,
  lock: RPC_SUBJECTS.files.lock,
  import: RPC_SUBJECTS.files.import,
  deleteBucket: RPC_SUBJECTS.files.deleteBucket,
} as const;

function normalize(m: Partial<Manifest> | null | undefined, bucketId: string): Manifest {
  const entries = Array.isArray(m?.entries) ? m!.entries : [];
  return {
    bucket_id: typeof m?.bucket_id === 'string' ? m.bucket_id : bucketId,
    locked: m?.locked === true,
    entries,
    count: typeof m?.count === 'number' ? m.count : entries.length,
    total_bytes:
      typeof m?.total_bytes === 'number' ? m.total_bytes : entries.reduce((s, e) => s + (typeof e.size === 'number' ? e.size : 0), 0),
    pending: typeof m?.pending === 'number' ? m.pending : entries.filter((e) => e.status && e.status !== 'completed').length,
  };
}

/** FilesPort over NATS request-reply. */
export class RpcFilesClient implements FilesPort {
  constructor(
    private readonly nc: NatsHandle['nc'],
    private readonly timeoutMs: number,
  ) {}

  private call<S extends RpcSubject>(subject: S, payload: RpcContract[S]['request']) {
    return callContract(this.nc, subject, payload, { timeoutMs: this.timeoutMs, headers: injectTraceHeaders() });
  }

  async manifest(bucketId: string): Promise<Manifest> {
    try {
      return normalize(await this.call(FILES_SUBJECTS.manifest, { bucket_id: bucketId }), bucketId);
    } catch (err) {
      if (isAppError(err) && err.status === 404) return emptyManifest(bucketId);
      throw err;
    }
  }

  async lock(bucketId: string, opts: { ifComplete?: boolean; allowEmpty?: boolean } = {}): Promise<Manifest> {
    const payload = {
      bucket_id: bucketId,
      ...(opts.ifComplete ? { if_complete: true } : {}),
      ...(opts.allowEmpty ? { allow_empty: true } : {}),
    };
    return normalize(await this.call(FILES_SUBJECTS.lock, payload), bucketId);
  }

  async importFiles(fromBucketId: string, toBucketId: string, opts: { allowEmpty?: boolean } = {}): Promise<Manifest> {
    const payload = { from_bucket_id: fromBucketId, to_bucket_id: toBucketId, ...(opts.allowEmpty ? { allow_empty: true } : {}) };
    return normalize(await this.call(FILES_SUBJECTS.import, payload), toBucketId);
  }

  async deleteBucket(bucketId: string): Promise<boolean> {
    const r = await this.call(FILES_SUBJECTS.deleteBucket, { bucket_id: bucketId });
    return r?.deleted === true;
  }
}
