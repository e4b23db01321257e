/**
 * The versions component: the versions state of a parent (`latest_id`, `latest_index`,
 * `next_draft_id`) and the version flags of its search documents, the next-version draft, and the
 * versions reads (`GET …/versions`, `…/versions/latest`). Publishing the n-th version reads and
 * updates one parent row and indexed rows only (test `versions.scaling` counts statements).
 *
 * When to use: a lifecycle component (`publish`, `afterPublish`, `deleteDraft`, inside the
 * service's transaction); the
 * versions operations it delegates.
 */
import { Errors, type Identity, isAppError, type Knex, type MsgLogger, parseListArgs, withTransaction, writeOutbox } from '@rdm/platform';
import * as repo from '../repo/records.repo.js';
import { type AccessComponent, ctxOf } from './access.component.js';
import { draftDoc, newVersionDraft, recordDoc } from './builders.js';
import type { DraftDeletion, ItemView, PublishCommit, RecordComponent, VersionsView } from './component.js';
import type { FilesComponent } from './files.component.js';
import { newId } from './ids.js';
import type { DraftRow, ParentRow } from './model.js';
import type { SearchIndexPort } from './ports.js';
import type { RecordAccessCtx } from './records.policy.js';

/**
 * Sorts of `GET …/versions`. InvenioRDM (since v12) validates `sort` against every record sort
 * option (RDM_SORT_OPTIONS), not only the versions default `version`, and clients send others
 * (inveniordm-py: `sort=newest`). Relevance and the stats sorts keep the version order (the list
 * has no query ranking; the versions of one record share the all-versions stats).
 */
const VERSIONS_ORDER: Readonly<Record<string, repo.VersionsOrder>> = {
  version: { column: 'index', dir: 'desc' },
  bestmatch: { column: 'index', dir: 'desc' },
  newest: { column: 'created', dir: 'desc' },
  oldest: { column: 'created', dir: 'asc' },
  'updated-desc': { column: 'updated', dir: 'desc' },
  'updated-asc': { column: 'updated', dir: 'asc' },
  mostviewed: { column: 'index', dir: 'desc' },
  mostdownloaded: { column: 'index', dir: 'desc' },
};

/** Dependencies of the versions component. */
export interface VersionsDeps {
  db: Knex;
  index: SearchIndexPort;
  access: AccessComponent;
  files: FilesComponent;
  logger: MsgLogger;
}

/** Allocate `n` distinct unused ids (ids of parents, drafts and records share one space). */
export async function newUniqueIds(db: Knex | Knex.Transaction, n: number): Promise<string[]> {
  for (let i = 0; i < 20; i++) {
    const ids = [...new Set(Array.from({ length: n }, newId))];
    if (ids.length === n && (await repo.idsInUse(db, ids)).size === 0) return ids;
  }
  throw Errors.internal('Could not allocate an identifier.');
}

/** Versions of a parent. */
export class VersionsComponent implements RecordComponent {
  readonly name = 'versions';

  constructor(private readonly d: VersionsDeps) {}

  /** Publish (locked parent): the parent's versions state after publishing `id` (unchanged for an edit). */
  publish(_trx: Knex.Transaction, p: PublishCommit): void {
    if (!p.isEdit) Object.assign(p.parentPatch, { latest_id: p.draft.id, latest_index: p.draft.index, next_draft_id: null });
  }

  /** Publish, once the documents are written: the previous latest version is not the latest any more. */
  async afterPublish(trx: Knex.Transaction, p: PublishCommit): Promise<void> {
    const previous = p.parent;
    if (!p.isEdit && previous.latest_id)
      await this.d.index.refreshVersionFlags(trx, [previous.latest_id], { latest_id: p.draft.id, next_draft_id: null });
  }

  /** Delete a new-version draft (locked parent): the parent has no next draft any more. */
  async deleteDraft(trx: Knex.Transaction, d: DraftDeletion): Promise<void> {
    const parent = d.parent;
    if (d.kind !== 'new_version' || !parent.latest_id) return;
    await repo.updateParent(trx, parent.id, { next_draft_id: null });
    await this.d.index.refreshVersionFlags(trx, [parent.latest_id], { latest_id: parent.latest_id, next_draft_id: null });
  }

  /**
   * POST /api/records/{id}/versions: the next-version draft (an existing one is returned).
   *
   * Deletion holds (issue 18, finding 7): 410 when `id` is deleted, and when the latest version
   * — the one a new version copies — is: a new version of removed content would put it back
   * online at its publication. Only an administrator's restore lifts it.
   */
  async newVersion(identity: Identity, id: string): Promise<ItemView> {
    const record = await repo.getRecord(this.d.db, id);
    if (!record) {
      if (await repo.getDraft(this.d.db, id)) throw Errors.pidNotRegistered();
      throw Errors.pidDoesNotExist();
    }
    if (record.deletion_status !== 'P') throw Errors.gone();
    const parent = (await repo.getParent(this.d.db, record.parent_id))!;
    await this.d.access.require('new_version', identity, ctxOf(record, parent), parent);
    const created = await withTransaction(this.d.db, async (trx) => {
      const locked = (await repo.getParent(trx, record.parent_id, true))!;
      // Locked as the deletion locks it: a racing deletion is seen here or waits for this draft.
      const latest = (await repo.getRecord(trx, locked.latest_id ?? id, true))!;
      if (latest.deletion_status !== 'P') throw Errors.gone();
      if (locked.next_draft_id) {
        const existing = await repo.getDraft(trx, locked.next_draft_id);
        if (existing) return { existing };
      }
      const [draftId] = await newUniqueIds(trx, 1);
      const draft = newVersionDraft(draftId, latest, locked, new Date());
      await repo.insertDraft(trx, draft);
      await repo.updateParent(trx, locked.id, { next_draft_id: draftId });
      const doc = draftDoc(draft, { ...locked, next_draft_id: draftId }, false);
      await this.d.index.index(trx, { kind: 'draft', row: draft, doc });
      await this.d.index.refreshVersionFlags(trx, [locked.latest_id ?? id], { latest_id: locked.latest_id, next_draft_id: draftId });
      await writeOutbox(trx, {
        subject: 'rdm.records.draft.created',
        aggregate: { type: 'draft', id: draftId, revision: 1 },
        data: { id: draftId, parent_id: locked.id, owner: locked.owner_id },
      });
      return { view: { kind: 'draft' as const, doc } };
    });
    if (created.view) return created.view;
    return this.existingDraft(created.existing!);
  }

  private async existingDraft(existing: DraftRow): Promise<ItemView> {
    const parent = (await repo.getParent(this.d.db, existing.parent_id))!;
    const hasRecord = !!(await repo.getRecord(this.d.db, existing.id));
    const { summary } = await this.d.files.summaryOf(existing, hasRecord);
    return { kind: 'draft', doc: draftDoc(existing, parent, hasRecord, summary) };
  }

  /** GET /api/records/{id}/versions: published versions of the parent, newest first. */
  async list(identity: Identity, id: string, query: Record<string, string | string[] | undefined>): Promise<VersionsView> {
    // No maximum size, the page cut at the 10000 window (InvenioRDM's pagination, as in search).
    const args = parseListArgs(query, {
      sorts: Object.keys(VERSIONS_ORDER),
      defaultSort: 'version',
      defaultSortWithQ: 'version',
      maxSize: Number.MAX_SAFE_INTEGER,
    });
    const { parent, ctx: plain, unpublished } = await this.contextOf(id);
    // Why: an unpublished draft's (empty) versions list must not tell strangers the draft exists;
    // those who may not preview it get the answer of an unknown id (issue 10, defect 8).
    if (unpublished) {
      try {
        await this.d.access.require('read_draft', identity, plain, parent);
      } catch (err) {
        if (isAppError(err) && err.status === 403) throw Errors.pidDoesNotExist();
        throw err;
      }
    }
    // The widening check: members of the record's communities may read it, so its versions too.
    const ctx = await this.d.access.require('read', identity, plain, parent);
    const seeRestricted = this.d.access.can('read', identity, { ...ctx, accessRecord: 'restricted' });
    const { rows, total } = await repo.listVersions(this.d.db, parent.id, {
      publicOnly: !seeRestricted,
      limit: Math.max(0, Math.min(args.size, 10_000 - args.from)),
      offset: args.from,
      order: VERSIONS_ORDER[args.sort],
    });
    return { items: rows.map((r) => ({ kind: 'record' as const, doc: recordDoc(r, parent) })), total, args };
  }

  /** The parent of a record, draft or parent id and the permission context of its versions list. */
  private async contextOf(id: string): Promise<{ parent: ParentRow; ctx: RecordAccessCtx; unpublished?: boolean }> {
    const record = await repo.getRecord(this.d.db, id);
    if (record) {
      const parent = (await repo.getParent(this.d.db, record.parent_id))!;
      if (record.deletion_status !== 'P') throw Errors.gone();
      return { parent, ctx: ctxOf(record, parent) };
    }
    const draft = await repo.getDraft(this.d.db, id);
    if (draft) {
      const parent = await repo.getParent(this.d.db, draft.parent_id);
      if (parent) return { parent, ctx: ctxOf(draft, parent), unpublished: !parent.latest_id };
    } else {
      const parent = await repo.getParent(this.d.db, id);
      const latest = parent?.latest_id ? await repo.getRecord(this.d.db, parent.latest_id) : undefined;
      if (parent && latest) return { parent, ctx: ctxOf(latest, parent) };
    }
    throw Errors.pidDoesNotExist();
  }

  /** GET /api/records/{id}/versions/latest: the latest published version (id may be the parent's). */
  async latest(identity: Identity, id: string): Promise<ItemView> {
    const record = await repo.getRecord(this.d.db, id);
    const parent = record ? await repo.getParent(this.d.db, record.parent_id) : await repo.getParent(this.d.db, id);
    if (!record && !parent) {
      if (await repo.getDraft(this.d.db, id)) throw Errors.pidNotRegistered();
      throw Errors.pidDoesNotExist();
    }
    if (!parent?.latest_id) throw Errors.pidNotRegistered();
    const latest = await repo.getRecord(this.d.db, parent.latest_id);
    if (!latest) throw Errors.pidDoesNotExist();
    if (latest.deletion_status !== 'P') throw Errors.gone();
    await this.d.access.require('read', identity, ctxOf(latest, parent), parent);
    return { kind: 'record', doc: recordDoc(latest, parent) };
  }
}
