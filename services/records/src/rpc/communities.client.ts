/**
 * Client of the communities service's RPCs (proto/README.md): `get` (summaries by id or slug),
 * `roles` (a user's active memberships) and `validate-extension` (community schema extensions).
 * Roles are cached briefly per (user, ids) — they decide permissions on every draft read of a curator — and dropped when a `rdm.communities.member.*`
 * message for that user is seen on core NATS (`watchMemberships`); the TTL bounds staleness if a
 * message is missed. Summaries are never cached: the saga must see a visibility change at once.
 */
import { injectTraceHeaders, type MsgLogger, type NatsHandle } from '@rdm/platform';
import { callContract, RPC_SUBJECTS, type RpcContract, type RpcSubject } from '@rdm/platform/contracts';
import type { CommunitiesPort, CommunityOwnersPort, CommunityRole, CommunitySummary, ExtensionValidation } from '../domain/ports.js';

/** RPC subjects of the communities service. */
export const COMMUNITIES_SUBJECTS = {
  get: RPC_SUBJECTS.communities.get,
  roles: RPC_SUBJECTS.communities.roles,
  validateExtension: RPC_SUBJECTS.communities.validateExtension,
} as const;

/** Subject of the membership events that invalidate the roles cache. */
export const MEMBER_EVENTS_SUBJECT = 'rdm.communities.member.>';

/** CommunitiesPort over NATS request-reply, with a short roles cache. */
export class RpcCommunitiesClient implements CommunitiesPort, CommunityOwnersPort {
  private readonly roleCache = new Map<string, { at: number; roles: Record<string, CommunityRole> }>();

  constructor(
    private readonly nc: NatsHandle['nc'],
    private readonly timeoutMs: number,
    private readonly rolesTtlMs = 5000,
  ) {}

  private call<S extends RpcSubject>(subject: S, payload: RpcContract[S]['request']) {
    return callContract(this.nc, subject, payload, { timeoutMs: this.timeoutMs, headers: injectTraceHeaders() });
  }

  async get(idsOrSlugs: string[]): Promise<CommunitySummary[]> {
    const ids = [...new Set(idsOrSlugs.filter((x) => typeof x === 'string' && x !== ''))];
    if (ids.length === 0) return [];
    const r = await this.call(COMMUNITIES_SUBJECTS.get, { ids });
    return Array.isArray(r?.communities) ? (r.communities as CommunitySummary[]) : [];
  }

  async roles(userId: string, communityIds?: string[]): Promise<Record<string, CommunityRole>> {
    const ids = communityIds ? [...new Set(communityIds)].sort() : undefined;
    if (ids && ids.length === 0) return {};
    const key = `${userId}|${ids ? ids.join(',') : '*'}`;
    const hit = this.roleCache.get(key);
    if (hit && Date.now() - hit.at < this.rolesTtlMs) return hit.roles;
    const payload = ids ? { user_id: userId, community_ids: ids } : { user_id: userId };
    const r = await this.call(COMMUNITIES_SUBJECTS.roles, payload);
    const roles = r?.roles && typeof r.roles === 'object' ? r.roles : {};
    if (this.roleCache.size > 10_000) this.roleCache.clear();
    this.roleCache.set(key, { at: Date.now(), roles });
    return roles;
  }

  async owners(communityIds: string[]): Promise<Record<string, string[]>> {
    if (communityIds.length === 0) return {};
    return (await this.call(RPC_SUBJECTS.communities.owners, { community_ids: [...new Set(communityIds)] })).owners ?? {};
  }

  async validateExtension(schemaId: string, extension: unknown): Promise<ExtensionValidation> {
    const r: ExtensionValidation = await this.call(COMMUNITIES_SUBJECTS.validateExtension, {
      schema_id: schemaId,
      community_extension: extension,
    });
    return { valid: r?.valid === true, ...(Array.isArray(r?.errors) && r.errors.length ? { errors: r.errors } : {}) };
  }

  /** Drop cached roles of one user (or of everyone). */
  invalidate(userId?: string): void {
    if (userId === undefined) {
      this.roleCache.clear();
      return;
    }
    for (const k of this.roleCache.keys()) if (k.startsWith(`${userId}|`)) this.roleCache.delete(k);
  }

  /**
   * Subscribe (core NATS, no durable state needed) to membership events and drop the member's
   * cached roles; group members drop everything. Returns the stop function.
   */
  watchMemberships(logger: MsgLogger): () => Promise<void> {
    const sub = this.nc.subscribe(MEMBER_EVENTS_SUBJECT, {
      callback: (err, msg) => {
        if (err) return;
        try {
          const data = (msg.json() as { data?: { member_type?: string; member_id?: string } })?.data;
          if (data?.member_type === 'user' && typeof data.member_id === 'string') this.invalidate(data.member_id);
          else this.invalidate();
        } catch (e) {
          logger.debug({ err: e }, 'unreadable membership event; dropping the roles cache');
          this.invalidate();
        }
      },
    });
    return async () => {
      if (!sub.isClosed()) await sub.drain().catch(() => undefined);
    };
  }
}
