/**
 * Every port of the records domain: the files, vocabularies, requests and communities services
 * (proto/README.md, RPC rows `rdm.<svc>.rpc.*`) and the search index. The domain depends only on
 * these interfaces: `rpc/*.client.ts` implement the services' ports over NATS, `search/` the
 * index (postgres today, OpenSearch later); unit tests substitute in-memory fakes.
 */
import type { Knex } from '@rdm/platform';
import type { CommunitySummary as ContractCommunitySummary, FilesManifestReply } from '@rdm/contracts';
import type { DraftRow, ItemDoc, RecordRow } from '../model/rows.js';

// ---------------------------------------------------------------------------------------------
// files (rdm.files.rpc.*)

/** A files-service manifest (`rdm.files.rpc.manifest` reply, generated from proto/rpc/files/manifest.json). */
export type Manifest = FilesManifestReply;
/** A file entry of a files-service manifest. */
export type ManifestEntry = Manifest['entries'][number];

/** What records needs from the files service. */
export interface FilesPort {
  /** The bucket's manifest (empty when the bucket does not exist yet). */
  manifest(bucketId: string): Promise<Manifest>;
  /**
   * Lock the bucket (idempotent) and return its manifest. `ifComplete`: lock only when it holds
   * at least one entry (any number with `allowEmpty`: media buckets) and none pending
   * (atomically); the manifest's `locked` tells.
   */
  lock(bucketId: string, opts?: { ifComplete?: boolean; allowEmpty?: boolean }): Promise<Manifest>;
  /** Link the objects of `from` into `to` (no bytes copied); returns `to`'s manifest. `allowEmpty`: an empty source is no error. */
  importFiles(fromBucketId: string, toBucketId: string, opts?: { allowEmpty?: boolean }): Promise<Manifest>;
  /** Delete a bucket and its file entries. */
  deleteBucket(bucketId: string): Promise<boolean>;
}

// ---------------------------------------------------------------------------------------------
// vocabularies (rdm.vocabularies.rpc.resolve)

/** A resolved vocabulary entry (compact form). */
export interface VocabEntry {
  id: string;
  title?: Record<string, string>;
  props?: Record<string, any>;
  tags?: string[];
  type?: string;
  [k: string]: unknown;
}

/** One resolve answer. */
export interface ResolvedItem {
  type: string;
  id: string;
  found: boolean;
  entry?: VocabEntry;
}

/** What records needs from the vocabularies service. */
export interface VocabulariesPort {
  /** Resolve references in one batch; every item gets an answer (`found: false` when unknown). */
  resolve(items: { type: string; id: string }[]): Promise<ResolvedItem[]>;
}

// ---------------------------------------------------------------------------------------------
// search index

/** What the indexer needs besides the document to write its row. */
export interface IndexedItem {
  kind: 'draft' | 'record';
  /** The draft or record row the document was built from (resource type columns, timestamps). */
  row: DraftRow | RecordRow;
  doc: ItemDoc;
}

/**
 * Writes of the search index, always inside the transaction of the change (so the writer's next
 * search sees it). The postgres engine writes `search_docs`; another engine would write after
 * commit and be repaired by the reindex command.
 */
export interface SearchIndexPort {
  /** Insert or replace the document of one draft or record. */
  index(trx: Knex.Transaction, item: IndexedItem): Promise<void>;
  /** Remove the document of one draft or record. */
  remove(trx: Knex.Transaction, id: string, kind: 'draft' | 'record'): Promise<void>;
  /** Usage counters (all versions' unique views/downloads) of a parent's records: the stats sorts. */
  setUsage?(trx: Knex.Transaction, parentId: string, views: number, downloads: number): Promise<void>;
  /** Whether a record has an edit draft (`has_draft`, for /api/user/records). */
  setHasDraft(trx: Knex.Transaction, id: string, hasDraft: boolean): Promise<void>;
  /** Recompute `is_latest`/`is_latest_draft` of these ids' documents from the parent's versions state. */
  refreshVersionFlags(
    trx: Knex.Transaction,
    ids: string[],
    state: { latest_id: string | null; next_draft_id: string | null },
  ): Promise<void>;
  /** Replace the `parent` part (and the community ids) of every document of a parent. */
  refreshParent(trx: Knex.Transaction, parentId: string, parent: ItemDoc['parent']): Promise<void>;
  /** Replace the files summary of a draft's document. */
  setDraftFiles(trx: Knex.Transaction, id: string, files: ItemDoc['files']): Promise<void>;
  /** Set `status` in the documents of a parent's drafts. */
  setDraftsStatus(trx: Knex.Transaction, parentId: string, status: string): Promise<void>;
  /** The files summary last indexed for a draft (reads while the files service is down). */
  storedDraftFiles(id: string): Promise<ItemDoc['files'] | undefined>;
}

// ---------------------------------------------------------------------------------------------
// requests (rdm.requests.rpc.*)

/** An entity reference: exactly one key (`{user}`, `{community}`, `{record}`). */
export type EntityRef = Record<string, string>;

/** The identity forwarded in RPC requests (the caller as the gateway saw it). */
export interface RpcIdentity {
  sub: string | null;
  roles: string[];
}

/** A request in the API shape, as the identity of the call sees it. */
export interface RequestView {
  id: string;
  number?: string;
  type: string;
  title?: string;
  status: string;
  is_open: boolean;
  is_closed: boolean;
  created_by: EntityRef;
  receiver: EntityRef;
  topic: EntityRef | null;
  links?: Record<string, any>;
  [key: string]: unknown;
}

/** Input of `rdm.requests.rpc.create`. */
export interface CreateRequestInput {
  identity: RpcIdentity;
  type: string;
  created_by: EntityRef;
  receiver: EntityRef;
  topic: EntityRef;
  title?: string;
  payload?: Record<string, unknown>;
  /** A first comment by `created_by` (an access request's message). */
  comment?: { content: string; format: string };
  /** Idempotency key: the same key returns the same request. */
  key?: string;
}

/** Input of `rdm.requests.rpc.action`. */
export interface RequestActionInput {
  id: string;
  action: string;
  identity: RpcIdentity;
  payload?: { content: string; format: string };
  /** `title`: the request's new title (a submission takes the draft's title). */
  data?: { require_review?: boolean; title?: string };
}

/** What records needs from the requests service. */
export interface RequestsPort {
  /** Create a request (status `created` for submissions and inclusions). */
  create(input: CreateRequestInput): Promise<RequestView>;
  /** A request as `identity` sees it (404/403 as `GET /api/requests/<id>`). */
  get(id: string, identity: RpcIdentity): Promise<RequestView>;
  /** Run an action (same checks and bounded wait as the HTTP action). */
  action(input: RequestActionInput): Promise<RequestView>;
  /** Delete a `created` request. */
  delete(id: string, identity: RpcIdentity): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// communities (rdm.communities.rpc.*)

/** Roles of community members, strongest first. */
export type CommunityRole = 'owner' | 'manager' | 'curator' | 'reader';

/** A community summary: the contract's type (`rdm.communities.rpc.get`, proto/rpc/communities/get.json). */
export type CommunitySummary = ContractCommunitySummary;

/** Answer of `rdm.communities.rpc.validate-extension`. */
export interface ExtensionValidation {
  valid: boolean;
  /** Fields read `metadata.community_extension.<slug>:<field>`. */
  errors?: { field: string; messages: string[] }[];
}

/** What records needs from the communities service. */
export interface CommunitiesPort {
  /** Summaries of the communities with these ids or slugs (unknown ones left out). */
  get(idsOrSlugs: string[]): Promise<CommunitySummary[]>;
  /** The user's active roles, in the given communities or in all of them. */
  roles(userId: string, communityIds?: string[]): Promise<Record<string, CommunityRole>>;
  /** Validate `metadata.community_extension` against schema `schemaId` (404 AppError when unknown). */
  validateExtension(schemaId: string, extension: unknown): Promise<ExtensionValidation>;
}

/** Roles that curate records of a community (accept submissions, read drafts under review). */
export const CURATOR_ROLES: readonly CommunityRole[] = ['owner', 'manager', 'curator'];

/** Owners of communities (`rdm.communities.rpc.owners`): who hears of abuse reports about their records. */
export interface CommunityOwnersPort {
  /** Community id → user ids of its active owners. */
  owners(communityIds: string[]): Promise<Record<string, string[]>>;
}

// ---------------------------------------------------------------------------------------------
// users (rdm.users.rpc.get-users)

/** What records needs from the users service: e-mail addresses of active users. */
export interface UserEmailsPort {
  /** E-mail addresses of these users (unknown, inactive or address-less users left out). */
  emails(userIds: string[]): Promise<string[]>;
}
