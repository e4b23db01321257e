/**
 * A draft owner's request for a larger bucket quota (`quota_increase` link,
 * `POST /api/records/<id>/quota-increase` with `{quota_size, reason}`; `quota_size` in bytes, as
 * InvenioRDM's `quota_size` of its record quota). The id is a draft's (a new upload or the edit
 * draft of a published record): its bucket is the one the quota is for.
 *
 * Every ask creates a `quota-increase` request in the requests service (RPC `create`, `submitted`,
 * receiver the administrators `{group: "admin"}`, topic the draft, `payload` `{quota_size, reason,
 * bucket_id}`, the reason its first comment). An administrator accepts it — the files service then
 * raises the bucket's quota (its consumer of `rdm.requests.request.accepted`, confirmed by
 * `rdm.files.bucket.quota-changed`) — or declines it; the owner may cancel it. Mails:
 * `events/quota-requests.consumer.ts`.
 *
 * Refusals: anonymous 403; unknown 404; not the owner 403; a published record without a draft:
 * 400 "edit it first" to its owner (410 once deleted); bad fields 400; an open quota-increase
 * request on the draft 400 `A quota increase request for this draft is already open.` (one open
 * request per draft: the row claimed in `quota_requests` and the RPC create in one transaction,
 * the row closed by `events/quota-requests.consumer.ts`).
 *
 * The type's differences from the shared flow (`record-requests/record-request.ts`): a draft's
 * topic, its body, its payload (with the bucket) and the slot table; never accepted at once.
 *
 * When to use: the quota-increase route and the item links (`mayRequestQuota`).
 */
import { Errors, type Identity, type Knex } from '@rdm/platform';
import type { RequestsPort } from '../domain/ports.js';
import {
  askFields,
  isOwner,
  openRecordRequest,
  optionalText,
  type RecordRequestOutcome,
  type RecordRequestType,
} from '../record-requests/record-request.js';
import * as qr from '../repo/quota-requests.repo.js';
import * as repo from '../repo/records.repo.js';

/** The refusal of a second open request on a draft. */
export const QUOTA_REQUEST_OPEN = 'A quota increase request for this draft is already open.';

/** Longest reason accepted. */
export const MAX_QUOTA_REASON = 5000;

/** Parse `{quota_size, reason}`; 400 with field errors. */
export function parseQuotaAsk(input: unknown): { quotaSize: number; reason: string } {
  const { body, errors } = askFields(input, ['quota_size', 'reason']);
  const size = body.quota_size;
  if (size === undefined || size === null) errors.push({ field: 'quota_size', messages: ['Missing data for required field.'] });
  else if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 1)
    errors.push({ field: 'quota_size', messages: ['Must be a whole number of bytes, at least 1.'] });
  const raw = body.reason;
  let reason = '';
  if (raw === undefined || raw === null || (typeof raw === 'string' && !raw.trim()))
    errors.push({ field: 'reason', messages: ['Missing data for required field.'] });
  else reason = optionalText(raw, 'reason', errors, { max: MAX_QUOTA_REASON });
  if (errors.length) throw Errors.validation(errors);
  return { quotaSize: size as number, reason };
}

/** True when the caller owns the draft (only owners may ask). */
export const mayRequestQuota: (identity: Identity, ownerId: string | null | undefined) => boolean = isOwner;

/** The caller's draft `id`: unknown 404; a published record without a draft 400 "edit it first" to its owner (410 once deleted); not the owner 403. */
async function ownDraft(db: Knex, identity: Identity, id: string) {
  const found = await repo.getDraftWithParent(db, id);
  if (!found?.parent) {
    const rec = await repo.getRecordWithParent(db, id);
    if (!rec?.parent) throw Errors.pidDoesNotExist();
    // A published record without a draft: its owner is told what to do, others refused.
    if (!isOwner(identity, rec.parent.owner_id)) throw Errors.permissionDenied();
    if (rec.record.deletion_status !== 'P') throw Errors.gone();
    throw Errors.badRequest('Quota increases are asked for a draft: edit the record first, then ask for its draft.');
  }
  if (!isOwner(identity, found.parent.owner_id)) throw Errors.permissionDenied();
  return { draft: found.draft, topicId: found.draft.id };
}

/** The quota-increase type. */
const QUOTA_INCREASE: RecordRequestType<{ quotaSize: number; reason: string }, Awaited<ReturnType<typeof ownDraft>>> = {
  id: 'quota-increase',
  load: ownDraft,
  parse: parseQuotaAsk,
  claim: async (trx, s) => ((await qr.claimOpen(trx, s.id, s.target.draft.id)) ? undefined : QUOTA_REQUEST_OPEN),
  setRequestId: qr.setRequestId,
  title: (t) => String(t.draft.metadata?.title || t.draft.id),
  payload: (ask, t) => ({ quota_size: ask.quotaSize, reason: ask.reason, bucket_id: t.draft.bucket_id }),
  comment: (ask) => ask.reason,
};

/** Owners' quota-increase requests. */
export class QuotaRequestService {
  constructor(private readonly d: { db: Knex; requests: RequestsPort }) {}

  /** POST /api/records/{id}/quota-increase. */
  request(identity: Identity, id: string, body: unknown): Promise<RecordRequestOutcome> {
    return openRecordRequest(this.d, QUOTA_INCREASE, identity, id, body);
  }
}
