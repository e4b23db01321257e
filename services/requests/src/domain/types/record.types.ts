/**
 * Registry entries of the requests a record's owner makes to the site's administrators
 * (InvenioRDM 13+/14 `RecordDeletionRequest`, type `record-deletion`):
 *
 * - `record-deletion`: created by the owner (`{user}`) through records'
 *   `POST /api/records/<id>/request-deletion`, received by the administrators (`{group: "admin"}`:
 *   no user stands for them; administrators read and act on every request), topic the record;
 *   `payload` `{reason, comment?}` (reason: an id of the `removalreasons` vocabulary). Records
 *   creates it directly `submitted` and, within its grace period and without an external DOI,
 *   accepts it at once as the system (the auto-accept comment names why). Accepting makes records
 *   delete the record with a tombstone (`removed_by` the owner): a `saga` confirmed by
 *   `rdm.records.record.deleted` carrying the `request_id`, failed by
 *   `rdm.records.record.deletion-failed` (record already deleted or unknown).
 *   Decline by administrators, cancel by the owner; it never expires.
 * - `quota-increase`: created by a draft's owner (`{user}`) through records'
 *   `POST /api/records/<id>/quota-increase`, received by the administrators, topic the draft
 *   (`{record: <draft id>}`); `payload` `{quota_size, reason, bucket_id}` (bytes asked, the
 *   owner's reason, the draft's bucket). Accepting makes the files service raise that bucket's
 *   quota: a `saga` confirmed by `rdm.files.bucket.quota-changed` carrying the `request_id`.
 *   Decline by administrators, cancel by the owner; it never expires.
 * - `file-modification` (InvenioRDM 13+ `FileModification`): created by a record's owner
 *   (`{user}`) through records' `POST /api/records/<id>/file-modification`, received by the
 *   administrators, topic the record; `payload` `{comment?}`. Records creates it `submitted` and,
 *   within its grace period after publication, accepts it at once as the system. Accepting makes
 *   records unlock the record's files (its edit draft gets its own editable copy; the next
 *   publication replaces the version's files and consumes the unlock): a `saga` confirmed by
 *   `rdm.records.record.files-unlocked` carrying the `request_id`, failed by
 *   `rdm.records.record.files-unlock-failed`. Decline by administrators, cancel by the owner.
 */
import type { RequestType } from './request-type.js';

/** The receiver of requests to the site's administrators. */
export const ADMINS_REF = { group: 'admin' } as const;
/** Subject of records' deletion, confirming an accepted `record-deletion` (with `request_id`). */
export const RECORD_DELETED_SUBJECT = 'rdm.records.record.deleted';
/** Subject of the files service's quota change, confirming an accepted `quota-increase` (with `request_id`). */
export const BUCKET_QUOTA_CHANGED_SUBJECT = 'rdm.files.bucket.quota-changed';
/** Subject of records' event reporting a `record-deletion` it could not apply. */
export const RECORD_DELETION_FAILED_SUBJECT = 'rdm.records.record.deletion-failed';

/** Subject of records' unlock of a record's files, confirming an accepted `file-modification` (with `request_id`). */
export const RECORD_FILES_UNLOCKED_SUBJECT = 'rdm.records.record.files-unlocked';
/** Subject of records' event reporting a `file-modification` it could not apply. */
export const RECORD_FILES_UNLOCK_FAILED_SUBJECT = 'rdm.records.record.files-unlock-failed';

/** Every type: an administrator (or records, as the system) accepts or declines; the owner may cancel. */
const ADMINISTRATORS_DECIDE: RequestType['actions'] = {
  accept: { from: ['submitted'], to: 'accepted', who: ['admin', 'system'], log: 'accepted' },
  decline: { from: ['submitted'], to: 'declined', who: ['admin', 'system'], log: 'declined' },
  cancel: { from: ['submitted'], to: 'cancelled', who: ['creator', 'system'], log: 'cancelled' },
};

/** The record-owner request types. */
export const RECORD_TYPES: RequestType[] = [
  {
    id: 'record-deletion',
    label: 'Record deletion',
    initialStatus: 'submitted',
    refs: { created_by: ['user'], receiver: ['group'], topic: ['record'] },
    needsContext: { creator: [], receiver: [] },
    actions: ADMINISTRATORS_DECIDE,
    effect: { mode: 'saga', confirm: [RECORD_DELETED_SUBJECT], fail: [RECORD_DELETION_FAILED_SUBJECT] },
    expiresInDays: null,
    deletable: false,
    // Records passes the record's title.
    defaultTitle: () => 'Record deletion',
    selfHtml: (req) => `/me/requests/${req.id}`,
    contextCommunity: 'receiver',
  },
  {
    id: 'quota-increase',
    label: 'Quota increase',
    initialStatus: 'submitted',
    refs: { created_by: ['user'], receiver: ['group'], topic: ['record'] },
    needsContext: { creator: [], receiver: [] },
    actions: ADMINISTRATORS_DECIDE,
    effect: { mode: 'saga', confirm: [BUCKET_QUOTA_CHANGED_SUBJECT], fail: [] },
    expiresInDays: null,
    deletable: false,
    // Records passes the draft's title.
    defaultTitle: () => 'Quota increase',
    selfHtml: (req) => `/me/requests/${req.id}`,
    contextCommunity: 'receiver',
  },
  {
    id: 'file-modification',
    label: 'File modification',
    initialStatus: 'submitted',
    refs: { created_by: ['user'], receiver: ['group'], topic: ['record'] },
    needsContext: { creator: [], receiver: [] },
    actions: ADMINISTRATORS_DECIDE,
    effect: { mode: 'saga', confirm: [RECORD_FILES_UNLOCKED_SUBJECT], fail: [RECORD_FILES_UNLOCK_FAILED_SUBJECT] },
    expiresInDays: null,
    deletable: false,
    // Records passes `File modification request for "<title>"`.
    defaultTitle: () => 'File modification',
    selfHtml: (req) => `/me/requests/${req.id}`,
    contextCommunity: 'receiver',
  },
];
