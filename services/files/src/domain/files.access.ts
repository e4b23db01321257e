/**
 * Who may touch which files: every HTTP-facing operation of the files domain asks records
 * (`FilesAuthorizer`) through this class first, for the grant (bucket, `enabled`, `locked`) of
 * the draft or record, then reads the entry it acts on. Use it from the entry operations
 * (`files.service.ts`) and the transfers (`transfers.ts`); never skip it on an HTTP path.
 */
import { isAppError, SYSTEM } from '@rdm/platform';
import * as repo from '../repo/files.repo.js';
import type { FileRow } from '../repo/files.repo.js';
import type { AuthorizeOptions, BucketGrant, FilesAction, FilesTarget } from './authorizer.js';
import { FilesErrors } from './errors.js';
import type { FileResult, FilesServiceDeps } from './files.types.js';
import { keyProblem } from './keys.js';

/** An entry as `t` may see it: an edit draft's registrations are the draft's, not the record's. */
export const visible = (f: FileRow | undefined, t: FilesTarget): FileRow | undefined =>
  f && (!f.draft_only || t.scope === 'draft') ? f : undefined;

/** Records' grant and the entry acted on, for every HTTP-facing files operation. */
export class FilesAccess {
  constructor(private readonly d: Pick<FilesServiceDeps, 'db' | 'authorizer' | 'gc'>) {}

  /**
   * Ask records for the grant. With a `key`, an unknown key is a 404 even when the caller may not
   * act (InvenioRDM checks the key before the permission): on a 403 the bucket is looked up as
   * the system identity to tell the two apart.
   */
  async authorize(t: FilesTarget, action: FilesAction, key?: string, opts: AuthorizeOptions = {}): Promise<BucketGrant> {
    const base = {
      record_id: t.recordId,
      scope: t.scope,
      ...(t.token ? { access_token: t.token } : {}),
      ...(t.kind === 'media' ? { bucket: 'media' as const } : {}),
      ...(opts.metadata ? { with_metadata: true } : {}),
    };
    try {
      return await this.d.authorizer.authorize({ ...base, action, identity: { sub: t.identity.sub, roles: t.identity.roles } }, opts);
    } catch (err) {
      if (key !== undefined && isAppError(err) && err.status === 403) {
        let sys: BucketGrant | undefined;
        try {
          sys = await this.d.authorizer.authorize({ ...base, action: 'read', identity: { sub: SYSTEM.sub, roles: SYSTEM.roles } });
        } catch {
          throw err;
        }
        if (sys.enabled && !visible(await repo.findFile(this.d.db, sys.bucket_id, key), t))
          throw FilesErrors.fileKeyNotFound(t.recordId, key);
      }
      throw err;
    }
  }

  /** Grant + the entry of `key` (404 when missing), files must be enabled. */
  async authorizeFile(t: FilesTarget, action: FilesAction, key: string): Promise<FileResult> {
    const problem = keyProblem(key);
    if (problem) throw FilesErrors.invalidKey(problem);
    const grant = await this.authorize(t, action, key);
    if (!grant.enabled) throw FilesErrors.filesNotEnabled();
    const file = visible(await repo.findFile(this.d.db, grant.bucket_id, key), t);
    if (!file) throw FilesErrors.fileKeyNotFound(t.recordId, key);
    return { grant, file };
  }

  /**
   * `authorizeFile(t, 'update', key)` for a write: grant, entry (404 when missing) and the 403 when
   * records or our own bucket row says the bucket is locked, with the bucket's row read in the
   * same statement as the entry; `used` adds the bytes of the bucket's other entries. `queue`
   * registers a storage key in `storage_gc` in that same statement (one round trip less for the
   * upload and the commit, which must register the object they are about to write); when this
   * refuses, the key is unqueued again.
   */
  async authorizeWrite(
    t: FilesTarget,
    key: string,
    used = false,
    registrationOk = false,
    queue?: { key: string; delayMs: number },
  ): Promise<FileResult & { usedByOthers: number; bucketQuota: number | null }> {
    const problem = keyProblem(key);
    if (problem) throw FilesErrors.invalidKey(problem);
    // Why reuse: the entry must exist, so a grant records gave this identity moments ago (its init) will do.
    const grant = await this.authorize(t, 'update', key, { reuse: true });
    if (!grant.enabled) throw FilesErrors.filesNotEnabled();
    const found = await repo.findFileForWrite(this.d.db, grant.bucket_id, key, { used, queue });
    try {
      if (!found || !visible(found.file, t)) throw FilesErrors.fileKeyNotFound(t.recordId, key);
      if ((grant.locked || found.bucketLocked) && !(registrationOk && found.file.draft_only)) throw FilesErrors.bucketLocked();
    } catch (err) {
      if (queue) await this.d.gc.collect([queue.key]);
      throw err;
    }
    return { grant, file: found.file, usedByOthers: found.usedByOthers, bucketQuota: found.bucketQuota };
  }

  /** Forget the remembered grants of record/draft `recordId` (event consumers: published, deleted). */
  forgetGrants(recordId: string): void {
    this.d.authorizer.forget?.(recordId);
  }
}
