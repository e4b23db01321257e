/**
 * Administrator-only import of a record family from another repository (issue 26: the
 * migration from InvenioRDM, services/migration): RPC `rdm.records.rpc.import-record`. Unlike the
 * deposit API it keeps what the source decided: ids, version indexes, `created`/`updated`, PIDs
 * (a DOI is kept as an `external` PID, so this instance never registers or moves it: the operator
 * points the DOI here when they choose) and the owner.
 *
 * How: every version's write form goes through the same load, vocabulary resolution and stored
 * schema check as a publication (`loadWriteForm`, the metadata component, `validateStored`);
 * every error of every version is collected (field names prefixed `versions.<n>.`) and answered
 * at once as a 400, before anything is written. Then each new version's bucket (named by the
 * version's id, filled by the files service's internal import route) is locked and its manifest
 * compared with the announced files (key, checksum, size): a difference is a 400 and nothing is
 * written. Last, ONE transaction writes the parent (first import), the records, their search
 * documents and one `rdm.records.record.published` each: a record is there with all its
 * versions and files, or not at all.
 *
 * Idempotent: versions already stored are left untouched (`existing`); a rerun with nothing new
 * is `unchanged`. New versions of a known parent are appended only after its latest (409
 * otherwise: the import never rewrites history).
 *
 * When to use: only from the RPC (rpc/import-record.rpc.ts); never for deposits.
 */
import { AppError, Errors, type FieldError, type Knex, type MsgLogger, SYSTEM, withTransaction, writeOutbox } from '@rdm/platform';
import type { RecordsImportRecordReply, RecordsImportRecordRequest } from '@rdm/contracts';
import * as repo from '../repo/records.repo.js';
import { newDraft, newParent, newRecord, recordDoc, recordPublishedData } from '../domain/builders.js';
import type { DraftWrite } from '../domain/component.js';
import { fieldErrors } from '../domain/errors.js';
import type { CustomFields } from '../domain/custom-fields.js';
import type { MetadataComponent } from '../domain/metadata.component.js';
import { type FrozenFiles, type ParentRow, type PidValue, type RecordRow, summarizeManifest } from '../domain/model.js';
import type { FilesPort, SearchIndexPort } from '../domain/ports.js';
import { parentDoc } from '../domain/serializers.js';
import { loadWriteForm, validateStored } from '../domain/validation.js';
import { normaliseAccess } from '../domain/access.js';

/** Dependencies of the import. */
export interface RecordImportDeps {
  db: Knex;
  index: SearchIndexPort;
  files: FilesPort;
  metadata: MetadataComponent;
  customFields: CustomFields | undefined;
  logger: MsgLogger;
}

type ImportVersion = RecordsImportRecordRequest['versions'][number];

/** PIDs as given, a managed provider turned `external`: this instance never registers a migrated DOI. */
export function importedPids(pids: unknown): Record<string, PidValue> {
  const out: Record<string, PidValue> = {};
  if (!pids || typeof pids !== 'object') return out;
  for (const [scheme, v] of Object.entries(pids as Record<string, Record<string, unknown>>)) {
    if (!v || typeof v.identifier !== 'string' || v.identifier === '') continue;
    out[scheme] = { identifier: v.identifier, provider: 'external' };
  }
  return out;
}

/** Prefix the field of every error with the version it belongs to. */
function inVersion(n: number, errors: FieldError[]): FieldError[] {
  return errors.map((e) => ({ ...e, field: `versions.${n}.${e.field}` }));
}

/** The import of record families (RPC `rdm.records.rpc.import-record`). */
export class RecordImportService {
  constructor(private readonly d: RecordImportDeps) {}

  /** Import one parent with its versions (see the file header). */
  async importRecord(req: RecordsImportRecordRequest): Promise<RecordsImportRecordReply> {
    const versions = [...req.versions].sort((a, b) => a.index - b.index);
    const seen = new Set<string>();
    for (const v of versions) {
      if (seen.has(v.id) || v.id === req.parent.id) throw Errors.validation([{ field: 'versions', messages: [`Duplicate id ${v.id}.`] }]);
      seen.add(v.id);
    }
    const parent = await repo.getParent(this.d.db, req.parent.id);
    const existing: string[] = [];
    const fresh: ImportVersion[] = [];
    for (const v of versions) {
      const rec = await repo.getRecord(this.d.db, v.id);
      if (rec && rec.parent_id !== req.parent.id) {
        throw new AppError('conflict', 409, `Record ${v.id} exists with another parent (${rec.parent_id}).`);
      }
      if (rec) existing.push(v.id);
      else if ((await repo.getDraft(this.d.db, v.id)) || (await repo.getParent(this.d.db, v.id))) {
        throw new AppError('conflict', 409, `Id ${v.id} is already used by a draft or parent here.`);
      } else fresh.push(v);
    }
    if (fresh.length === 0) return { parent_id: req.parent.id, status: 'unchanged', created: [], existing };
    if (parent && fresh[0]!.index <= parent.latest_index) {
      throw new AppError('conflict', 409, `Version ${fresh[0]!.id} (index ${fresh[0]!.index}) is not after the latest stored version.`);
    }
    if (!parent && (await repo.getRecord(this.d.db, req.parent.id))) {
      throw new AppError('conflict', 409, `Id ${req.parent.id} is already used by a record here.`);
    }

    // 1. Every version checked, every error at once.
    const built: { v: ImportVersion; row: RecordRow }[] = [];
    const errors: FieldError[] = [];
    for (const v of fresh) {
      const n = versions.indexOf(v);
      const { row, errors: e } = await this.build(req.parent.id, v);
      errors.push(...inVersion(n, e));
      built.push({ v, row });
    }
    if (errors.length) throw Errors.validation(errors);
    if (req.dry_run) return { parent_id: req.parent.id, status: 'valid', created: fresh.map((v) => v.id), existing };

    // 2. The files: each new version's bucket locked, its manifest the announced files.
    for (const b of built) {
      const frozen = await this.freezeFiles(b.v, versions.indexOf(b.v));
      b.row.files = { ...b.row.files, ...frozen };
    }

    // 3. One transaction.
    const created = await withTransaction(this.d.db, async (trx) => {
      let p = await repo.getParent(trx, req.parent.id, true);
      const last = built[built.length - 1]!.row;
      if (!p) {
        p = {
          ...newParent(req.parent.id, req.parent.owner_id ?? null, last.id, new Date(req.parent.created)),
          next_draft_id: null,
          pids: importedPids(req.parent.pids),
        };
        if (req.parent.access_settings)
          p.access = { ...p.access, settings: { ...p.access.settings, ...req.parent.access_settings } as ParentRow['access']['settings'] };
        await repo.insertParent(trx, { ...p, latest_id: last.id, latest_index: last.index, next_draft_id: null });
      } else {
        if (built[0]!.row.index <= p.latest_index) throw new AppError('conflict', 409, 'A newer version was stored meanwhile.');
        await repo.updateParent(trx, p.id, { latest_id: last.id, latest_index: last.index });
      }
      const stored: ParentRow = { ...p, latest_id: last.id, latest_index: last.index };
      const previousLatest = parent?.latest_id;
      for (const { row } of built) {
        await repo.insertRecord(trx, row);
        await this.d.index.index(trx, { kind: 'record', row, doc: recordDoc(row, stored) });
        await writeOutbox(trx, {
          subject: 'rdm.records.record.published',
          aggregate: { type: 'record', id: row.id, revision: row.revision_id },
          data: recordPublishedData(row, stored),
        });
      }
      // The former latest version is no longer the latest: its documents follow the parent.
      if (previousLatest) await this.d.index.refreshParent(trx, stored.id, parentDoc(stored));
      return built.map((b) => b.row.id);
    });
    return { parent_id: req.parent.id, status: parent ? 'updated' : 'created', created, existing };
  }

  /** The record row of one version, with its schema errors (nothing written). */
  private async build(parentId: string, v: ImportVersion): Promise<{ row: RecordRow; errors: FieldError[] }> {
    const body = v.record as Record<string, any>;
    const input = loadWriteForm(body, this.d.customFields);
    if (input.hardErrors.length) return { row: undefined as unknown as RecordRow, errors: input.hardErrors };
    const w: DraftWrite = { identity: SYSTEM, input, patch: {}, errors: [] };
    await this.d.metadata.create(w);
    w.patch.access = normaliseAccess(input.data.access as Record<string, any> | undefined);
    const created = new Date(v.created);
    const draft = newDraft(v.id, parentId, w.patch, (body.files as { enabled?: boolean } | undefined)?.enabled, created);
    draft.index = v.index;
    draft.pids = importedPids(body.pids);
    // The write form and the stored check may both name a field: each message once.
    const errors = fieldErrors.merge(w.errors, validateStored(draft, this.d.customFields));
    const empty: FrozenFiles = { count: 0, total_bytes: 0, entries: {} };
    const row = newRecord(draft, empty, draft.pids, created);
    row.updated = new Date(v.updated);
    const preview = (body.files as { default_preview?: unknown } | undefined)?.default_preview;
    if (typeof preview === 'string') row.files = { ...row.files, default_preview: preview };
    if (draft.files.enabled && v.files.length === 0)
      errors.push({
        field: 'files.enabled',
        messages: ['Missing uploaded files. To disable files for this record please mark it as metadata-only.'],
      });
    return { row, errors };
  }

  /** Lock the version's bucket and check its manifest against the announced files; the frozen summary. */
  private async freezeFiles(v: ImportVersion, n: number): Promise<Pick<FrozenFiles, 'count' | 'total_bytes' | 'entries'>> {
    if (v.files.length === 0) return { count: 0, total_bytes: 0, entries: {} };
    const manifest = await this.d.files.manifest(v.id);
    const problems: string[] = [];
    const byKey = new Map(manifest.entries.map((e) => [e.key, e]));
    for (const f of v.files) {
      const e = byKey.get(f.key);
      if (!e || e.status !== 'completed') problems.push(`${f.key}: not imported`);
      else if (e.checksum !== f.checksum || e.size !== f.size)
        problems.push(`${f.key}: ${e.checksum}/${e.size} instead of ${f.checksum}/${f.size}`);
      byKey.delete(f.key);
    }
    for (const k of byKey.keys()) problems.push(`${k}: not announced`);
    if (problems.length) throw Errors.validation([{ field: `versions.${n}.files`, messages: problems }]);
    const locked = await this.d.files.lock(v.id);
    return summarizeManifest(locked);
  }
}
