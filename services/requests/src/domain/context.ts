/**
 * Loading what permission decisions and links need about a caller and some requests: the
 * caller's community roles (only in the communities the requests mention) and the summaries of
 * the communities the types' texts and links refer to. One roles call and one summaries call
 * per batch (both cached by the communities client).
 */
import { type Identity, isSystem } from '@rdm/platform';
import type { RequestRow } from './model.js';
import type { RoleMap } from './policy.js';
import type { CommunitiesPort, CommunitySummary } from './ports.js';
import { contextCommunityId, requestType } from './types/registry.js';

/** What is known about the caller for a batch of requests. */
export interface CallerContext {
  roles: RoleMap;
  communities: Map<string, CommunitySummary>;
}

/** Canonical uuid text (lowercase) or undefined when `s` is not a uuid. */
export function canonicalUuid(s: string): string | undefined {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s) ? s.toLowerCase() : undefined;
}

/** Community ids a request mentions (creator, receiver, topic). */
export function communityIdsOf(reqs: Pick<RequestRow, 'created_by' | 'receiver' | 'topic'>[]): string[] {
  const ids = new Set<string>();
  for (const r of reqs) for (const ref of [r.created_by, r.receiver, r.topic]) if (ref?.type === 'community') ids.add(ref.id);
  return [...ids];
}

/** Load roles and (with `summaries`) community summaries for a batch; a summaries failure only loses `self_html` slugs. */
export async function loadCallerContext(
  port: CommunitiesPort,
  identity: Identity,
  reqs: RequestRow[],
  opts: { summaries?: boolean; logger?: { warn(o: object, m: string): void } } = {},
): Promise<CallerContext> {
  const ids = communityIdsOf(reqs);
  const roles = identity.sub !== null && !isSystem(identity) && ids.length > 0 ? await port.roles(identity.sub, ids) : {};
  let communities = new Map<string, CommunitySummary>();
  if (opts.summaries) {
    const want = new Set<string>();
    for (const r of reqs) {
      const t = requestType(r.type);
      const cid = t ? contextCommunityId(t, r) : undefined;
      if (cid) want.add(cid);
    }
    if (want.size > 0) {
      try {
        communities = await port.get([...want]);
      } catch (err) {
        // Why: a read must not fail because the communities service is slow; only self_html degrades.
        opts.logger?.warn({ err }, 'community summaries unavailable');
      }
    }
  }
  return { roles, communities };
}
