/**
 * The target: this project's services, written through their administrator-only import
 * operations (issue 26) — files' internal route `PUT /internal/import/buckets/<id>/files/<key>`
 * (called on the files service directly with an identity signed as the system; the bytes are
 * streamed through, never buffered) and records' `rdm.records.rpc.import-record` over NATS.
 *
 * When to use: the migration runner's `TargetPort` in production.
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { RPC_SUBJECTS, type RecordsImportRecordReply, type RecordsImportRecordRequest } from '@rdm/contracts';
import { AppError, callContract, IDENTITY_HEADER, type NatsHandle, SYSTEM, signIdentity } from '@rdm/platform';
import type { SourceFile, TargetPort } from '../domain/ports.js';

/** A file the target refused because its bytes do not match the source's checksum. */
export class ChecksumMismatch extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChecksumMismatch';
  }
}

/** Options of the target. */
export interface ServicesTargetOptions {
  nc: NatsHandle['nc'];
  filesUrl: string;
  identitySecret: string;
  rpcTimeoutMs: number;
}

/** This project's services as the migration's target. */
export class ServicesTarget implements TargetPort {
  constructor(private readonly o: ServicesTargetOptions) {}

  async putFile(bucketId: string, file: SourceFile, body: Readable): Promise<{ stored: boolean }> {
    const key = file.key.split('/').map(encodeURIComponent).join('/');
    const target = `/internal/import/buckets/${encodeURIComponent(bucketId)}/files/${key}?checksum=${encodeURIComponent(file.checksum)}`;
    const requestId = randomUUID();
    const header = signIdentity(SYSTEM, this.o.identitySecret, { method: 'PUT', target, requestId });
    const url = new URL(this.o.filesUrl.replace(/\/+$/, '') + target);
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
        url,
        {
          method: 'PUT',
          headers: {
            [IDENTITY_HEADER]: header,
            'x-request-id': requestId,
            'content-type': 'application/octet-stream',
            'content-length': String(file.size),
          },
        },
        (res) => {
          const parts: Buffer[] = [];
          res.on('data', (c: Buffer) => parts.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      // The source's bytes flow straight through: backpressure from the files service reaches the source.
      pipeline(body, req).catch(reject);
    });
    let answer: { message?: string; stored?: boolean } = {};
    try {
      answer = JSON.parse(text);
    } catch {
      answer = {};
    }
    if (status === 422) throw new ChecksumMismatch(answer.message ?? `Checksum mismatch for ${file.key}.`);
    if (status < 200 || status >= 300)
      throw new AppError('file_import_failed', status || 502, `Files refused ${file.key} (HTTP ${status}): ${answer.message ?? ''}`);
    return { stored: answer.stored === true };
  }

  importRecord(req: RecordsImportRecordRequest): Promise<RecordsImportRecordReply> {
    return callContract(this.o.nc, RPC_SUBJECTS.records.importRecord, req, { timeoutMs: this.o.rpcTimeoutMs });
  }
}
