/**
 * Permission policy of records and drafts (InvenioRDM's `RDMRecordPermissionPolicy`, reference §1.5).
 *
 * Levels, each including the previous: manage (owner, `manage` grants, curators of the record's
 * communities) → curate (+ `edit` grants / edit secret links) → review (+ curators of the
 * community of the draft's open review) → preview (+ `preview` grants/links) → view (+ `view`
 * grants/links, members of the record's communities). Community roles are in the context only
 * when the service asked the communities service (records.service `requireWith`). Administrators
 * and the system identity pass everything (definePolicy). The service loads a `RecordAccessCtx`
 * (owner, protection, grants, link permissions) and asks; the policy never loads data.
 * Grants and secret links are read from the context so the access-links issue only has to fill
 * `grants`/`linkPermissions`.
 */
import { anyUser, authenticatedUser, definePolicy, type Generator, type Identity, ifThen, owner } from '@rdm/platform';

/** Permission levels of grants and secret links. */
export type AccessLevel = 'view' | 'preview' | 'edit' | 'manage';

/** A user or role grant on a record's parent. */
export interface AccessGrant {
  subject: { type: 'user' | 'role' | 'system_role'; id: string };
  permission: AccessLevel;
}

/** What the policy needs to know about a record or draft. */
export interface RecordAccessCtx {
  ownerId: string | null;
  accessRecord: 'public' | 'restricted';
  accessFiles: 'public' | 'restricted';
  /** Grants of the parent (later issue). */
  grants?: AccessGrant[];
  /** Levels granted by a verified secret-link token presented with the request. */
  linkPermissions?: AccessLevel[];
  /** The record's parent: matches the secret links resolved into a `LinkIdentity`. */
  parentId?: string;
  /** Communities of the record's parent (`parent.communities.ids`). */
  communityIds?: string[];
  /** Receiver community of the draft's open (submitted) review request. */
  reviewCommunityId?: string | null;
  /** The caller's roles in the communities above (filled only when the plain rules refuse). */
  communityRoles?: Record<string, string>;
}

const RANK: Record<AccessLevel, number> = { view: 1, preview: 2, edit: 3, manage: 4 };

/** Grants of at least `level` given to this user (or one of their roles). */
const grant =
  (level: AccessLevel): Generator<RecordAccessCtx> =>
  (i, ctx) =>
    (ctx?.grants ?? []).some(
      (g) =>
        RANK[g.permission] >= RANK[level] &&
        ((g.subject.type === 'user' && i.sub !== null && g.subject.id === i.sub) ||
          (g.subject.type === 'role' && i.roles.includes(g.subject.id))),
    );

/** A live secret link resolved from the request's token (domain/link-token.ts `withLinkToken`). */
export interface LinkGrant {
  parentId: string;
  permission: AccessLevel;
}

/** An identity that presented a secret-link token: the links it resolved to. */
export type LinkIdentity = Identity & { links?: LinkGrant[] };

/** A secret link of at least `level` presented with the request (in the context or resolved into the identity). */
const link =
  (level: AccessLevel): Generator<RecordAccessCtx> =>
  (i, ctx) =>
    (ctx?.linkPermissions ?? []).some((p) => RANK[p] >= RANK[level]) ||
    (!!ctx?.parentId && ((i as LinkIdentity).links ?? []).some((l) => l.parentId === ctx.parentId && RANK[l.permission] >= RANK[level]));

const recordOwner: Generator<RecordAccessCtx> = owner<RecordAccessCtx>((c) => c?.ownerId);

const CURATING = ['owner', 'manager', 'curator'];

/** Curators (and managers, owners) of one of the record's communities. */
const communityCurators: Generator<RecordAccessCtx> = (_i, ctx) =>
  (ctx?.communityIds ?? []).some((c) => CURATING.includes(ctx?.communityRoles?.[c] ?? ''));

/** Curators (and managers, owners) of the community the draft's open review was submitted to. */
const reviewCurators: Generator<RecordAccessCtx> = (_i, ctx) =>
  !!ctx?.reviewCommunityId && CURATING.includes(ctx?.communityRoles?.[ctx.reviewCommunityId] ?? '');

/** Any member of one of the record's communities (view level: restricted records). */
const communityMembers: Generator<RecordAccessCtx> = (_i, ctx) => (ctx?.communityIds ?? []).some((c) => !!ctx?.communityRoles?.[c]);

const manage: Generator<RecordAccessCtx>[] = [recordOwner, grant('manage'), communityCurators];
const curate: Generator<RecordAccessCtx>[] = [...manage, grant('edit'), link('edit')];
const review: Generator<RecordAccessCtx>[] = [...curate, reviewCurators];
const preview: Generator<RecordAccessCtx>[] = [...review, grant('preview'), link('preview')];
const view: Generator<RecordAccessCtx>[] = [...preview, grant('view'), link('view'), communityMembers];

const isPublic = (c: RecordAccessCtx) => c?.accessRecord === 'public';
const filesPublic = (c: RecordAccessCtx) => c?.accessRecord === 'public' && c?.accessFiles === 'public';

/** Actions of records and drafts. */
export type RecordAction =
  | 'create'
  | 'search_drafts'
  | 'read'
  | 'read_files'
  | 'read_draft'
  | 'update_draft'
  | 'publish'
  | 'edit'
  | 'delete_draft'
  | 'new_version'
  | 'manage'
  | 'manage_record_access'
  | 'manage_files'
  | 'pid_manage'
  | 'import_files';

/** The records policy. */
export const recordsPolicy = definePolicy<RecordAction, RecordAccessCtx>({
  create: [authenticatedUser],
  search_drafts: [authenticatedUser],
  read: [ifThen<RecordAccessCtx>(isPublic, [anyUser], view)],
  read_files: [ifThen<RecordAccessCtx>(filesPublic, [anyUser], view)],
  read_draft: preview,
  update_draft: review,
  publish: review,
  edit: curate,
  delete_draft: curate,
  new_version: curate,
  manage,
  manage_record_access: review,
  manage_files: review,
  pid_manage: review,
  import_files: review,
});

/** Shorthand: may `identity` perform `action` on a record with this context? */
export function can(action: RecordAction, identity: Identity, ctx: RecordAccessCtx): boolean {
  return recordsPolicy.can(action, identity, ctx);
}
