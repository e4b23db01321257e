/** NATS client of `rdm.records.rpc.authorize-files` (proto/README.md). */
import { injectTraceHeaders, type NatsHandle, callContract } from '@rdm/platform';
import { RPC_SUBJECTS } from '@rdm/contracts';
import type { AuthorizeFilesRequest, BucketGrant, FilesAuthorizer } from '../domain/authorizer.js';
import { FilesErrors } from '../domain/errors.js';

/** Subject of the authorize-files RPC. */
export const AUTHORIZE_FILES_SUBJECT = RPC_SUBJECTS.records.authorizeFiles;

/** FilesAuthorizer over NATS request-reply; a media-files grant must echo `bucket: "media"`. */
export class RpcFilesAuthorizer implements FilesAuthorizer {
  constructor(
    private readonly nc: NatsHandle['nc'],
    private readonly timeoutMs: number,
  ) {}

  async authorize(req: AuthorizeFilesRequest): Promise<BucketGrant> {
    const g = await callContract(this.nc, AUTHORIZE_FILES_SUBJECT, req, {
      timeoutMs: this.timeoutMs,
      headers: injectTraceHeaders(),
    });
    // Why: a records service that predates media files ignores `bucket` and would grant the files bucket.
    if (req.bucket === 'media' && g.bucket !== 'media') throw FilesErrors.mediaUnsupported();
    return {
      ...(req.bucket === 'media' ? { bucket: 'media' as const } : {}),
      bucket_id: String(g.bucket_id),
      record_id: String(g.record_id ?? req.record_id),
      enabled: g.enabled !== false,
      locked: g.locked === true,
      default_preview: g.default_preview ?? null,
      order: Array.isArray(g.order) ? g.order : [],
      ...(req.with_metadata && g.metadata ? { metadata: g.metadata } : {}),
    };
  }
}
