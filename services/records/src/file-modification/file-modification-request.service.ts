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
 * The type's differences from the shared flow (`record-requests/record-request.ts`): its body, the
 * files check, the grace period, the title and the slot table.
 *
 * When to use: the file-modification route and the record links (`mayRequestFileModification`).
 */
import { Errors, type Identity } from '@rdm/platform';
import {
  askFields,
  type GracePeriodDeps,
  isOwner,
  openRecordRequest,
  optionalText,
  ownPublishedRecord,
  type RecordRequestOutcome,
  type RecordRequestType,
  withinGracePeriod,
} from '../record-requests/record-request.js';
import * as fm from '../repo/file-modification-requests.repo.js';

export { withinGracePeriod };

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
export type FileModificationDeps = GracePeriodDeps;

/** Parse the optional `{comment}` (no body: none); 400 with field errors. */
export function parseFileModificationAsk(input: unknown): { comment: string } {
  if (input === undefined || input === null) return { comment: '' };
  const { body, errors } = askFields(input, ['comment']);
  const comment = optionalText(body.comment, 'comment', errors, {
    min: MIN_FILE_MODIFICATION_COMMENT,
    max: MAX_FILE_MODIFICATION_COMMENT,
  });
  if (errors.length) throw Errors.validation(errors);
  return { comment };
}

/** True when the caller owns the record (only owners may ask, as for deletion requests). */
export const mayRequestFileModification: (identity: Identity, ownerId: string | null | undefined) => boolean = isOwner;

type Target = Awaited<ReturnType<typeof ownPublishedRecord>>;

/** Owners' file-modification requests. */
export class FileModificationRequestService {
  private readonly type: RecordRequestType<{ comment: string }, Target>;

  constructor(private readonly d: FileModificationDeps) {
    this.type = {
      id: 'file-modification',
      load: ownPublishedRecord,
      parse: parseFileModificationAsk,
      check: (_ask, t) => {
        if (!t.record.files.enabled) throw Errors.badRequest('The record has no files to modify.');
      },
      immediate: (t) => withinGracePeriod(t.record.created, d.gracePeriodDays),
      immediateComment: IMMEDIATE_FILE_MODIFICATION_COMMENT,
      claim: async (trx, s) => {
        const row = { id: s.id, record_id: s.target.record.id, parent_id: s.target.parent.id, requester: s.requester };
        const claim = await fm.claimActive(trx, { ...row, immediate: s.immediate });
        return claim.claimed ? undefined : FILE_MODIFICATION_EXISTS;
      },
      setRequestId: fm.setRequestId,
      title: (t) => `File modification request for "${String(t.record.metadata?.title ?? t.record.id)}"`,
      payload: (ask) => (ask.comment ? { comment: ask.comment } : {}),
      comment: (ask) => ask.comment,
    };
  }

  /** POST /api/records/{id}/file-modification. */
  request(identity: Identity, id: string, body: unknown): Promise<RecordRequestOutcome> {
    return openRecordRequest(this.d, this.type, identity, id, body);
  }
}
