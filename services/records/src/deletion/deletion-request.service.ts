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
 * The type's differences from the shared flow (`record-requests/record-request.ts`): its body, the
 * reason checked against the vocabulary, the grace period and the slot table.
 *
 * When to use: the request-deletion route and the record links (`mayRequestDeletion`).
 */
import { Errors, type Identity } from '@rdm/platform';
import type { VocabulariesPort } from '../domain/ports.js';
import {
  askFields,
  type GracePeriodDeps,
  isObj,
  isOwner,
  openRecordRequest,
  optionalText,
  ownPublishedRecord,
  type RecordRequestOutcome,
  type RecordRequestType,
  withinGracePeriod,
} from '../record-requests/record-request.js';
import * as dr from '../repo/deletion-requests.repo.js';

/** The system's comment on a request accepted at once. */
export const IMMEDIATE_DELETION_COMMENT =
  'This request has been automatically accepted: the record is within the deletion grace period after its publication and has no external DOI.';
/** Longest comment accepted. */
export const MAX_DELETION_COMMENT = 5000;

/** What the service needs. */
export interface DeletionRequestDeps extends GracePeriodDeps {
  vocabularies: VocabulariesPort;
}

/** Parse `{reason: id | {id}, comment?}`; 400 with field errors. */
export function parseDeletionAsk(input: unknown): { reason: string; comment: string } {
  const { body, errors } = askFields(input, ['reason', 'comment']);
  const raw = body.reason;
  let reason = '';
  if (raw === undefined || raw === null) errors.push({ field: 'reason', messages: ['Missing data for required field.'] });
  else if (typeof raw === 'string' && raw.trim()) reason = raw.trim();
  else if (isObj(raw) && typeof raw.id === 'string' && raw.id.trim()) reason = raw.id.trim();
  else errors.push({ field: 'reason', messages: ['Not a valid removal reason.'] });
  const comment = optionalText(body.comment, 'comment', errors, { max: MAX_DELETION_COMMENT });
  if (errors.length) throw Errors.validation(errors);
  return { reason, comment };
}

/** True when the record's owner is the caller (only owners may ask: InvenioRDM's `RecordOwners`). */
export const mayRequestDeletion: (identity: Identity, ownerId: string | null | undefined) => boolean = isOwner;

type Target = Awaited<ReturnType<typeof ownPublishedRecord>>;

/** Owners' record-deletion requests. */
export class DeletionRequestService {
  private readonly type: RecordRequestType<{ reason: string; comment: string }, Target>;

  constructor(private readonly d: DeletionRequestDeps) {
    this.type = {
      id: 'record-deletion',
      load: ownPublishedRecord,
      parse: parseDeletionAsk,
      check: async (ask) => {
        const [resolved] = await d.vocabularies.resolve([{ type: 'removalreasons', id: ask.reason }]);
        if (!resolved?.found) throw Errors.validation([{ field: 'reason', messages: [`Invalid value ${ask.reason}.`] }]);
      },
      immediate: (t) => this.isImmediate(t.record),
      immediateComment: IMMEDIATE_DELETION_COMMENT,
      claim: async (trx, s) => {
        const row = { id: s.id, record_id: s.target.record.id, parent_id: s.target.parent.id, requester: s.requester };
        const claim = await dr.claimOpen(trx, { ...row, immediate: s.immediate });
        return claim.claimed ? undefined : `A deletion request for this record is already open: ${claim.existing?.request_id ?? ''}`;
      },
      setRequestId: dr.setRequestId,
      title: (t) => String(t.record.metadata?.title ?? t.record.id),
      payload: (ask) => ({ reason: ask.reason, ...(ask.comment ? { comment: ask.comment } : {}) }),
      comment: (ask) => ask.comment,
    };
  }

  /** Within the grace period after publication and without an external DOI? */
  isImmediate(record: { created: Date | string; pids: Record<string, { provider?: string } | undefined> }, now = new Date()): boolean {
    if (record.pids?.doi?.provider === 'external') return false;
    return withinGracePeriod(record.created, this.d.gracePeriodDays, now);
  }

  /** POST /api/records/{id}/request-deletion. */
  request(identity: Identity, id: string, body: unknown): Promise<RecordRequestOutcome> {
    return openRecordRequest(this.d, this.type, identity, id, body);
  }
}
