/**
 * What the records components share: their dependencies, the views they return, the state of a
 * draft write, a deletion or a publication that each component's phase reads and fills in, the
 * `RecordComponent` interface with `runComponents` (InvenioRDM's `run_components`), and the
 * loaders of drafts and records with InvenioRDM's 404/410 answers.
 *
 * When to use: a new lifecycle concern becomes a `RecordComponent` implementing the phases it
 * needs, added at its place in the ONE list of `recordComponents` (records.service.ts); it never
 * calls another component's phase itself. A feature with routes of its own is a sub-service in
 * its own folder instead (README "Where things go").
 */
import type { CustomFields } from './custom-fields.js';
import { Errors, type FieldError, type Identity, type Knex, type ListArgs, type MsgLogger } from '@rdm/platform';
import * as repo from '../repo/records.repo.js';
import type { LoadResult } from './validation.js';
import type { DraftRow, FrozenFiles, ItemDoc, ParentRow, PidValue, RecordRow, VersionRow } from './model.js';
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
  /** Whether a valid draft's files are frozen (publish) or only checked (submit-review). */
  lock: boolean;
  /** The files summary the record will carry (`lockPublish`, `afterPublishCheck`). */
  frozen: FrozenFiles;
}

/** A draft being deleted (inside the deletion's transaction, rows locked). */
export interface DraftDeletion {
  draft: DraftRow;
  parent: ParentRow;
  /** `edit`: an edit draft of a published record; `new_version`: a draft of a next version; `new`: a first draft (its parent goes too). */
  kind: 'edit' | 'new_version' | 'new';
}

/**
 * A publication being committed inside its transaction (rows locked): each component's
 * `publish` reads the draft, record and parent and adds to `pids` and `parentPatch`.
 */
export interface PublishCommit {
  draft: DraftRow;
  record: RecordRow | undefined;
  parent: ParentRow;
  isEdit: boolean;
  /** The record's pids (pids component). */
  pids: Record<string, PidValue>;
  /** What the publication changes on the parent (pids, versions state). */
  parentPatch: Partial<ParentRow>;
  /** Whether the parent's pids changed (pids component): the parent row and documents are rewritten. */
  parentChanged: boolean;
  /** An edit publishing its own copy of the files (files component): the unlock it consumed and the bucket it replaces. */
  fileModification?: { requestId: string; supersededBucketId: string };
}

/**
 * One lifecycle component of the records service (InvenioRDM's service component): it implements
 * the phases it takes part in, and `runComponents` calls a phase on every component, in the
 * order of the ONE list `recordComponents` builds (records.service.ts). Phases of one action run
 * in this order: create → `create`, then in the transaction `createLocked`; update → `update`,
 * then `updateLocked`; delete → `beforeDeleteDraft`, `deleteDraft`, after the commit
 * `afterDeleteDraft`; publish → `beforePublish`, `checkPublish`, `lockPublish`,
 * `afterPublishCheck`, then in the transaction `beforePublish` again (locked parent), `publish`,
 * `afterPublish`. `accessCtx` widens a permission context (access.component.ts).
 */
export interface RecordComponent {
  /** A short name (logs). */
  readonly name: string;
  /** Create, before the transaction: read `w.input`, write `w.patch` and `w.errors` (or throw the 400s that save nothing). */
  create?(w: DraftWrite): void | Promise<void>;
  /** Create, inside the transaction, once the draft's id is drawn. */
  createLocked?(trx: Knex.Transaction, w: DraftWrite, id: string): Promise<void>;
  /** Update, before the transaction (as `create`). */
  update?(w: DraftWrite): void | Promise<void>;
  /** Update, inside the transaction, on the locked draft. */
  updateLocked?(trx: Knex.Transaction, w: DraftWrite, locked: DraftRow): void | Promise<void>;
  /** Refuse a draft deletion (throw), on the locked rows, before anything is deleted. */
  beforeDeleteDraft?(d: DraftDeletion): void | Promise<void>;
  /** The component's rows of a deleted draft, after the draft row and its document are gone. */
  deleteDraft?(trx: Knex.Transaction, d: DraftDeletion): Promise<void>;
  /** After a draft deletion committed; best effort: a failure is logged, never answered. */
  afterDeleteDraft?(d: DraftDeletion): Promise<void>;
  /** Refuse a publication (throw), e.g. while a review is open: before the checks, and again on the locked parent. */
  beforePublish?(parent: ParentRow): void | Promise<void>;
  /** Add the component's field errors to a publication check. */
  checkPublish?(c: PublishCheck): void | Promise<void>;
  /** The last check, which may freeze (`c.lock`) what it checks when no other error was found; sets `c.frozen`. */
  lockPublish?(c: PublishCheck): Promise<void>;
  /** After every check passed (no error): freeze what else the record carries into `c.frozen`. */
  afterPublishCheck?(c: PublishCheck): Promise<void>;
  /** A publication's writes inside its transaction, before the record row is written. */
  publish?(trx: Knex.Transaction, p: PublishCommit): Promise<void> | void;
  /** A publication's writes after the record and its document are written. */
  afterPublish?(trx: Knex.Transaction, p: PublishCommit): Promise<void>;
  /** Widen a permission context the plain rules refused (community roles of the caller). */
  accessCtx?(identity: Identity, ctx: RecordAccessCtx, parent: ParentRow): Promise<RecordAccessCtx>;
}

/** The phases of a lifecycle component (every method of `RecordComponent`). */
export type Phase = Exclude<keyof RecordComponent, 'name' | 'accessCtx'>;

type PhaseArgs<K extends Phase> = Parameters<NonNullable<RecordComponent[K]>>;

/**
 * InvenioRDM's `run_components`: call `phase` on every component that implements it, in the
 * list's order, each awaited before the next.
 */
export async function runComponents<K extends Phase>(
  components: readonly RecordComponent[],
  phase: K,
  ...args: PhaseArgs<K>
): Promise<void> {
  for (const c of components) {
    const method = c[phase] as ((...a: PhaseArgs<K>) => unknown) | undefined;
    if (method) await method.apply(c, args);
  }
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
