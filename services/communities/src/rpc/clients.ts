/**
 * NATS clients of the ports the communities domain uses (proto/README.md):
 * `rdm.users.rpc.get-users`, `rdm.vocabularies.rpc.resolve`, `rdm.requests.rpc.create|count-open|comment`,
 * each checked against its generated contract (callContract); the casts narrow open reply objects
 * to the fields the domain reads.
 */
import { injectTraceHeaders, type NatsHandle, callContract } from '@rdm/platform';
import { RPC_SUBJECTS } from '@rdm/contracts';
import type { ResolvedEntry } from '../domain/community-input.js';
import type {
  CreateRequestInput,
  RecordsUsagePort,
  Ref,
  RequestInfo,
  RequestsPort,
  UserInfo,
  UsersPort,
  VocabulariesPort,
} from '../domain/ports.js';

type Nc = NatsHandle['nc'];

/** UsersPort over NATS. */
export class RpcUsersClient implements UsersPort {
  constructor(
    private readonly nc: Nc,
    private readonly timeoutMs: number,
  ) {}
  async getUsers(ids: string[]): Promise<UserInfo[]> {
    if (ids.length === 0) return [];
    const r = await callContract(
      this.nc,
      RPC_SUBJECTS.users.getUsers,
      { ids },
      { timeoutMs: this.timeoutMs, headers: injectTraceHeaders() },
    );
    return (r?.users ?? []) as UserInfo[];
  }
}

/** VocabulariesPort over NATS. */
export class RpcVocabulariesClient implements VocabulariesPort {
  constructor(
    private readonly nc: Nc,
    private readonly timeoutMs: number,
  ) {}
  async resolve(items: { type: string; id: string }[]) {
    const r = await callContract(
      this.nc,
      RPC_SUBJECTS.vocabularies.resolve,
      { items },
      { timeoutMs: this.timeoutMs, headers: injectTraceHeaders() },
    );
    return (r?.items ?? []) as { type: string; id: string; found: boolean; entry?: ResolvedEntry }[];
  }
}

/** RequestsPort over NATS. */
export class RpcRequestsClient implements RequestsPort {
  constructor(
    private readonly nc: Nc,
    private readonly timeoutMs: number,
  ) {}
  async create(input: CreateRequestInput): Promise<RequestInfo> {
    const r = await callContract(this.nc, RPC_SUBJECTS.requests.create, input, {
      timeoutMs: this.timeoutMs,
      headers: injectTraceHeaders(),
    });
    return r.request as RequestInfo;
  }
  async countOpen(receiver: Ref): Promise<number> {
    const r = await callContract(
      this.nc,
      RPC_SUBJECTS.requests.countOpen,
      { receiver },
      { timeoutMs: this.timeoutMs, headers: injectTraceHeaders() },
    );
    return Number(r?.count ?? 0);
  }
  async comment(id: string, payload: { content: string; format: string }): Promise<void> {
    await callContract(
      this.nc,
      RPC_SUBJECTS.requests.comment,
      { id, identity: { sub: 'system', roles: ['system'] }, payload },
      { timeoutMs: this.timeoutMs, headers: injectTraceHeaders() },
    );
  }
}

/**
 * RecordsUsagePort over NATS, cached per community for `ttlMs` (statistics may lag by seconds; a
 * community read must not wait on records every time). While records does not answer, the last
 * known totals are served; with none, the call's 503 propagates to the caller's fallback.
 */
export class RpcRecordsUsageClient implements RecordsUsagePort {
  private readonly cache = new Map<string, { at: number; usage: { views: number; downloads: number } }>();

  constructor(
    private readonly nc: Nc,
    private readonly timeoutMs: number,
    private readonly ttlMs = 10_000,
  ) {}

  async communityUsage(communityId: string): Promise<{ views: number; downloads: number }> {
    const hit = this.cache.get(communityId);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.usage;
    try {
      const usage = await callContract(
        this.nc,
        RPC_SUBJECTS.records.communityUsage,
        { community_id: communityId },
        { timeoutMs: this.timeoutMs, headers: injectTraceHeaders() },
      );
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(communityId, { at: Date.now(), usage });
      return usage;
    } catch (err) {
      if (hit) return hit.usage;
      throw err;
    }
  }
}
