/**
 * Records in communities (reference §1.4 "community-inclusion", invenio-records §4.2):
 * `POST/GET/DELETE /api/records/<id>/communities`, `GET …/communities-suggestions`, and the
 * community roles that widen the records policy (curators of a record's communities manage it,
 * curators of an open review's community review the draft, members read restricted records).
 *
 * When to use: the record-communities routes (the roles widening the policy and the extension
 * check are communities.component.ts, a lifecycle component). Roles
 * come from `rdm.communities.rpc.roles` (cached briefly by the client, dropped on membership
 * events); summaries from `rdm.communities.rpc.get`. Inclusions are requests
 * (`community-inclusion`, created and submitted through the requests service); the effect on
 * acceptance is events/review-saga.ts. Removal is direct and writes
 * `rdm.records.inclusion.removed` in the same transaction.
 */
import { AppError, Errors, type Identity, isAdmin, isSystem, type Knex, type MsgLogger, withTransaction, writeOutbox } from '@rdm/platform';
import * as repo from '../repo/records.repo.js';
import { ctxOf } from '../domain/access.component.js';
import { loadRecord } from '../domain/component.js';
import { INCLUSION_MESSAGES } from '../domain/errors.js';
import type { ParentCommunities, ParentRow, RecordRow } from '../domain/model.js';
import {
  type CommunitiesPort,
  type CommunitySummary,
  CURATOR_ROLES,
  type RequestsPort,
  type RpcIdentity,
  type SearchIndexPort,
} from '../domain/ports.js';
import type { RecordsService } from '../domain/records.service.js';
import { parentDoc } from '../domain/serializers.js';
import { communityIdsOf } from './communities.component.js';

/** Most communities handled by one call (InvenioRDM's limit). */
export const MAX_COMMUNITIES_PER_CALL = 10;

/** Dependencies of the component. */
export interface CommunitiesDeps {
  db: Knex;
  records: RecordsService;
  index: SearchIndexPort;
  requests: RequestsPort;
  communities: CommunitiesPort;
  logger: MsgLogger;
}

/** Result of POST …/communities. */
export interface InclusionResult {
  processed: { community_id: string; request_id: string }[];
  errors?: { community_id: string; message: string }[];
}

const isObj = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);
const rpcIdentity = (i: Identity): RpcIdentity => ({ sub: i.sub, roles: i.roles });
const idsOf = communityIdsOf;

/** The record-communities endpoints. */
export class RecordCommunitiesService {
  constructor(private readonly d: CommunitiesDeps) {}

  /** A published, non-deleted record with its parent (404/410 as GET /api/records/<id>). */
  private loadRecord(id: string): Promise<{ record: RecordRow; parent: ParentRow }> {
    return loadRecord(this.d.db, id);
  }

  /** `{communities: [{id, …}]}` → the ids (400 when malformed or too many). */
  private static parseIds(body: unknown): { id: string; require_review?: boolean }[] {
    const list = isObj(body) ? body.communities : undefined;
    if (!Array.isArray(list) || list.length === 0) {
      throw Errors.validation([{ field: 'communities', messages: ['Missing data for required field.'] }]);
    }
    if (list.length > MAX_COMMUNITIES_PER_CALL) {
      throw Errors.validation([
        { field: 'communities', messages: [`Too many communities passed, ${list.length} > ${MAX_COMMUNITIES_PER_CALL}.`] },
      ]);
    }
    return list.map((c, i) => {
      if (!isObj(c) || typeof c.id !== 'string' || c.id === '') {
        throw Errors.validation([{ field: `communities.${i}.id`, messages: ['Missing data for required field.'] }]);
      }
      if (c.require_review !== undefined && typeof c.require_review !== 'boolean') {
        throw Errors.validation([{ field: `communities.${i}.require_review`, messages: ['Must be a boolean, true or false'] }]);
      }
      return { id: c.id, require_review: c.require_review as boolean | undefined };
    });
  }

  /** POST /api/records/<id>/communities: one `community-inclusion` request per community, submitted. */
  async add(identity: Identity, id: string, body: unknown): Promise<InclusionResult> {
    const { record, parent } = await this.loadRecord(id);
    await this.d.records.requireWith('manage', identity, ctxOf(record, parent), parent);
    const wanted = RecordCommunitiesService.parseIds(body);
    const found = await this.d.communities.get(wanted.map((w) => w.id));
    const byKey = new Map<string, CommunitySummary>();
    for (const c of found) {
      byKey.set(c.id, c);
      byKey.set(c.slug, c);
    }
    const current = new Set(idsOf(parent));
    const result: InclusionResult = { processed: [] };
    const errors: NonNullable<InclusionResult['errors']> = [];
    for (const w of wanted) {
      const c = byKey.get(w.id);
      if (!c || c.is_deleted) errors.push({ community_id: w.id, message: INCLUSION_MESSAGES.notFound });
      else if (current.has(c.id)) errors.push({ community_id: c.id, message: INCLUSION_MESSAGES.already });
      else if (c.visibility === 'restricted' && record.access?.record !== 'restricted') {
        errors.push({ community_id: c.id, message: INCLUSION_MESSAGES.restricted });
      } else {
        try {
          const created = await this.d.requests.create({
            identity: rpcIdentity(identity),
            type: 'community-inclusion',
            created_by: { user: String(identity.sub) },
            receiver: { community: c.id },
            topic: { record: record.id },
            title: typeof record.metadata?.title === 'string' ? record.metadata.title : '',
          });
          const submitted = await this.d.requests.action({
            id: created.id,
            action: 'submit',
            identity: rpcIdentity(identity),
            data: { require_review: w.require_review === true },
          });
          result.processed.push({ community_id: c.id, request_id: submitted.id });
          current.add(c.id);
        } catch (err) {
          if (!(err instanceof Error) || !('status' in err) || (err as { status: number }).status >= 500) throw err;
          errors.push({ community_id: c.id, message: err.message });
        }
      }
    }
    if (errors.length) result.errors = errors;
    return result;
  }

  /** GET /api/records/<id>/communities: the summaries of the record's communities. */
  async list(identity: Identity, id: string): Promise<CommunitySummary[]> {
    const { record, parent } = await this.loadRecord(id);
    await this.d.records.requireWith('read', identity, ctxOf(record, parent), parent);
    const ids = idsOf(parent);
    const found = await this.d.communities.get(ids);
    const byId = new Map(found.map((c) => [c.id, c]));
    return ids.map((c) => byId.get(c)).filter((c): c is CommunitySummary => !!c && !c.is_deleted);
  }

  /**
   * DELETE /api/records/<id>/communities: remove the record from communities (record owners, or
   * curators+ of that community). Per-community errors are reported; the rest is removed in one
   * transaction with one `rdm.records.inclusion.removed` each.
   */
  async remove(identity: Identity, id: string, body: unknown): Promise<{ errors?: { community_id: string; message: string }[] }> {
    const { record, parent } = await this.loadRecord(id);
    const wanted = RecordCommunitiesService.parseIds(body).map((w) => w.id);
    const ctx = ctxOf(record, parent);
    const isManager = isAdmin(identity) || isSystem(identity) || (identity.sub !== null && ctx.ownerId === identity.sub);
    const roles = isManager || identity.sub === null ? {} : await this.d.communities.roles(identity.sub, wanted);
    if (!isManager && !wanted.some((c) => CURATOR_ROLES.includes(roles[c] as never))) {
      await this.d.records.requireWith('read', identity, ctx, parent);
      throw Errors.permissionDenied();
    }
    const errors: { community_id: string; message: string }[] = [];
    await withTransaction(this.d.db, async (trx) => {
      const locked = (await repo.getParent(trx, parent.id, true))!;
      const allowed = wanted.filter((cid) => {
        if (isManager || CURATOR_ROLES.includes(roles[cid] as never)) return true;
        errors.push({ community_id: cid, message: INCLUSION_MESSAGES.denied });
        return false;
      });
      const removed = await this.removeFromParent(trx, locked, allowed, id);
      for (const cid of allowed) {
        if (!removed.includes(cid)) errors.push({ community_id: cid, message: INCLUSION_MESSAGES.notIncluded });
      }
    });
    return errors.length ? { errors } : {};
  }

  /**
   * Remove communities from a (locked) parent: the parent row, its search documents and one
   * `rdm.records.inclusion.removed` per community removed, in `trx`. Returns the ids removed
   * (those the parent was in). Shared by both removal endpoints.
   */
  async removeFromParent(trx: Knex.Transaction, locked: ParentRow, communityIds: string[], recordId: string): Promise<string[]> {
    const c = { ...((locked.communities ?? {}) as ParentCommunities) };
    const removed = communityIds.filter((cid) => (c.ids ?? []).includes(cid));
    if (removed.length === 0) return removed;
    c.ids = (c.ids ?? []).filter((x) => !removed.includes(x));
    c.entries = (c.entries ?? []).filter((e) => !removed.includes((e as { id?: string }).id ?? ''));
    if (c.default && removed.includes(c.default)) c.default = c.ids[0] ?? null;
    const communities = (c.ids.length ? c : {}) as Record<string, unknown>;
    await repo.updateParent(trx, locked.id, { communities });
    await this.d.index.refreshParent(trx, locked.id, parentDoc({ ...locked, communities }));
    for (const cid of removed) {
      await writeOutbox(trx, {
        subject: 'rdm.records.inclusion.removed',
        aggregate: { type: 'parent', id: locked.id, revision: locked.revision_id + 1 },
        data: { parent_id: locked.id, record_id: locked.latest_id ?? recordId, community_id: cid, request_id: null },
      });
    }
    return removed;
  }

  /**
   * GET /api/records/<id>/communities-suggestions: the caller's communities the record is not in.
   * Only those who may add the record to a community ask (InvenioRDM's `add_community` = manage),
   * so a reader cannot list another user's community memberships through someone's record.
   */
  async suggestions(identity: Identity, id: string): Promise<CommunitySummary[]> {
    if (identity.sub === null) throw Errors.permissionDenied();
    const { record, parent } = await this.loadRecord(id);
    await this.d.records.requireWith('manage', identity, ctxOf(record, parent), parent);
    const mine = Object.keys(await this.d.communities.roles(identity.sub));
    const already = new Set(idsOf(parent));
    const candidates = mine.filter((c) => !already.has(c));
    return (await this.d.communities.get(candidates)).filter((c) => !c.is_deleted);
  }

  /**
   * Resolve `GET /api/communities/<id or slug>/records`'s community (404 when unknown or deleted)
   * and whether the caller is a member (members read the community's restricted records).
   */
  async resolveForSearch(identity: Identity, idOrSlug: string): Promise<{ id: string; member: boolean }> {
    const [c] = await this.d.communities.get([idOrSlug]);
    if (!c) throw Errors.pidDoesNotExist();
    if (c.is_deleted) throw Errors.gone();
    if (identity.sub === null) return { id: c.id, member: false };
    const roles = await this.d.communities.roles(identity.sub, [c.id]);
    return { id: c.id, member: !!roles[c.id] };
  }
}
