/**
 * Registry entries of the record access request types (InvenioRDM 12's `UserAccessRequest` and
 * `GuestAccessRequest`): someone asks the owner of a record for access to its restricted files.
 *
 * - `user-access-request`: created by a user (`{user}`), received by the record's owner
 *   (`{user}`), topic the record. Accepting makes records add a user grant on the record's parent
 *   (`payload.permission`, default `view`).
 * - `guest-access-request`: created by an e-mail address (`{email}`) after the guest confirmed it,
 *   received by the owner. Accepting makes records create a secret link (expiring after
 *   `payload.secret_link_expiration` days, 0 = never) and e-mail it to the guest.
 *
 * Both are created by the records service (RPC `create`) directly `submitted` (InvenioRDM
 * creates then submits in one unit of work); the message becomes a comment. The effect lives in
 * records and can fail (record deleted meanwhile): a `saga` confirmed by
 * `rdm.records.access-request.granted`, failed by `rdm.records.access-request.failed`.
 * Decline, cancel and expire follow the other types (no effect in records but the bookkeeping of
 * open requests, which follows `rdm.requests.request.*`).
 */
import type { RequestType } from './request-type.js';

/** Subject of records' event confirming an accepted access request (grant or link created). */
export const ACCESS_GRANTED_SUBJECT = 'rdm.records.access-request.granted';
/** Subject of records' event reporting an access request it could not apply. */
export const ACCESS_FAILED_SUBJECT = 'rdm.records.access-request.failed';

const accessType = (id: string, creator: 'user' | 'email', selfHtml: (reqId: string) => string): RequestType => ({
  id,
  label: 'Access request',
  initialStatus: 'submitted',
  refs: { created_by: [creator], receiver: ['user'], topic: ['record'] },
  needsContext: { creator: [], receiver: [] },
  actions: {
    accept: { from: ['submitted'], to: 'accepted', who: ['receiver', 'system'], log: 'accepted' },
    decline: { from: ['submitted'], to: 'declined', who: ['receiver', 'system'], log: 'declined' },
    cancel: { from: ['submitted'], to: 'cancelled', who: ['creator', 'system'], log: 'cancelled' },
    expire: { from: ['submitted'], to: 'expired', who: ['system'], log: 'expired' },
  },
  effect: { mode: 'saga', confirm: [ACCESS_GRANTED_SUBJECT], fail: [ACCESS_FAILED_SUBJECT] },
  expiresInDays: null,
  deletable: true,
  // Records passes the record's title (InvenioRDM's submit action sets it).
  defaultTitle: () => '',
  selfHtml: (req) => selfHtml(req.id),
  contextCommunity: 'receiver',
});

/** The access request types. */
export const ACCESS_TYPES: RequestType[] = [
  // InvenioRDM: `read_request` (`/access/requests/<id>`) for users.
  accessType('user-access-request', 'user', (id) => `/access/requests/${id}`),
  // InvenioRDM: the dashboard view for the (authenticated) owner; guests read by their token.
  accessType('guest-access-request', 'email', (id) => `/me/requests/${id}`),
];
