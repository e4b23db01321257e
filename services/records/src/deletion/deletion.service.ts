/**
 * Deletion of published records by administrators, their tombstones, and restore (reference
 * §4.4: `DELETE /api/records/<id>/delete` with `{removal_reason?, note?, citation_text?,
 * is_visible?}`, every key optional as in InvenioRDM 14, `{}` included; `POST
 * /api/records/<id>/restore`).
 *
 * When to use: every takedown or restore goes through `delete` / `restore` here; every 410 of a
 * deleted record gets its body from `goneError` (the routes' tombstone middleware calls it, so
 * the read paths keep throwing the plain `Errors.gone()`).
 *
 * A deletion, in ONE transaction: the record's `deletion_status` becomes `D` (revision and
 * `updated` bumped: the read cache's stamp changes and OAI-PMH harvests it as deleted), the
 * tombstone row is written, the search document is re-indexed with the deleted status (search
 * scopes only show `P`; OAI-PMH lists it as `<header status="deleted">`), and
 * `rdm.records.record.deleted` goes to the outbox. Files stop being served because
 * `authorize-files` refuses a deleted record with 410. A restore undoes each step and writes
 * `rdm.records.record.restored`. Only this version is deleted (InvenioRDM's default policy);
 * the parent's `latest_id` is not moved.
 */
import {
  type AppError,
  checkRevision,
  Errors,
  type FieldError,
  type Identity,
  isAdmin,
  type Knex,
  withTransaction,
  writeOutbox,
} from '@rdm/platform';
import * as del from '../repo/deletion.repo.js';
import * as repo from '../repo/records.repo.js';
import { recordDoc } from '../domain/builders.js';
import type { SearchIndexPort, VocabulariesPort } from '../domain/ports.js';

/** What the component needs. */
export interface DeletionDeps {
  db: Knex;
  index: SearchIndexPort;
  vocabularies: VocabulariesPort;
}

/** A validated deletion request. */
interface DeletionInput {
  /** Id in the `removalreasons` vocabulary; absent: a tombstone without a reason (InvenioRDM 14). */
  reasonId?: string;
  note: string;
  citationText: string;
  isVisible: boolean;
}

const MAX_TEXT = 10_000;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Parse `{removal_reason?: {id} | id, note?, citation_text?, is_visible?}` (an empty or absent body
 * is `{}`); 400 with field errors. Every key is optional, as in InvenioRDM's TombstoneSchema: a
 * deletion without a reason leaves a tombstone without one; a reason that is given must be valid.
 */
export function parseDeletion(body: unknown): DeletionInput {
  if (body !== undefined && !isObj(body)) throw Errors.validation([{ field: '_schema', messages: ['Invalid input type.'] }]);
  const errors: FieldError[] = [];
  const b = body ?? {};
  const raw = b.removal_reason;
  let reasonId: string | undefined;
  if (raw === null) errors.push({ field: 'removal_reason', messages: ['Field may not be null.'] });
  else if (typeof raw === 'string') {
    if (raw.trim()) reasonId = raw.trim();
    else errors.push({ field: 'removal_reason', messages: ['Field may not be blank.'] });
  } else if (isObj(raw)) {
    if (typeof raw.id === 'string' && raw.id.trim()) reasonId = raw.id.trim();
    else errors.push({ field: 'removal_reason.id', messages: ['Missing data for required field.'] });
  } else if (raw !== undefined) errors.push({ field: 'removal_reason', messages: ['Invalid input type.'] });
  const text = (field: string): string => {
    const v = b[field];
    if (v === undefined || v === null) return '';
    if (typeof v !== 'string') errors.push({ field, messages: ['Not a valid string.'] });
    else if (v.length > MAX_TEXT) errors.push({ field, messages: [`Longer than maximum length ${MAX_TEXT}.`] });
    return typeof v === 'string' ? v : '';
  };
  const note = text('note');
  const citationText = text('citation_text');
  const vis = b.is_visible;
  if (vis !== undefined && typeof vis !== 'boolean') errors.push({ field: 'is_visible', messages: ['Not a valid boolean.'] });
  if (errors.length) throw Errors.validation(errors);
  return { ...(reasonId ? { reasonId } : {}), note, citationText, isVisible: vis === undefined ? true : (vis as boolean) };
}

/** The tombstone as the API shows it. */
export function tombstoneBody(t: del.TombstoneRow): Record<string, unknown> {
  return {
    // Why conditional: InvenioRDM's tombstone has no `removal_reason` key when none was given.
    ...(t.removal_reason ? { removal_reason: t.removal_reason } : {}),
    note: t.note,
    removed_by: t.removed_by,
    removal_date: new Date(t.removal_date).toISOString().replace('Z', '+00:00'),
    citation_text: t.citation_text,
    is_visible: t.is_visible,
    deletion_policy: { id: 'record-deletion-v1' },
  };
}

/** Administrators' deletion and restore of published records. */
export class DeletionService {
  constructor(private readonly d: DeletionDeps) {}

  /** The error a read of deleted record `id` answers: 410 with the tombstone, 404 when it is hidden. */
  async goneError(id: string): Promise<AppError> {
    const t = await del.getTombstone(this.d.db, id);
    if (!t) return Errors.gone('Record deleted');
    if (!t.is_visible) return Errors.notFound('Record not found');
    return Errors.gone('Record deleted', { tombstone: tombstoneBody(t) });
  }

  /** DELETE /api/records/{id}/delete (administrators). */
  async delete(identity: Identity, id: string, body: unknown, ifMatch?: number): Promise<void> {
    if (!isAdmin(identity)) throw Errors.permissionDenied();
    const input = parseDeletion(body);
    const reason = input.reasonId ? await this.removalReason(input.reasonId) : null;
    await withTransaction(this.d.db, async (trx) => {
      const record = await this.lockRecord(trx, id);
      if (record.deletion_status !== 'P') throw Errors.badRequest('Record is already deleted.');
      checkRevision(ifMatch, record.revision_id);
      await this.deleteLocked(trx, record, { ...input, reason, removedBy: { user: String(identity.sub) } });
    });
  }

  /**
   * An owner's accepted `record-deletion` request (events/record-deletion-requests.ts), inside the
   * consumer's transaction: the same deletion as an administrator's, `removed_by` the requester,
   * and `rdm.records.record.deleted` carrying `request_id` (the requests saga's confirmation).
   * Throws a 4xx AppError when the record cannot be deleted (unknown, already deleted).
   */
  async deleteForRequest(
    trx: Knex.Transaction,
    req: { requestId: string; recordId: string; requester: string; reasonId?: string; note: string },
  ): Promise<void> {
    const reason = req.reasonId ? await this.removalReason(req.reasonId) : null;
    const record = await this.lockRecord(trx, req.recordId);
    if (record.deletion_status !== 'P') throw Errors.badRequest('Record is already deleted.');
    await this.deleteLocked(trx, record, {
      ...(req.reasonId ? { reasonId: req.reasonId } : {}),
      note: req.note,
      citationText: '',
      isVisible: true,
      reason,
      removedBy: { user: req.requester },
      requestId: req.requestId,
    });
  }

  /** Tombstone, deleted status, re-index and `record.deleted` of a locked published record. */
  private async deleteLocked(
    trx: Knex.Transaction,
    record: { id: string; parent_id: string; bucket_id: string },
    input: DeletionInput & {
      reason: { id: string; title?: Record<string, string> } | null;
      removedBy: { user: string };
      requestId?: string;
    },
  ): Promise<void> {
    const id = record.id;
    const removalDate = new Date();
    await del.upsertTombstone(trx, {
      record_id: id,
      removal_reason: input.reason,
      note: input.note,
      citation_text: input.citationText,
      is_visible: input.isVisible,
      removed_by: input.removedBy,
      removal_date: removalDate,
    });
    const revision = await this.setStatus(trx, id, 'D', removalDate);
    await writeOutbox(trx, {
      subject: 'rdm.records.record.deleted',
      aggregate: { type: 'record', id, revision },
      data: {
        id,
        parent_id: record.parent_id,
        bucket_id: record.bucket_id,
        ...(input.reasonId ? { removal_reason: input.reasonId } : {}),
        is_visible: input.isVisible,
        ...(input.requestId ? { request_id: input.requestId } : {}),
      },
    });
  }

  /** The stored form of a removal reason (`{id, title?}`); 400 `Invalid value <id>.` when the vocabulary lacks it. */
  private async removalReason(id: string): Promise<{ id: string; title?: Record<string, string> }> {
    const [resolved] = await this.d.vocabularies.resolve([{ type: 'removalreasons', id }]);
    if (!resolved?.found) throw Errors.validation([{ field: 'removal_reason', messages: [`Invalid value ${id}.`] }]);
    const title = (resolved.entry as { title?: Record<string, string> } | undefined)?.title;
    return { id, ...(title ? { title } : {}) };
  }

  /** POST /api/records/{id}/restore (administrators): the deleted record becomes readable again. */
  async restore(identity: Identity, id: string): Promise<void> {
    if (!isAdmin(identity)) throw Errors.permissionDenied();
    await withTransaction(this.d.db, async (trx) => {
      const record = await this.lockRecord(trx, id);
      if (record.deletion_status === 'P') throw Errors.badRequest('Record is not deleted.');
      await del.deleteTombstone(trx, id);
      const revision = await this.setStatus(trx, id, 'P', new Date());
      await writeOutbox(trx, {
        subject: 'rdm.records.record.restored',
        aggregate: { type: 'record', id, revision },
        data: { id, parent_id: record.parent_id, bucket_id: record.bucket_id },
      });
    });
  }

  /** The record row locked for update; 404 as GET /api/records/<id> for unknown ids and drafts. */
  private async lockRecord(trx: Knex.Transaction, id: string) {
    const record = await repo.getRecord(trx, id, true);
    if (!record) {
      if (await repo.getDraft(trx, id)) throw Errors.pidNotRegistered();
      throw Errors.pidDoesNotExist();
    }
    return record;
  }

  /** Write the deletion status and re-index the record's document with it; returns the new revision. */
  private async setStatus(trx: Knex.Transaction, id: string, status: 'P' | 'D', updated: Date): Promise<number> {
    const revision = await repo.updateRecord(trx, id, { deletion_status: status }, updated);
    const found = await repo.getRecordWithParent(trx, id);
    if (found?.parent) await this.d.index.index(trx, { kind: 'record', row: found.record, doc: recordDoc(found.record, found.parent) });
    return revision;
  }
}
