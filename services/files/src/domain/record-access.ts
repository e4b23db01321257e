/**
 * Authorizing reads of published files from a local, event-fed copy of records' decisions
 * (`record_access`, fed by records' `record.published/deleted/restored/embargo-lifted` events),
 * with records' `authorize-files` RPC as the authority.
 *
 * When to use: wrap the RPC authorizer with `LocalAccessAuthorizer` in main.ts; the mode is
 * `FILES_LOCAL_AUTHZ`.
 *
 * What the copy may decide: only "anyone may read this published version's files" — scope
 * `record`, action `read`, the files bucket (not media), no secret-link token, not a listing nor a
 * request for metadata (IIIF manifests; its
 * `order`/`default_preview` are records' alone), and a row that is published, not deleted, with
 * access status `open` (record and files public, files enabled, no active embargo). Everything
 * else — drafts, restricted or embargoed files, owners' and grants' rights, deleted records — is
 * asked of records, so restricted or draft content never comes from the copy.
 *
 * When the copy is behind: it is used only while every consumer feeding it has nothing pending
 * on the RECORDS stream (`CopyFreshness`). What no check here can see is an event records has
 * committed but not relayed yet (outbox relay latency, milliseconds; after a records crash, until
 * it restarts). Hence the modes:
 * - `fallback` (default): ask records first; only when it does not answer (`RpcError`: no
 *   responders, timeout) decide from the copy. Answers are exactly records' while it is up, and
 *   published public files keep downloading while it is down.
 * - `first`: decide from the copy when it can, records otherwise: no call per public download,
 *   at the price of the relay window above (a deletion or restriction takes effect for downloads
 *   when its event is applied, typically milliseconds later).
 * - `off`: always records.
 */
import { isAppError, RpcError } from '@rdm/platform';
import type { RecordAccessRow } from '../repo/record-access.repo.js';
import type { AuthorizeFilesRequest, AuthorizeOptions, BucketGrant, FilesAuthorizer } from './authorizer.js';

/** `FILES_LOCAL_AUTHZ`: how the local copy is used (see header). */
export type LocalAuthzMode = 'fallback' | 'first' | 'off';

/** Is the copy caught up with the RECORDS stream (nothing pending for its consumers)? */
export interface CopyFreshness {
  caughtUp(): Promise<boolean>;
}

/** Dependencies of LocalAccessAuthorizer. */
export interface LocalAccessDeps {
  mode: LocalAuthzMode;
  /** Records' authorize-files over NATS. */
  rpc: FilesAuthorizer;
  find(recordId: string): Promise<RecordAccessRow | undefined>;
  freshness: CopyFreshness;
}

/** Could the copy answer `req` at all (a public read of a published version's files bucket)? */
export function copyMayAnswer(req: AuthorizeFilesRequest, opts: AuthorizeOptions = {}): boolean {
  return (
    req.scope === 'record' &&
    req.action === 'read' &&
    req.bucket === undefined &&
    req.access_token === undefined &&
    !opts.listing &&
    !req.with_metadata
  );
}

/** The grant the copy gives for `req`, or undefined when records must decide. */
export function localGrant(
  row: RecordAccessRow | undefined,
  req: AuthorizeFilesRequest,
  opts: AuthorizeOptions = {},
): BucketGrant | undefined {
  if (!copyMayAnswer(req, opts) || !row || row.deleted || row.access_status !== 'open' || row.record_id !== req.record_id) return undefined;
  return { bucket_id: row.bucket_id, record_id: row.record_id, enabled: true, locked: true, default_preview: null, order: [] };
}

/** FilesAuthorizer deciding public reads of published files from the copy, per mode. */
export class LocalAccessAuthorizer implements FilesAuthorizer {
  constructor(private readonly d: LocalAccessDeps) {}

  async authorize(req: AuthorizeFilesRequest, opts: AuthorizeOptions = {}): Promise<BucketGrant> {
    if (this.d.mode === 'first') {
      const local = await this.fromCopy(req, opts);
      if (local) return local;
    }
    try {
      return await this.d.rpc.authorize(req, opts);
    } catch (err) {
      if (this.d.mode !== 'fallback' || !(err instanceof RpcError) || !isAppError(err)) throw err;
      const local = await this.fromCopy(req, opts);
      if (local) return local;
      throw err;
    }
  }

  /** The copy's grant, only when it could be one and the copy is caught up. */
  private async fromCopy(req: AuthorizeFilesRequest, opts: AuthorizeOptions): Promise<BucketGrant | undefined> {
    if (!copyMayAnswer(req, opts)) return undefined;
    const grant = localGrant(await this.d.find(req.record_id), req, opts);
    if (!grant || !(await this.d.freshness.caughtUp())) return undefined;
    return grant;
  }
}
