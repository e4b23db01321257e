/**
 * RPC `rdm.records.rpc.authorize-files` (queue group `records`): the files service asks, for
 * every files request, whether the identity may read/update the draft's or record's files and
 * which bucket holds them. Errors are exactly the HTTP route's (404/403/410), so files can pass
 * them through unchanged.
 */
import { type MsgLogger, type NatsHandle, type RpcServer, serveRpc } from '@rdm/platform';
import { RPC_SUBJECTS } from '@rdm/platform/contracts';
import type { AuthorizeFilesRequest, RecordsService } from '../domain/records.service.js';

/** Subject of the authorize-files RPC. */
export const AUTHORIZE_FILES_SUBJECT = RPC_SUBJECTS.records.authorizeFiles;

/** JSON Schema of the request. */
export const authorizeFilesRequestSchema = {
  type: 'object',
  required: ['record_id', 'scope', 'action', 'identity'],
  properties: {
    record_id: { type: 'string', minLength: 1, maxLength: 200 },
    scope: { enum: ['draft', 'record'] },
    action: { enum: ['read', 'update'] },
    identity: {
      type: 'object',
      required: ['sub', 'roles'],
      properties: {
        sub: { type: ['string', 'null'] },
        roles: { type: 'array', items: { type: 'string' } },
      },
    },
    access_token: { type: 'string' },
    bucket: { enum: ['media'] },
  },
} as const;

/** Serve the authorize-files RPC until `stop()`. */
export function serveAuthorizeFilesRpc(nc: NatsHandle['nc'], service: RecordsService, logger: MsgLogger): RpcServer {
  return serveRpc<AuthorizeFilesRequest>(nc, AUTHORIZE_FILES_SUBJECT, (req) => service.authorizeFiles(req), {
    queue: 'records',
    logger,
    validate: authorizeFilesRequestSchema as unknown as Record<string, unknown>,
  });
}
