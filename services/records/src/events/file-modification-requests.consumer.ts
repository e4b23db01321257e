/**
 * Consumers of owners' `file-modification` requests, each a durable `runConsumer` with the inbox:
 *
 * - `records-file-modification-requests` (stream REQUESTS, `rdm.requests.request.*`): an accepted
 *   request unlocks its record's files (records' slot `open` → `unlocked`,
 *   `rdm.records.record.files-unlocked` with `request_id`, which confirms the requests saga); a
 *   record that cannot be unlocked (unknown, deleted, not the request's) yields
 *   `rdm.records.record.files-unlock-failed` (the request goes back to `submitted`). Declined,
 *   cancelled, expired and deleted requests close records' slot, so the owner may ask again.
 * - `records-file-modification-mailer` (stream REQUESTS and RECORDS): e-mails the site's
 *   moderation address (`ABUSE_EMAIL_TO`) of a request that waits for an administrator
 *   (`created`, not immediate), the owner of a declined one, and the owner once the files were
 *   unlocked (`files-unlocked`). `created` is published while records' ask has not committed its
 *   row yet: an event whose row is missing is retried with back-off.
 * Mail delivery as the other mailers: an SMTP failure rolls the transaction back and the message
 * is redelivered with growing delays; `mailed_at` and the inbox rows send nothing twice. The
 * workers are the shared ones of `record-requests/record-request-workers.ts`; this file is the
 * type's definition (its effect, its slot table, its mails).
 *
 * When to use: records' workers (bootstrap.ts).
 */
import { type EventEnvelope, type Knex, writeOutbox } from '@rdm/platform';
import { fileModificationOutcomeMail, fileModificationRequestedMail } from '../file-modification/file-modification-mail.js';
import * as rr from '../record-requests/record-request-workers.js';
import * as fm from '../repo/file-modification-requests.repo.js';
import { getRecord } from '../repo/records.repo.js';
import type { RequestEventData } from './review-saga.js';

const TYPE = 'file-modification';

/** What the workers need. */
export type FileModificationWorkersOptions = rr.RecordRequestWorkersOptions;

/** Unlock the files of an accepted request's record (or yield `files-unlock-failed`). */
async function acceptFileModification(trx: Knex.Transaction, e: EventEnvelope<RequestEventData>): Promise<void> {
  const r = e.data;
  const recordId = r.topic?.record;
  const slot = await fm.byRequestId(trx, r.id, true);
  const record = recordId ? await getRecord(trx, recordId, true) : undefined;
  const fail = async (message: string) => {
    if (slot?.state === 'open') await fm.setState(trx, r.id, 'failed', ['open']);
    await writeOutbox(trx, {
      subject: 'rdm.records.record.files-unlock-failed',
      aggregate: { type: 'record', id: recordId ?? r.id, revision: record?.revision_id ?? 0 },
      data: { request_id: r.id, record_id: recordId ?? 'unknown', message },
    });
  };
  if (!recordId || !slot || slot.record_id !== recordId || !record) {
    await fail('This file modification request is not one records can apply.');
    return;
  }
  if (record.deletion_status !== 'P') {
    await fail('The record has been deleted.');
    return;
  }
  // A redelivered accept (already unlocked, or consumed since) confirms again, changing nothing.
  if (slot.state === 'open') await fm.setState(trx, r.id, 'unlocked', ['open']);
  else if (slot.state !== 'unlocked' && slot.state !== 'consumed') {
    await fail(`The request is ${slot.state} on the record's side.`);
    return;
  }
  await writeOutbox(trx, {
    subject: 'rdm.records.record.files-unlocked',
    aggregate: { type: 'record', id: recordId, revision: record.revision_id },
    data: { request_id: r.id, record_id: recordId, parent_id: record.parent_id },
  });
}

const closeSlot = async (trx: Knex.Transaction, requestId: string, outcome: 'declined' | 'cancelled') => {
  await fm.setState(trx, requestId, outcome, ['open']);
};

/** Apply one request event to records (inside the consumer's transaction). */
export function onFileModificationRequestEvent(trx: Knex.Transaction, e: EventEnvelope<RequestEventData>): Promise<void> {
  return rr.onRecordRequestEvent(trx, e, { type: TYPE, close: closeSlot, accept: acceptFileModification });
}

/** The three background workers (for runService). */
export function fileModificationWorkers(o: FileModificationWorkersOptions) {
  return rr.recordRequestWorkers(o, {
    type: TYPE,
    durables: rr.recordRequestDurables('file-modification'),
    close: closeSlot,
    accept: acceptFileModification,
    facts: rr.slotFacts(fm.byRequestId, 'file modification request'),
    requestedMail: (base, p) => fileModificationRequestedMail({ ...base, comment: typeof p.comment === 'string' ? p.comment : '' }),
    declinedMail: (base) => fileModificationOutcomeMail({ ...base, outcome: 'declined' }),
    markMailed: fm.markMailed,
    outcome: {
      stream: 'RECORDS',
      filterSubject: 'rdm.records.record.files-unlocked',
      handler: rr.slotOutcomeHandler(o, fm, (base) => fileModificationOutcomeMail({ ...base, outcome: 'unlocked' })),
    },
  } satisfies rr.RecordRequestWorkersDef);
}
