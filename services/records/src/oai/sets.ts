/**
 * OAI-PMH sets: `community-<slug>` for each public community holding public records (slugs asked
 * from the communities service over `rdm.communities.rpc.get`, cached `ttlMs`, so a page of
 * headers costs at most one RPC) and `resource-type-<id>` for each resource type in use.
 * Restricted or deleted communities never appear (neither as sets nor in headers).
 */
import * as repo from '../repo/oai.repo.js';
import type { Knex } from '@rdm/platform';

/** What sets need of the communities service (structurally the records CommunitiesPort). */
export interface CommunityLookup {
  get(idsOrSlugs: string[]): Promise<{ id: string; slug: string; title: string; visibility: string; is_deleted: boolean }[]>;
}

/** A set of ListSets. */
export interface OaiSet {
  spec: string;
  name: string;
}

/** A parsed `set` argument. */
export type SetFilter = { communityId: string } | { resourceTypeId: string } | { none: true };

const COMMUNITY = 'community-';
const RESOURCE_TYPE = 'resource-type-';
const SPEC_SAFE = /^[A-Za-z0-9\-_.!~*'()]+$/;

/** Community and resource-type sets, with a slug cache. */
export class OaiSets {
  private readonly cache = new Map<string, { at: number; slug: string | null; title: string }>();

  constructor(
    private readonly db: Knex,
    private readonly communities: CommunityLookup | undefined,
    private readonly ttlMs = 60_000,
  ) {}

  /** Public communities by id (cached), id → {slug, title}; others left out. */
  async communitiesById(ids: string[]): Promise<Map<string, { slug: string; title: string }>> {
    const now = Date.now();
    const out = new Map<string, { slug: string; title: string }>();
    const missing = [...new Set(ids)].filter((id) => {
      const hit = this.cache.get(id);
      return !hit || now - hit.at > this.ttlMs;
    });
    if (missing.length > 0 && this.communities) {
      const found = await this.communities.get(missing);
      if (this.cache.size > 10_000) this.cache.clear();
      for (const id of missing) this.cache.set(id, { at: now, slug: null, title: '' });
      for (const c of found) {
        const visible = c.visibility === 'public' && !c.is_deleted && SPEC_SAFE.test(c.slug);
        this.cache.set(c.id, { at: now, slug: visible ? c.slug : null, title: c.title });
      }
    }
    for (const id of ids) {
      const hit = this.cache.get(id);
      if (hit?.slug) out.set(id, { slug: hit.slug, title: hit.title });
    }
    return out;
  }

  /** The setSpecs of an item. */
  specsOf(row: { community_ids: string[]; resource_type_id: string | null }, communities: Map<string, { slug: string }>): string[] {
    const specs: string[] = [];
    for (const id of row.community_ids ?? []) {
      const c = communities.get(id);
      if (c) specs.push(`${COMMUNITY}${c.slug}`);
    }
    if (row.resource_type_id && SPEC_SAFE.test(row.resource_type_id)) specs.push(`${RESOURCE_TYPE}${row.resource_type_id}`);
    return specs;
  }

  /** Every set with at least one live item. */
  async list(): Promise<OaiSet[]> {
    const used = await repo.oaiSetsInUse(this.db);
    const communities = await this.communitiesById(used.communityIds);
    const sets: OaiSet[] = [...communities.values()].map((c) => ({ spec: `${COMMUNITY}${c.slug}`, name: c.title || c.slug }));
    sets.sort((a, b) => a.spec.localeCompare(b.spec));
    for (const t of used.resourceTypes) {
      if (!SPEC_SAFE.test(t.id)) continue;
      const title =
        t.title && typeof t.title === 'object' ? ((t.title as Record<string, string>).en ?? Object.values(t.title)[0]) : undefined;
      sets.push({ spec: `${RESOURCE_TYPE}${t.id}`, name: typeof title === 'string' && title ? title : t.id });
    }
    return sets;
  }

  /** Resolve a `set` argument to a filter (`none`: a set that cannot match anything). */
  async parse(spec: string): Promise<SetFilter> {
    if (spec.startsWith(RESOURCE_TYPE) && spec.length > RESOURCE_TYPE.length) return { resourceTypeId: spec.slice(RESOURCE_TYPE.length) };
    if (spec.startsWith(COMMUNITY) && spec.length > COMMUNITY.length && this.communities) {
      const slug = spec.slice(COMMUNITY.length);
      const [c] = (await this.communities.get([slug])).filter((x) => x.slug === slug);
      if (c && c.visibility === 'public' && !c.is_deleted) return { communityId: c.id };
    }
    return { none: true };
  }
}
