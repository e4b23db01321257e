/**
 * What the communities domain needs from other services, as ports. The RPC clients in `rpc/`
 * implement them over NATS (proto/README.md); integration tests serve tiny fake responders on
 * the same subjects.
 */
import type { ResolvedEntry } from './community-input.js';

/** A user as `rdm.users.rpc.get-users` returns it. */
export interface UserInfo {
  id: string;
  username: string | null;
  full_name: string;
  email: string;
  active: boolean;
  affiliations?: string;
}

/** Users service: look users up by id. */
export interface UsersPort {
  getUsers(ids: string[]): Promise<UserInfo[]>;
}

/** Vocabularies service: resolve entries. */
export interface VocabulariesPort {
  resolve(items: { type: string; id: string }[]): Promise<{ type: string; id: string; found: boolean; entry?: ResolvedEntry }[]>;
}

/** A one-key entity reference (`{user:"3"}`, `{community:"<uuid>"}`). */
export type Ref = Record<string, string>;

/** Input of `rdm.requests.rpc.create`. */
export interface CreateRequestInput {
  identity: { sub: string | null; roles: string[] };
  type: string;
  created_by: Ref;
  receiver: Ref;
  topic: Ref;
  title?: string;
  description?: string;
  payload?: Record<string, unknown>;
  expires_at?: string;
  comment?: { content: string; format: string };
  key?: string;
}

/** A request as the requests service returns it (only the keys communities reads are typed). */
export interface RequestInfo {
  id: string;
  status: string;
  expires_at?: string | null;
  is_open?: boolean;
  type?: string;
  [k: string]: unknown;
}

/** Records service: usage totals of a community's records (`rdm.records.rpc.community-usage`). */
export interface RecordsUsagePort {
  /** Views and downloads over every version of the community's records (may lag by seconds). */
  communityUsage(communityId: string): Promise<{ views: number; downloads: number }>;
}

/** Requests service: create requests, count open ones, comment on one as the system. */
export interface RequestsPort {
  create(input: CreateRequestInput): Promise<RequestInfo>;
  countOpen(receiver: Ref): Promise<number>;
  /** Add a comment by the system to request `id` (`rdm.requests.rpc.comment`). */
  comment(id: string, payload: { content: string; format: string }): Promise<void>;
}
