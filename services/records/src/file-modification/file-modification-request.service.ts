/**
 * An owner's request to modify the files of their published record (InvenioRDM 13+
 * `file-modification`, the `file_modification` link, `POST /api/records/<id>/file-modification`
 * with an optional `{comment}`).
 *
 * Every ask creates a `file-modification` request in the requests service (RPC `create`,
 * `submitted`, receiver the administrators `{group: "admin"}`, topic the record, the comment its
 * first comment). Within `RECORDS_FILE_MODIFICATION_GRACE_PERIOD_DAYS` of the record's
 * publication the request is accepted at once as the system (RPC `action`, with a comment saying
 * why); later it waits for an administrator's accept or decline, and the owner may cancel it.
 * Accepting makes `events/file-modification-requests.consumer.ts` unlock the record's files
 * (`rdm.records.record.files-unlocked` with the `request_id` confirms the saga). Once unlocked,
 * the files change only through the record's edit draft (`POST /api/records/<id>/draft`), which
 * then gets its own copy of the files bucket (files component); publishing that draft replaces
 * the version's files (a new revision; the earlier bucket stays, locked, as the earlier
 * revision's) and consumes the unlock.
 *
 * Refusals: anonymous 403; unknown 404 / draft 404 / deleted 410 (as the record read); not the
 * owner 403; files disabled 400; an open or unconsumed request on the record 400 `A file
 * modification request for this record already exists.` (InvenioRDM's); bad fields 400. One
 * active request per record: the row claimed in `file_modification_requests` (partial unique
 * index) and the RPC create run in one transaction.
 *
 * When to use: the file-modification route and the record links (`mayRequestFileModification`).
 */
import { randomUUID } from 'node:crypto';
import { AppError, Errors, type FieldError, type Identity, type Knex, SYSTEM, withTransaction } from '@rdm/platform';
import type { RequestsPort, RequestView } from '../domain/ports.js';
import * as fm from '../repo/file-modification-requests.repo.js';
import * as repo from '../repo/records.repo.js';

/** The system's comment on a request accepted at once. */
export const IMMEDIATE_FILE_MODIFICATION_COMMENT =
  'This request has been automatically accepted: the record is within the file modification grace period after its publication.';
/** InvenioRDM's message for a second request while one is active. */
export const FILE_MODIFICATION_EXISTS = 'A file modification request for this record already exists.';
/** Shortest comment accepted (InvenioRDM's payload schema: `Length(min=25)`). */
export const MIN_FILE_MODIFICATION_COMMENT = 25;
/** Longest comment accepted. */
export const MAX_FILE_MODIFICATION_COMMENT = 5000;

/** What the service needs. */
export interface FileModificationDeps {
  db: Knex;
  requests: RequestsPort;
  /** Days after a record's publication during which its owner's request is accepted at once. */
  gracePeriodDays: number;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parse the optional `{comment}` (no body: none); 400 with field errors. */
export function parseFileModificationAsk(body: unknown): { comment: string } {
  if (body === undefined || body === null) return { comment: '' };
  if (!isObj(body)) throw Errors.validation([{ field: '_schema', messages: ['Invalid input type.'] }]);
  const errors: FieldError[] = [];
  for (const k of Object.keys(body).filter((k) => k !== 'comment')) errors.push({ field: k, messages: ['Unknown field.'] });
  const c = body.comment;
  let comment = '';
  if (c !== undefined && c !== null) {
    if (typeof c !== 'string') errors.push({ field: 'comment', messages: ['Not a valid string.'] });
    else if (c.trim().length < MIN_FILE_MODIFICATION_COMMENT)
      errors.push({ field: 'comment', messages: [`Shorter than minimum length ${MIN_FILE_MODIFICATION_COMMENT}.`] });
    else if (c.length > MAX_FILE_MODIFICATION_COMMENT)
      errors.push({ field: 'comment', messages: [`Longer than maximum length ${MAX_FILE_MODIFICATION_COMMENT}.`] });
    else comment = c.trim();
  }
  if (errors.length) throw Errors.validation(errors);
  return { comment };
}

/** True when the caller owns the record (only owners may ask, as for deletion requests). */
export function mayRequestFileModification(identity: Identity, ownerId: string | null | undefined): boolean {
  return identity.sub !== null && !!ownerId && String(ownerId) === String(identity.sub);
}

/** Is `published` within `days` of `now`? */
export function withinGracePeriod(published: Date | string, days: number, now = new Date()): boolean {
  return now.getTime() - new Date(published).getTime() <= days * 86_400_000;
}

/** Owners' file-modification requests. */
export class FileModificationRequestService {
  constructor(private readonly d: FileModificationDeps) {}

  /** POST /api/records/{id}/file-modification. */
  async request(identity: Identity, id: string, body: unknown): Promise<{ request: RequestView; immediate: boolean }> {
    if (identity.sub === null) throw Errors.permissionDenied();
    const found = await repo.getRecordWithParent(this.d.db, id);
    if (!found?.parent) {
      if (await repo.getDraft(this.d.db, id)) throw Errors.pidNotRegistered();
      throw Errors.pidDoesNotExist();
    }
    const { record, parent } = found;
    if (record.deletion_status !== 'P') throw Errors.gone();
    if (!mayRequestFileModification(identity, parent.owner_id)) throw Errors.permissionDenied();
    const input = parseFileModificationAsk(body);
    if (!record.files.enabled) throw Errors.badRequest('The record has no files to modify.');
    const immediate = withinGracePeriod(record.created, this.d.gracePeriodDays);
    const userId = String(identity.sub);
    const title = String(record.metadata?.title ?? record.id);
    const request = await withTransaction(this.d.db, async (trx) => {
      const slot = randomUUID();
      const claim = await fm.claimActive(trx, { id: slot, record_id: record.id, parent_id: parent.id, requester: userId, immediate });
      if (!claim.claimed) throw Errors.badRequest(FILE_MODIFICATION_EXISTS);
      const created = await this.d.requests.create({
        identity: { sub: identity.sub, roles: [...identity.roles] },
        type: 'file-modification',
        created_by: { user: userId },
        receiver: { group: 'admin' },
        topic: { record: record.id },
        title: `File modification request for "${title}"`,
        payload: input.comment ? { comment: input.comment } : {},
        ...(input.comment ? { comment: { content: input.comment, format: 'html' } } : {}),
        key: `file-modification:${slot}`,
      });
      await fm.setRequestId(trx, slot, created.id);
      return created;
    });
    if (!immediate) return { request, immediate };
    try {
      const accepted = await this.d.requests.action({
        id: request.id,
        action: 'accept',
        identity: { sub: SYSTEM.sub, roles: [...SYSTEM.roles] },
        payload: { content: IMMEDIATE_FILE_MODIFICATION_COMMENT, format: 'html' },
      });
      return { request: await this.d.requests.get(accepted.id, { sub: identity.sub, roles: [...identity.roles] }), immediate };
    } catch (err) {
      // The request exists and stays open for an administrator; the ask itself succeeded.
      if (err instanceof AppError && err.status < 500) return { request, immediate: false };
      throw err;
    }
  }
}
