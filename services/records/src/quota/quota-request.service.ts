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
 * When to use: the quota-increase route and the item links (`mayRequestQuota`).
 */
import { randomUUID } from 'node:crypto';
import { Errors, type FieldError, type Identity, type Knex, withTransaction } from '@rdm/platform';
import type { RequestsPort, RequestView } from '../domain/ports.js';
import * as qr from '../repo/quota-requests.repo.js';
import * as repo from '../repo/records.repo.js';

/** The refusal of a second open request on a draft. */
export const QUOTA_REQUEST_OPEN = 'A quota increase request for this draft is already open.';

/** Longest reason accepted. */
export const MAX_QUOTA_REASON = 5000;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parse `{quota_size, reason}`; 400 with field errors. */
export function parseQuotaAsk(body: unknown): { quotaSize: number; reason: string } {
  if (!isObj(body)) throw Errors.validation([{ field: '_schema', messages: ['Invalid input type.'] }]);
  const errors: FieldError[] = [];
  for (const k of Object.keys(body).filter((k) => k !== 'quota_size' && k !== 'reason'))
    errors.push({ field: k, messages: ['Unknown field.'] });
  const size = body.quota_size;
  if (size === undefined || size === null) errors.push({ field: 'quota_size', messages: ['Missing data for required field.'] });
  else if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 1)
    errors.push({ field: 'quota_size', messages: ['Must be a whole number of bytes, at least 1.'] });
  const reason = body.reason;
  if (reason === undefined || reason === null || (typeof reason === 'string' && !reason.trim()))
    errors.push({ field: 'reason', messages: ['Missing data for required field.'] });
  else if (typeof reason !== 'string') errors.push({ field: 'reason', messages: ['Not a valid string.'] });
  else if (reason.length > MAX_QUOTA_REASON)
    errors.push({ field: 'reason', messages: [`Longer than maximum length ${MAX_QUOTA_REASON}.`] });
  if (errors.length) throw Errors.validation(errors);
  return { quotaSize: size as number, reason: (reason as string).trim() };
}

/** True when the caller owns the draft (only owners may ask). */
export function mayRequestQuota(identity: Identity, ownerId: string | null | undefined): boolean {
  return identity.sub !== null && !!ownerId && String(ownerId) === String(identity.sub);
}

/** Owners' quota-increase requests. */
export class QuotaRequestService {
  constructor(private readonly d: { db: Knex; requests: RequestsPort }) {}

  /** POST /api/records/{id}/quota-increase. */
  async request(identity: Identity, id: string, body: unknown): Promise<RequestView> {
    if (identity.sub === null) throw Errors.permissionDenied();
    const found = await repo.getDraftWithParent(this.d.db, id);
    if (!found?.parent) {
      const rec = await repo.getRecordWithParent(this.d.db, id);
      if (!rec?.parent) throw Errors.pidDoesNotExist();
      // A published record without a draft: its owner is told what to do, others refused.
      if (!mayRequestQuota(identity, rec.parent.owner_id)) throw Errors.permissionDenied();
      if (rec.record.deletion_status !== 'P') throw Errors.gone();
      throw Errors.badRequest('Quota increases are asked for a draft: edit the record first, then ask for its draft.');
    }
    const { draft, parent } = found;
    if (!mayRequestQuota(identity, parent.owner_id)) throw Errors.permissionDenied();
    const input = parseQuotaAsk(body);
    const userId = String(identity.sub);
    return withTransaction(this.d.db, async (trx) => {
      const slot = randomUUID();
      if (!(await qr.claimOpen(trx, slot, draft.id))) throw Errors.badRequest(QUOTA_REQUEST_OPEN);
      const created = await this.d.requests.create({
        identity: { sub: identity.sub, roles: [...identity.roles] },
        type: 'quota-increase',
        created_by: { user: userId },
        receiver: { group: 'admin' },
        topic: { record: draft.id },
        title: String(draft.metadata?.title || draft.id),
        payload: { quota_size: input.quotaSize, reason: input.reason, bucket_id: draft.bucket_id },
        comment: { content: input.reason, format: 'html' },
        key: `quota-increase:${slot}`,
      });
      await qr.setRequestId(trx, slot, created.id);
      return created;
    });
  }
}
