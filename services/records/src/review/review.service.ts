/**
 * The review of a draft (reference §1.4, invenio-records §4.9): a `community-submission` request
 * that lives in the requests service, linked to the draft's parent by a snapshot
 * `parent.review = {id, type, receiver, status}`.
 *
 * When to use: the `/draft/review` and `/draft/actions/submit-review` routes, `POST /api/records`
 * with `parent.review` (the lifecycle rules of a draft under review are review.component.ts).
 * The snapshot is written from RPC replies here and from `rdm.requests.request.*` events
 * (`applyStatus`, called by the request-status consumer); statuses only move forward
 * (created → submitted → closed), so a late reply never undoes a newer event. Cancelled and
 * deleted requests are unlinked. The publication on acceptance is events/review-saga.ts.
 */
import { Errors, type FieldError, type Identity, type Knex, type MsgLogger, withTransaction } from '@rdm/platform';
import * as repo from '../repo/records.repo.js';
import * as reviewRepo from '../repo/review.repo.js';
import { ctxOf } from '../domain/access.component.js';
import { type ItemView, type LoadedDraft, loadDraft } from '../domain/component.js';
import { OPEN_REVIEW } from './review.component.js';
import { RecordErrors, REVIEW_MESSAGES } from '../domain/errors.js';
import type { ParentRow, ReviewSnapshot, ReviewStatus } from '../domain/model.js';
import type { CommunitiesPort, CommunitySummary, RequestsPort, RequestView, RpcIdentity, SearchIndexPort } from '../domain/ports.js';
import type { RecordsService } from '../domain/records.service.js';
import { draftStatus, parentDoc } from '../domain/serializers.js';

/** The only review type (RDM_RECORDS_REVIEWS). */
export const REVIEW_TYPE = 'community-submission';

const RANK: Record<ReviewStatus, number> = { created: 0, submitted: 1, accepted: 2, declined: 2, cancelled: 2, expired: 2 };
const OPEN = OPEN_REVIEW;

/** Dependencies of the component. */
export interface ReviewDeps {
  db: Knex;
  records: RecordsService;
  index: SearchIndexPort;
  requests: RequestsPort;
  communities: CommunitiesPort;
  logger: MsgLogger;
  baseUrl: string;
}

const rpcIdentity = (i: Identity): RpcIdentity => ({ sub: i.sub, roles: i.roles });
const isObj = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Review endpoints and snapshot maintenance. */
export class ReviewService {
  constructor(private readonly d: ReviewDeps) {}

  /** The draft `id` with its parent (404/410 otherwise). */
  private load(id: string): Promise<LoadedDraft> {
    return loadDraft(this.d.db, id);
  }

  /**
   * Resolve a community id or slug to a live community the caller may read (400 on the `field`
   * otherwise). A restricted community is readable by its members and administrators only; to
   * anyone else it answers exactly as an unknown one, so the answer tells nothing of its existence.
   */
  async resolveCommunity(identity: Identity, idOrSlug: unknown, field = 'receiver.community'): Promise<CommunitySummary> {
    if (typeof idOrSlug !== 'string' || idOrSlug === '') throw RecordErrors.communityNotFound(field);
    const [c] = await this.d.communities.get([idOrSlug]);
    if (!c || c.is_deleted) throw RecordErrors.communityNotFound(field);
    if (c.visibility === 'restricted' && !(await this.mayReadRestricted(identity, c.id))) throw RecordErrors.communityNotFound(field);
    return c;
  }

  /** Members (any role) and administrators read a restricted community. */
  private async mayReadRestricted(identity: Identity, communityId: string): Promise<boolean> {
    if (identity.roles.includes('admin') || identity.roles.includes('system')) return true;
    if (identity.sub === null) return false;
    return !!(await this.d.communities.roles(identity.sub, [communityId]))[communityId];
  }

  /** Validate a review body `{type, receiver:{community}}`; returns the community. */
  async validateBody(identity: Identity, body: unknown): Promise<CommunitySummary> {
    const b = isObj(body) ? body : {};
    const errors: FieldError[] = [];
    if (b.type !== REVIEW_TYPE) errors.push({ field: 'type', messages: [REVIEW_MESSAGES.invalidType] });
    if (!isObj(b.receiver) || typeof b.receiver.community !== 'string') {
      errors.push({ field: 'receiver', messages: ['Invalid receiver: expected {"community": <id>}.'] });
    }
    if (errors.length) throw Errors.validation(errors);
    return this.resolveCommunity(identity, (b.receiver as Record<string, string>).community);
  }

  /** GET /api/records/{id}/draft/review: the request as the caller sees it. */
  async get(identity: Identity, id: string): Promise<RequestView> {
    const { draft, parent } = await this.load(id);
    await this.d.records.requireWith('read_draft', identity, ctxOf(draft, parent), parent);
    if (!parent.review) throw RecordErrors.reviewNotFound();
    return this.d.requests.get(parent.review.id, rpcIdentity(identity));
  }

  /** PUT /api/records/{id}/draft/review: create the review request, replacing a `created` one. */
  async put(identity: Identity, id: string, body: unknown): Promise<RequestView> {
    const { draft, parent, hasRecord } = await this.load(id);
    await this.d.records.requireWith('manage', identity, ctxOf(draft, parent), parent);
    if (hasRecord) throw Errors.badRequest(REVIEW_MESSAGES.published);
    if (parent.latest_id) throw Errors.badRequest(REVIEW_MESSAGES.newVersion);
    if (parent.review && OPEN.includes(parent.review.status)) throw Errors.badRequest(REVIEW_MESSAGES.exists);
    const community = await this.validateBody(identity, body);
    const request = await this.createRequest(identity, id, draft.metadata?.title, community.id);
    const previous = parent.review;
    await this.link(parent.id, request, community.id, previous?.id ?? null);
    if (previous && previous.id !== request.id && previous.status === 'created') {
      await this.d.requests.delete(previous.id, rpcIdentity(identity)).catch((err) => {
        this.d.logger.warn({ err, request: previous.id }, 'replaced review request not deleted');
      });
    }
    return request;
  }

  private async createRequest(identity: Identity, draftId: string, title: unknown, communityId: string): Promise<RequestView> {
    const input = {
      identity: rpcIdentity(identity),
      type: REVIEW_TYPE,
      created_by: { user: String(identity.sub) },
      receiver: { community: communityId },
      topic: { record: draftId },
      title: typeof title === 'string' ? title : '',
    };
    const request = await this.d.requests.create({ ...input, key: `${draftId}:${communityId}` });
    // Why: a key reused after its request was deleted (review moved away and back) names a dead request.
    if (request.status === 'deleted') return this.d.requests.create(input);
    return request;
  }

  /** Link `request` as the review of `parentId` unless the review changed meanwhile (`expected`). */
  private async link(parentId: string, request: RequestView, communityId: string, expected: string | null): Promise<void> {
    await withTransaction(this.d.db, async (trx) => {
      const locked = await repo.getParent(trx, parentId, true);
      if (!locked) throw Errors.pidDoesNotExist();
      if ((locked.review?.id ?? null) !== expected && locked.review?.id !== request.id) {
        throw RecordErrors.reviewChanged();
      }
      const review: ReviewSnapshot = { id: request.id, type: REVIEW_TYPE, receiver: { community: communityId }, status: 'created' };
      await this.writeSnapshot(trx, locked, review);
    });
  }

  /** Write a snapshot (or unlink with null) and refresh the drafts' search documents. */
  private async writeSnapshot(trx: Knex.Transaction, parent: ParentRow, review: ReviewSnapshot | null): Promise<void> {
    await repo.updateParent(trx, parent.id, { review });
    const next: ParentRow = { ...parent, review };
    await this.d.index.refreshParent(trx, parent.id, parentDoc(next));
    await this.d.index.setDraftsStatus(trx, parent.id, draftStatus(false, next));
  }

  /** DELETE /api/records/{id}/draft/review: 204; an open review cannot be deleted. */
  async delete(identity: Identity, id: string): Promise<void> {
    const { draft, parent, hasRecord } = await this.load(id);
    await this.d.records.requireWith('manage', identity, ctxOf(draft, parent), parent);
    if (hasRecord) throw Errors.badRequest(REVIEW_MESSAGES.published);
    const review = parent.review;
    if (!review) throw RecordErrors.reviewNotFound();
    if (OPEN.includes(review.status)) throw Errors.badRequest(REVIEW_MESSAGES.deleteOpenReview);
    if (review.status === 'created') await this.d.requests.delete(review.id, rpcIdentity(identity));
    await withTransaction(this.d.db, async (trx) => {
      const locked = await repo.getParent(trx, parent.id, true);
      if (locked?.review?.id === review.id) await this.writeSnapshot(trx, locked, null);
    });
  }

  /**
   * POST /api/records/{id}/draft/actions/submit-review: validate the draft as publish would, check
   * the community's submission policy, then `submit` through the requests service, which decides
   * auto-accept and waits (bounded) for the publication. The request with `links.next_html`.
   */
  async submit(identity: Identity, id: string, body: unknown): Promise<RequestView> {
    const { draft, parent, hasRecord } = await this.load(id);
    await this.d.records.requireWith('manage', identity, ctxOf(draft, parent), parent);
    const b = isObj(body) ? body : {};
    if (b.require_review !== undefined && typeof b.require_review !== 'boolean') {
      throw Errors.validation([{ field: 'require_review', messages: ['Must be a boolean, true or false'] }]);
    }
    let payload: { content: string; format: string } | undefined;
    if (b.payload !== undefined && b.payload !== null) {
      if (!isObj(b.payload) || typeof b.payload.content !== 'string') {
        throw Errors.validation([{ field: 'payload.content', messages: ['Missing data for required field.'] }]);
      }
      payload = { content: b.payload.content, format: typeof b.payload.format === 'string' ? b.payload.format : 'html' };
    }
    const review = parent.review;
    if (!review) throw RecordErrors.reviewNotFound();
    const record = hasRecord ? await repo.getRecord(this.d.db, id) : undefined;
    await this.d.records.checkPublishable(draft, record, { lock: false });
    await this.requireSubmissionAllowed(identity, review.receiver.community);
    const request = await this.d.requests.action({
      id: review.id,
      action: 'submit',
      identity: rpcIdentity(identity),
      ...(payload ? { payload } : {}),
      data: { require_review: b.require_review === true, title: typeof draft.metadata?.title === 'string' ? draft.metadata.title : '' },
    });
    await this.applyStatus(this.d.db, review.id, request.status as ReviewStatus);
    const nextHtml = request.is_open
      ? (request.links?.self_html ?? `${this.d.baseUrl}/me/requests/${request.id}`)
      : `${this.d.baseUrl}/records/${encodeURIComponent(id)}`;
    return { ...request, links: { ...(request.links ?? {}), next_html: nextHtml } };
  }

  /** `record_submission_policy: closed` or a restricted community → members only (403). */
  private async requireSubmissionAllowed(identity: Identity, communityId: string): Promise<void> {
    if (identity.roles.includes('admin') || identity.roles.includes('system')) return;
    const [c] = await this.d.communities.get([communityId]);
    if (!c || c.is_deleted) throw RecordErrors.communityNotFound();
    if (c.record_submission_policy !== 'closed' && c.visibility !== 'restricted') return;
    if (identity.sub === null) throw Errors.permissionDenied();
    const roles = await this.d.communities.roles(identity.sub, [c.id]);
    if (!roles[c.id]) throw Errors.permissionDenied(REVIEW_MESSAGES.membersOnly);
  }

  /**
   * Move the snapshot of request `requestId` to `status` (forward only); `cancelled` and
   * `deleted` unlink it. Unknown requests and older statuses are ignored. Runs in `db` (a
   * consumer's transaction, or a new one).
   */
  async applyStatus(db: Knex | Knex.Transaction, requestId: string, status: ReviewStatus | 'deleted'): Promise<void> {
    const run = async (trx: Knex.Transaction) => {
      const parent = await reviewRepo.parentByReview(trx, requestId, true);
      const current = parent?.review;
      if (!parent || !current || current.id !== requestId) return;
      if (status === 'cancelled' || status === 'deleted') return this.writeSnapshot(trx, parent, null);
      if (!(status in RANK) || RANK[status] <= RANK[current.status]) return;
      // Accepted: the publication (saga) unlinks the review; nothing to record before it.
      if (status === 'accepted') return;
      await this.writeSnapshot(trx, parent, { ...current, status });
    };
    if ((db as Knex.Transaction).isTransaction) return run(db as Knex.Transaction);
    return withTransaction(db as Knex, run);
  }

  /**
   * POST /api/records with `parent.review`: the review is validated first (400, nothing created),
   * the draft created, then the request; if that fails the draft is removed again.
   */
  async createDraft(identity: Identity, body: unknown): Promise<ItemView> {
    const reviewBody = isObj(body) && isObj(body.parent) ? body.parent.review : undefined;
    if (reviewBody === undefined || reviewBody === null) return this.d.records.createDraft(identity, body);
    if (identity.sub === null) throw Errors.permissionDenied();
    const community = await this.validateBody(identity, reviewBody);
    const view = await this.d.records.createDraft(identity, body);
    const id = view.doc.id;
    try {
      const request = await this.createRequest(identity, id, view.doc.metadata?.title, community.id);
      await this.link(view.doc.parent.id, request, community.id, null);
    } catch (err) {
      await this.d.records.deleteDraft(identity, id).catch((e) => this.d.logger.warn({ err: e, id }, 'compensating draft delete failed'));
      throw err;
    }
    const read = await this.d.records.readDraft(identity, id);
    return { ...read, errors: view.errors };
  }
}
