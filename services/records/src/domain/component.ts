/**
 * What the records components share: their dependencies, the views they return, the state of a
 * draft write or a publication that each component's hook reads and fills in, the hooks other
 * components (review, communities) plug into the lifecycle, and the loaders of drafts and records
 * with InvenioRDM's 404/410 answers.
 *
 * When to use: a new lifecycle concern (access links, deletion, …) becomes a component with the
 * hooks it needs, called by `RecordsService` in the order written there; it never calls another
 * component's hook itself.
 */
import type { CustomFields } from './custom-fields.js';
import { Errors, type FieldError, type Identity, type Knex, type ListArgs, type MsgLogger } from '@rdm/platform';
import * as repo from '../repo/records.repo.js';
import type { LoadResult } from './validation.js';
import type { DraftRow, FrozenFiles, ItemDoc, ParentRow, RecordRow, VersionRow } from './model.js';
import type { FilesPort, SearchIndexPort, VocabulariesPort } from './ports.js';
import type { RecordAccessCtx } from './records.policy.js';

/** Configuration of the records domain. */
export interface RecordsServiceConfig {
  baseUrl: string;
  doiPrefix: string;
  oaiPrefix: string;
  siteName: string;
  /** `local` (default: DOIs registered in this database only) or `datacite` (registered at DataCite by `src/datacite/`). */
  doiProvider?: 'local' | 'datacite';
  /** Days after draft creation during which public → restricted is allowed (null: always). */
  restrictionGraceDays?: number | null;
  /**
   * InvenioRDM's `RDM_ALLOW_RESTRICTED_RECORDS` (default true). False: only administrators and the
   * system may set or change a draft's access; anyone else keeps the public default.
   */
  allowRestrictedRecords?: boolean;
  /** The configured custom fields (`RDM_CUSTOM_FIELDS`, custom-fields.ts); default none, as InvenioRDM. */
  customFields?: CustomFields;
}

/** Dependencies of the service and its components. */
export interface RecordsServiceDeps {
  db: Knex;
  files: FilesPort;
  vocabularies: VocabulariesPort;
  index: SearchIndexPort;
  config: RecordsServiceConfig;
  logger: MsgLogger;
}

/** What a read or write returns: the document (routes add links and strip per identity). */
export interface ItemView {
  kind: 'draft' | 'record';
  doc: ItemDoc;
  /** Save-time field errors (drafts). */
  errors?: FieldError[];
  /** Published-record reads: the `recordStamp` of the rows the document was built from. */
  stamp?: string;
}

/** A list of versions. */
export interface VersionsView {
  items: ItemView[];
  total: number;
  args: ListArgs;
}

/**
 * A draft being created or updated. The service loads the write form; each component's
 * `onCreate`/`onUpdate` reads `input` and writes its columns into `patch` and its save-time
 * errors into `errors` (or throws for the 400s that save nothing).
 */
export interface DraftWrite {
  identity: Identity;
  input: LoadResult;
  /** The draft being updated, its parent and permission context (absent on create). */
  draft?: DraftRow;
  parent?: ParentRow;
  ctx?: RecordAccessCtx;
  /** Whether a published record shares the draft's id (edit draft). */
  hasRecord?: boolean;
  /** The draft's files summary (update: set by the files component). */
  summary?: FrozenFiles;
  patch: Partial<VersionRow>;
  errors: FieldError[];
}

/**
 * A publication being checked: each component adds its field errors to its own list; all are
 * reported at once, in the order of the lists (the reference's order: schema, files, pids).
 */
export interface PublishCheck {
  draft: DraftRow;
  record: RecordRow | undefined;
  errors: { metadata: FieldError[]; files: FieldError[]; pids: FieldError[]; communities: FieldError[] };
}

/**
 * Hooks other components plug into the draft lifecycle (review.component.ts,
 * communities.component.ts), so the core stays unaware of requests and communities.
 */
export interface RecordsHooks {
  /** Refuse a direct publication (throw), e.g. while a review is open; also run on the locked parent. */
  beforePublish?(parent: ParentRow): void;
  /** Add field errors to a publication check (before the files are frozen). */
  checkPublish?(check: PublishCheck): Promise<void>;
  /** Refuse a draft deletion (throw); run on the locked parent inside the deletion's transaction. */
  beforeDeleteDraft?(parent: ParentRow): void;
  /** After a draft deletion committed (best effort: e.g. delete its `created` review request). */
  afterDeleteDraft?(parent: ParentRow): Promise<void>;
  /** Widen a permission context the plain rules refused (community roles of the caller). */
  accessCtx?(identity: Identity, ctx: RecordAccessCtx, parent: ParentRow): Promise<RecordAccessCtx>;
}

/** A draft with its parent; `hasRecord`: a published record shares its id (edit draft). */
export interface LoadedDraft {
  draft: DraftRow;
  parent: ParentRow;
  hasRecord: boolean;
}

/**
 * The draft `id` with its parent (one statement); 410 for a deleted record, else 404.
 *
 * With `write` (every write to a draft but its deletion): 410 as well when the published version
 * the draft stems from is deleted — an edit draft's own record, or the latest version a
 * new-version draft was copied from. Why: an administrator's deletion must hold (issue 18,
 * finding 7); such a draft, made before the deletion, would otherwise put the removed content
 * back online when saved with files or published. Reads and deleting the draft stay allowed.
 */
export async function loadDraft(db: Knex | Knex.Transaction, id: string, o: { write?: boolean } = {}): Promise<LoadedDraft> {
  const found = await repo.getDraftWithParent(db, id);
  if (found?.parent && o.write && found.sourceDeleted) throw Errors.gone();
  if (found?.parent) return { draft: found.draft, parent: found.parent, hasRecord: found.hasRecord };
  if (!found) {
    const record = await repo.getRecord(db, id);
    if (record && record.deletion_status !== 'P') throw Errors.gone();
  }
  throw Errors.pidDoesNotExist();
}

/** The published, non-deleted record `id` with its parent (404/410 as GET /api/records/<id>). */
export async function loadRecord(db: Knex | Knex.Transaction, id: string): Promise<{ record: RecordRow; parent: ParentRow }> {
  const found = await repo.getRecordWithParent(db, id);
  if (!found?.parent) {
    if (await repo.getDraft(db, id)) throw Errors.pidNotRegistered();
    throw Errors.pidDoesNotExist();
  }
  if (found.record.deletion_status !== 'P') throw Errors.gone();
  return { record: found.record, parent: found.parent };
}
