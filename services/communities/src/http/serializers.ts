/**
 * JSON shapes of the communities service (spec "Community", "Community member", reference §2–§3):
 * communities, member hits (full and public), invitation / membership-request hits, logo file
 * information, featured entries and the facet aggregations.
 */
import type { Aggregation } from '@rdm/platform';
import type { CommunityLinks } from '../domain/links.js';
import { type Actor, isMemberManager, isSelf, canManageRole, memberPermissions, ROLE_TITLES, type Role } from '../domain/roles.js';
import type { CommunityRow, FacetCount, FeaturedRow, LogoRow } from '../repo/communities.repo.js';
import type { MemberFacet, MemberRow } from '../repo/members.repo.js';

/** `2024-05-01T10:11:12.123000+00:00` (InvenioRDM's ISO form). */
export function isoTs(d: Date | string): string {
  return new Date(d).toISOString().replace(/\.(\d{3})Z$/, '.$1000+00:00');
}

/** Statistics block of the single-community responses. */
export type Statistics = { records: number; files: number; file_size: number; record_views: number; record_downloads: number };

/** A community as the API shows it; `statistics` on single, create and update responses. */
export function serializeCommunity(row: CommunityRow, links: CommunityLinks, statistics?: Statistics): Record<string, unknown> {
  const a = row.access;
  const out: Record<string, unknown> = {
    id: row.id,
    slug: row.slug,
    created: isoTs(row.created),
    updated: isoTs(row.updated),
    revision_id: row.revision_id,
    links: links.community(row),
    metadata: row.metadata,
    access: {
      visibility: a.visibility,
      members_visibility: a.members_visibility,
      member_policy: a.member_policy,
      record_submission_policy: a.record_submission_policy,
      review_policy: a.review_policy,
      record_restricted_policy: a.record_restricted_policy,
    },
    custom_fields: row.custom_fields ?? {},
    deletion_status: { is_deleted: row.deletion_status !== 'P', status: row.deletion_status },
    children: { allow: false },
  };
  if (statistics) out.statistics = statistics;
  return out;
}

const VISIBILITY_LABELS: Record<string, string> = { public: 'Public', restricted: 'Restricted' };

/** Aggregations of the community search. */
export function communityAggregations(
  facets: { type: FacetCount[]; visibility: FacetCount[] },
  selected: { type: string[]; visibility: string[] },
): Record<string, Aggregation> {
  const buckets = (list: FacetCount[], sel: string[], label: (f: FacetCount) => string) =>
    list.map((f) => ({ key: f.key, doc_count: f.count, label: label(f), is_selected: sel.includes(f.key) }));
  return {
    type: { label: 'Type', buckets: buckets(facets.type, selected.type, (f) => f.label ?? f.key) },
    visibility: { label: 'Visibility', buckets: buckets(facets.visibility, selected.visibility, (f) => VISIBILITY_LABELS[f.key] ?? f.key) },
  };
}

/** The `member` block of a hit. */
function memberEntity(m: MemberRow, links: CommunityLinks) {
  return {
    type: m.member_type,
    id: m.member_id,
    name: m.name || m.username || 'Untitled',
    description: m.affiliations ?? '',
    avatar: links.avatar(m.member_id),
  };
}

/** A full member hit (`GET …/members`). */
export function serializeMember(m: MemberRow, actor: Actor, links: CommunityLinks): Record<string, unknown> {
  return {
    id: m.id,
    member: memberEntity(m, links),
    role: m.role,
    visible: m.visible,
    is_current_user: isSelf(actor, m),
    permissions: memberPermissions(actor, m),
    created: isoTs(m.created),
    updated: isoTs(m.updated),
    revision_id: m.revision_id,
    links: {},
  };
}

/** A public member hit (`GET …/members/public`): only `{id, member}`. */
export function serializePublicMember(m: MemberRow, links: CommunityLinks): Record<string, unknown> {
  return { id: m.id, member: memberEntity(m, links) };
}

const OPEN = new Set(['submitted', 'created', 'accepting']);

/** An invitation or membership-request hit. */
export function serializeRequestHit(m: MemberRow, actor: Actor, links: CommunityLinks, community: CommunityRow): Record<string, unknown> {
  const isOpen = OPEN.has(m.request_status ?? '');
  const invitation = m.request_type === 'community-invitation';
  const rid = m.request_id ?? '';
  return {
    id: m.id,
    member: memberEntity(m, links),
    role: m.role,
    visible: m.visible,
    is_current_user: isSelf(actor, m),
    created: isoTs(m.created),
    updated: isoTs(m.updated),
    revision_id: m.revision_id,
    request: {
      id: m.request_id,
      status: m.request_status,
      is_open: isOpen,
      expires_at: m.request_expires_at ? isoTs(m.request_expires_at) : null,
      type: m.request_type,
    },
    permissions: {
      can_cancel: isOpen && invitation && isMemberManager(actor),
      can_update_role: isOpen && canManageRole(actor, m.role),
    },
    links: invitation
      ? { actions: { cancel: links.requestAction(rid, 'cancel') }, self_html: links.requestHtml(community.slug, rid) }
      : {
          actions: { accept: links.requestAction(rid, 'accept'), decline: links.requestAction(rid, 'decline') },
          self_html: links.requestHtml(community.slug, rid, 'membership-requests'),
        },
  };
}

const STATUS_LABELS: Record<string, string> = {
  submitted: 'Submitted',
  accepted: 'Accepted',
  declined: 'Declined',
  cancelled: 'Cancelled',
  expired: 'Expired',
};

/** Aggregations of member / request lists. */
export function memberAggregations(
  facets: Record<string, MemberFacet[]>,
  selected: Record<string, string[]>,
  names: string[],
): Record<string, Aggregation> {
  const label = (name: string, key: string): string => {
    if (name === 'role') return ROLE_TITLES[key as Role] ?? key;
    if (name === 'visibility') return key === 'true' ? 'Public' : 'Hidden';
    if (name === 'status') return STATUS_LABELS[key] ?? key;
    if (name === 'is_open') return key === 'true' ? 'Open' : 'Closed';
    return key;
  };
  const titles: Record<string, string> = { role: 'Role', visibility: 'Visibility', status: 'Status', is_open: 'Open' };
  return Object.fromEntries(
    names.map((n) => [
      n,
      {
        label: titles[n] ?? n,
        buckets: (facets[n] ?? []).map((f) => ({
          key: f.key,
          doc_count: f.count,
          label: label(n, f.key),
          is_selected: (selected[n] ?? []).includes(f.key),
        })),
      },
    ]),
  );
}

/** Logo file information (`PUT …/logo`). */
export function serializeLogo(row: LogoRow, links: CommunityLinks): Record<string, unknown> {
  return {
    key: 'logo',
    size: Number(row.size),
    checksum: row.checksum,
    mimetype: row.mimetype,
    created: isoTs(row.created),
    updated: isoTs(row.updated),
    links: { self: `${links.base}/api/communities/${row.community_id}/logo` },
  };
}

/** A featured entry. */
export function serializeFeatured(row: FeaturedRow): Record<string, unknown> {
  return { id: Number(row.id), start_date: isoTs(row.start_date), created: isoTs(row.created), updated: isoTs(row.updated) };
}
