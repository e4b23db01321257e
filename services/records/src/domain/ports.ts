/**
 * Ports of the records domain towards the requests and communities services (proto/README.md,
 * RPC rows `rdm.requests.rpc.*` and `rdm.communities.rpc.*`). The domain depends only on these
 * interfaces: `rpc/requests.client.ts` and `rpc/communities.client.ts` implement them over NATS,
 * unit tests substitute in-memory fakes.
 */

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

/** Roles of community members, strongest first. */
export type CommunityRole = 'owner' | 'manager' | 'curator' | 'reader';

/** A community summary (`rdm.communities.rpc.get`). */
export interface CommunitySummary {
  id: string;
  slug: string;
  title: string;
  visibility: string;
  members_visibility?: string;
  member_policy?: string;
  record_submission_policy?: string;
  review_policy?: string;
  is_deleted: boolean;
}

/** What records needs from the communities service. */
export interface CommunitiesPort {
  /** Summaries of the communities with these ids or slugs (unknown ones left out). */
  get(idsOrSlugs: string[]): Promise<CommunitySummary[]>;
  /** The user's active roles, in the given communities or in all of them. */
  roles(userId: string, communityIds?: string[]): Promise<Record<string, CommunityRole>>;
}

/** Roles that curate records of a community (accept submissions, read drafts under review). */
export const CURATOR_ROLES: readonly CommunityRole[] = ['owner', 'manager', 'curator'];
