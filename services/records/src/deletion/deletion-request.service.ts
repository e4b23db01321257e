/**
 * An owner's request to delete their published record (InvenioRDM 13+/14 `record-deletion`,
 * `POST /api/records/<id>/request-deletion` with `{reason, comment?}`; `reason` an id of the
 * `removalreasons` vocabulary, as `{id}` or a string).
 *
 * Every ask creates a `record-deletion` request in the requests service (RPC `create`,
 * `submitted`, receiver the administrators `{group: "admin"}`, topic the record, the comment its
 * first comment). When the record is within `RECORDS_DELETION_GRACE_PERIOD_DAYS` of its
 * publication and has no external DOI, the request is accepted at once as the system (RPC
 * `action`, with a comment saying why); otherwise it waits for an administrator's accept or
 * decline. Accepting makes `events/deletion-requests.consumer.ts` delete the record exactly as an
 * administrator's deletion does (tombstone, `removed_by` the owner, `rdm.records.record.deleted`
 * with the `request_id` confirming the saga).
 *
 * Refusals: anonymous 403; unknown 404 / draft 404 / deleted 410 (as the record read); not the
 * owner 403; an open deletion request on the record 400 `A deletion request for this record is
 * already open: <id>`; bad fields 400. One open request per record: the row claimed in
 * `deletion_requests` (partial unique index) and the RPC create run in one transaction.
 *
 * When to use: the request-deletion route and the record links (`mayRequestDeletion`).
 */
import { randomUUID } from 'node:crypto';
import { AppError, Errors, type FieldError, type Identity, type Knex, SYSTEM, withTransaction } from '@rdm/platform';
import * as dr from '../repo/deletion-requests.repo.js';
import * as repo from '../repo/records.repo.js';
import type { RequestsPort, RequestView, VocabulariesPort } from '../domain/ports.js';

/** The system's comment on a request accepted at once. */
export const IMMEDIATE_DELETION_COMMENT =
  'This request has been automatically accepted: the record is within the deletion grace period after its publication and has no external DOI.';
/** Longest comment accepted. */
export const MAX_DELETION_COMMENT = 5000;

/** What the service needs. */
export interface DeletionRequestDeps {
  db: Knex;
  requests: RequestsPort;
  vocabularies: VocabulariesPort;
  /** Days after a record's publication during which its owner's request is accepted at once. */
  gracePeriodDays: number;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parse `{reason: id | {id}, comment?}`; 400 with field errors. */
export function parseDeletionAsk(body: unknown): { reason: string; comment: string } {
  if (!isObj(body)) throw Errors.validation([{ field: '_schema', messages: ['Invalid input type.'] }]);
  const errors: FieldError[] = [];
  const unknown = Object.keys(body).filter((k) => k !== 'reason' && k !== 'comment');
  for (const k of unknown) errors.push({ field: k, messages: ['Unknown field.'] });
  const raw = body.reason;
  let reason = '';
  if (raw === undefined || raw === null) errors.push({ field: 'reason', messages: ['Missing data for required field.'] });
  else if (typeof raw === 'string' && raw.trim()) reason = raw.trim();
  else if (isObj(raw) && typeof raw.id === 'string' && raw.id.trim()) reason = raw.id.trim();
  else errors.push({ field: 'reason', messages: ['Not a valid removal reason.'] });
  const c = body.comment;
  let comment = '';
  if (c !== undefined && c !== null) {
    if (typeof c !== 'string') errors.push({ field: 'comment', messages: ['Not a valid string.'] });
    else if (c.length > MAX_DELETION_COMMENT)
      errors.push({ field: 'comment', messages: [`Longer than maximum length ${MAX_DELETION_COMMENT}.`] });
    else comment = c.trim();
  }
  if (errors.length) throw Errors.validation(errors);
  return { reason, comment };
}

/** True when the record's owner is the caller (only owners may ask: InvenioRDM's `RecordOwners`). */
export function mayRequestDeletion(identity: Identity, ownerId: string | null | undefined): boolean {
  return identity.sub !== null && !!ownerId && String(ownerId) === String(identity.sub);
}

/** Owners' record-deletion requests. */
export class DeletionRequestService {
  constructor(private readonly d: DeletionRequestDeps) {}

  /** Within the grace period after publication and without an external DOI? */
  isImmediate(record: { created: Date | string; pids: Record<string, { provider?: string } | undefined> }, now = new Date()): boolean {
    if (record.pids?.doi?.provider === 'external') return false;
    const published = new Date(record.created).getTime();
    return now.getTime() - published <= this.d.gracePeriodDays * 86_400_000;
  }

  /** POST /api/records/{id}/request-deletion. */
  async request(identity: Identity, id: string, body: unknown): Promise<{ request: RequestView; immediate: boolean }> {
    if (identity.sub === null) throw Errors.permissionDenied();
    const found = await repo.getRecordWithParent(this.d.db, id);
    if (!found?.parent) {
      if (await repo.getDraft(this.d.db, id)) throw Errors.pidNotRegistered();
      throw Errors.pidDoesNotExist();
    }
    const { record, parent } = found;
    if (record.deletion_status !== 'P') throw Errors.gone();
    if (!mayRequestDeletion(identity, parent.owner_id)) throw Errors.permissionDenied();
    const input = parseDeletionAsk(body);
    const [resolved] = await this.d.vocabularies.resolve([{ type: 'removalreasons', id: input.reason }]);
    if (!resolved?.found) throw Errors.validation([{ field: 'reason', messages: [`Invalid value ${input.reason}.`] }]);
    const immediate = this.isImmediate(record);
    const userId = String(identity.sub);
    const request = await withTransaction(this.d.db, async (trx) => {
      const slot = randomUUID();
      const claim = await dr.claimOpen(trx, { id: slot, record_id: record.id, parent_id: parent.id, requester: userId, immediate });
      if (!claim.claimed)
        throw Errors.badRequest(`A deletion request for this record is already open: ${claim.existing?.request_id ?? ''}`);
      const created = await this.d.requests.create({
        identity: { sub: identity.sub, roles: [...identity.roles] },
        type: 'record-deletion',
        created_by: { user: userId },
        receiver: { group: 'admin' },
        topic: { record: record.id },
        title: String(record.metadata?.title ?? record.id),
        payload: { reason: input.reason, ...(input.comment ? { comment: input.comment } : {}) },
        ...(input.comment ? { comment: { content: input.comment, format: 'html' } } : {}),
        key: `record-deletion:${slot}`,
      });
      await dr.setRequestId(trx, slot, created.id);
      return created;
    });
    if (!immediate) return { request, immediate };
    try {
      const accepted = await this.d.requests.action({
        id: request.id,
        action: 'accept',
        identity: { sub: SYSTEM.sub, roles: [...SYSTEM.roles] },
        payload: { content: IMMEDIATE_DELETION_COMMENT, format: 'html' },
      });
      // The system's view of the request: answer the owner's.
      return { request: await this.d.requests.get(accepted.id, { sub: identity.sub, roles: [...identity.roles] }), immediate };
    } catch (err) {
      // The request exists and stays open for an administrator; the ask itself succeeded.
      if (err instanceof AppError && err.status < 500) return { request, immediate: false };
      throw err;
    }
  }
}
