/**
 * Client of the communities service's RPCs (proto/README.md): `get` (summaries by id or slug),
 * `roles` (a user's active memberships) and `validate-extension` (community schema extensions).
 *
 * Nothing is cached. Roles decide permissions (members read restricted records, curators read
 * drafts under review), so a cached copy would outlive a membership's removal: membership events
 * arrive after the change is committed (outbox relay, core NATS, at most once), on each replica at
 * its own moment, so no invalidation scheme makes the next read after a change see it. Asking
 * costs one request-reply, and only callers the plain rules refused ever ask (access.component).
 * Summaries are not cached either: the saga must see a visibility change at once.
 */
import { injectTraceHeaders, type NatsHandle, callContract } from '@rdm/platform';
import { RPC_SUBJECTS, type RpcContract, type RpcSubject } from '@rdm/contracts';
import type { CommunitiesPort, CommunityOwnersPort, CommunityRole, CommunitySummary, ExtensionValidation } from '../domain/ports.js';

/** RPC subjects of the communities service. */
export const COMMUNITIES_SUBJECTS = {
  get: RPC_SUBJECTS.communities.get,
  roles: RPC_SUBJECTS.communities.roles,
  validateExtension: RPC_SUBJECTS.communities.validateExtension,
} as const;

/** CommunitiesPort over NATS request-reply. */
export class RpcCommunitiesClient implements CommunitiesPort, CommunityOwnersPort {
  constructor(
    private readonly nc: NatsHandle['nc'],
    private readonly timeoutMs: number,
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
    const payload = ids ? { user_id: userId, community_ids: ids } : { user_id: userId };
    const r = await this.call(COMMUNITIES_SUBJECTS.roles, payload);
    return r?.roles && typeof r.roles === 'object' ? (r.roles as Record<string, CommunityRole>) : {};
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
}
