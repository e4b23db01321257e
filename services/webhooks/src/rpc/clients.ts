/**
 * Clients of the ports the webhooks domain uses: communities' `rdm.communities.rpc.roles` and
 * users' `rdm.users.rpc.get-users` over NATS (callContract), and records' `GET /api/records/<id>` over HTTP with an identity header
 * signed for the subscriber (the records service applies its own read policy, so a payload never
 * carries what the subscriber could not read through the API).
 */
import { randomUUID } from 'node:crypto';
import { RPC_SUBJECTS } from '@rdm/contracts';
import { callContract, IDENTITY_HEADER, type Identity, injectTraceHeaders, type NatsHandle, signIdentity } from '@rdm/platform';
import type { CommunityRolesPort, RecordReaderPort, UserNow, UsersPort } from '../domain/ports.js';

/** UsersPort over NATS (users' get-users). */
export class RpcUsers implements UsersPort {
  constructor(
    private readonly nc: NatsHandle['nc'],
    private readonly timeoutMs: number,
  ) {}
  async current(userIds: string[]): Promise<Map<string, UserNow>> {
    const out = new Map<string, UserNow>();
    if (userIds.length === 0) return out;
    const ids = [...new Set(userIds)];
    // Why chunks: the contract takes at most 1,000 ids a call.
    for (let i = 0; i < ids.length; i += 1000) {
      const r = await callContract(
        this.nc,
        RPC_SUBJECTS.users.getUsers,
        { ids: ids.slice(i, i + 1000) },
        { timeoutMs: this.timeoutMs, headers: injectTraceHeaders() },
      );
      for (const u of r.users) out.set(u.id, { active: u.active !== false, roles: u.roles ?? [] });
    }
    return out;
  }
}

/** CommunityRolesPort over NATS. */
export class RpcCommunityRoles implements CommunityRolesPort {
  constructor(
    private readonly nc: NatsHandle['nc'],
    private readonly timeoutMs: number,
  ) {}
  async roles(userId: string, communityIds: string[]): Promise<Record<string, string>> {
    const r = await callContract(
      this.nc,
      RPC_SUBJECTS.communities.roles,
      { user_id: userId, community_ids: communityIds },
      { timeoutMs: this.timeoutMs, headers: injectTraceHeaders() },
    );
    return (r?.roles ?? {}) as Record<string, string>;
  }
}

/** RecordReaderPort over records' HTTP read route (never through the gateway: no rate limit, no client IP). */
export class HttpRecordReader implements RecordReaderPort {
  constructor(
    private readonly baseUrl: string,
    private readonly identitySecret: string,
    private readonly timeoutMs: number,
  ) {}
  async read(identity: Identity, recordId: string): Promise<Record<string, unknown> | null> {
    const target = `/api/records/${encodeURIComponent(recordId)}`;
    const requestId = randomUUID();
    const header = signIdentity({ sub: identity.sub, roles: identity.roles }, this.identitySecret, { method: 'GET', target, requestId });
    const res = await fetch(this.baseUrl + target, {
      headers: { [IDENTITY_HEADER]: header, 'x-request-id': requestId, accept: 'application/json' },
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    if (res.status === 200) return (await res.json()) as Record<string, unknown>;
    await res.body?.cancel();
    if (res.status >= 500) throw new Error(`records answered ${res.status}`);
    return null;
  }
}
