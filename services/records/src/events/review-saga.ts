/**
 * The records side of the "request accepted → record published" saga (proto/README.md, section
 * "Requests whose effect lives in another service"; DESIGN §10).
 *
 * When to use: only from the durable consumer of `rdm.requests.request.accepted`, inside the
 * transaction that records the event in the inbox, so the effect and the inbox row commit
 * together. For `community-submission` the topic draft is published into the receiver community
 * (`parent.communities` set, default for a first version, review unlinked) and
 * `rdm.records.record.published` carries `request_id`; for `community-inclusion` the community is
 * added to the published record's parent and `rdm.records.inclusion.added` carries it. A refusal
 * (invalid draft, public record into a restricted community, draft or community gone) writes
 * `rdm.records.review.failed` instead.
 *
 * Authority is re-checked here, at accept time, from records' own rows (issue 18, finding 2: the
 * request's references are data another service stores): a submission publishes only the draft
 * whose review (`parent.review`) IS this request, aimed at this community, and only while the
 * request's creator may still manage that draft (as attaching and submitting a review require);
 * an inclusion adds only a live record its creator may still manage (as `POST …/communities`
 * requires). A deleted record, or a draft of one, is never published (finding 7).
 *
 * At most once per request: the effect is claimed in `review_effects` (row locked for the
 * transaction), so concurrent or repeated deliveries — same message or a second event for the
 * same request — wait and then find it done, and re-emit nothing. The files lock (an RPC, outside
 * the database) runs only after every other check passed and is idempotent (`if_complete`), so a
 * retried delivery locks again harmlessly; the publication's writes run in a savepoint, so a
 * refusal met there leaves nothing half-written next to the failure event. Transient errors
 * (a service unavailable) are thrown: the message is retried, nothing is recorded.
 */
import { AppError, type EventEnvelope, type FieldError, type Knex, type MsgLogger, writeOutbox } from '@rdm/platform';
import * as repo from '../repo/records.repo.js';
import * as reviewRepo from '../repo/review.repo.js';
import { ctxOf } from '../domain/access.component.js';
import { SAGA_MESSAGES } from '../domain/errors.js';
import type { ParentCommunities, ParentRow } from '../domain/model.js';
import type { CommunitiesPort, CommunitySummary, EntityRef, SearchIndexPort } from '../domain/ports.js';
import type { RecordsService } from '../domain/records.service.js';
import { parentDoc } from '../domain/serializers.js';

/** Data of `rdm.requests.request.<verb>` events. */
export interface RequestEventData {
  id: string;
  number: string;
  type: string;
  created_by: EntityRef;
  receiver: EntityRef;
  topic: EntityRef | null;
  actor: EntityRef;
  payload?: Record<string, unknown>;
}

/** Dependencies of the saga component. */
export interface ReviewSagaDeps {
  records: RecordsService;
  index: SearchIndexPort;
  communities: CommunitiesPort;
  logger: MsgLogger;
}

class Refusal extends Error {
  constructor(
    message: string,
    readonly errors?: FieldError[],
  ) {
    super(message);
  }
}

/** `parent.communities` with `community` added (default for a first version or when none). */
export function withCommunity(
  current: Record<string, unknown> | undefined,
  community: CommunitySummary,
  isFirst: boolean,
): ParentCommunities {
  const c = (current ?? {}) as ParentCommunities;
  const ids = [...(c.ids ?? [])];
  const entries = [...(c.entries ?? [])].filter((e) => (e as { id?: string }).id !== community.id);
  if (!ids.includes(community.id)) ids.push(community.id);
  entries.push({ ...community });
  return { ids, default: isFirst ? community.id : (c.default ?? community.id), entries };
}

/** Effects of accepted requests on records. */
export class ReviewSaga {
  constructor(private readonly d: ReviewSagaDeps) {}

  /** Handle one `rdm.requests.request.accepted` event inside the consumer's transaction. */
  async onAccepted(trx: Knex.Transaction, e: EventEnvelope<RequestEventData>): Promise<void> {
    const r = e.data;
    const topic = r.topic?.record;
    const communityId = r.receiver?.community;
    if (r.type !== 'community-submission' && r.type !== 'community-inclusion') return;
    if (!topic || !communityId) {
      this.d.logger.warn({ request: r.id, type: r.type }, 'accepted request without record topic or community receiver; ignored');
      return;
    }
    const claim = await reviewRepo.claimEffect(trx, {
      request_id: r.id,
      request_type: r.type,
      record_id: topic,
      community_id: communityId,
    });
    if (claim.outcome === 'published' || claim.outcome === 'included') {
      this.d.logger.debug({ request: r.id }, 'effect already applied; nothing re-emitted');
      return;
    }
    try {
      if (r.type === 'community-submission') await this.publishInto(trx, r, topic, communityId);
      else await this.include(trx, r, topic, communityId);
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      await writeOutbox(trx, {
        subject: 'rdm.records.review.failed',
        aggregate: { type: 'request', id: r.id, revision: 0 },
        data: { request_id: r.id, record_id: topic, message: err.message, ...(err.errors?.length ? { errors: err.errors } : {}) },
      });
      await reviewRepo.settleEffect(trx, r.id, 'failed', { message: err.message });
    }
  }

  /** The community, live (transient errors thrown; unknown or deleted → refusal). */
  private async community(id: string): Promise<CommunitySummary> {
    const [c] = await this.d.communities.get([id]);
    if (!c || c.is_deleted) throw new Refusal(SAGA_MESSAGES.communityGone);
    return c;
  }

  /** A 4xx of the records domain is a refusal; anything else is transient. */
  private static asRefusal(err: unknown): never {
    if (err instanceof AppError && err.status >= 400 && err.status < 500) throw new Refusal(err.message, err.fieldErrors);
    throw err;
  }

  /**
   * Refusal unless the request's creator (a user) may `action` the draft or record: the same
   * check, community roles included, records makes when that user asks it directly. Why from the
   * event's `created_by` with no roles: administrators' role is not in the request; an
   * administrator's request on someone else's record then fails here rather than being trusted.
   */
  private async requireCreator(
    r: RequestEventData,
    row: Parameters<typeof ctxOf>[0],
    parent: ParentRow,
    action: 'manage',
    message: string,
  ): Promise<void> {
    const user = r.created_by?.user;
    if (typeof user !== 'string' || user === '' || user === 'system') throw new Refusal(message);
    try {
      await this.d.records.requireWith(action, { sub: user, roles: [] }, ctxOf(row, parent), parent);
    } catch (err) {
      if (err instanceof AppError && err.status === 403) throw new Refusal(message);
      throw err;
    }
  }

  private async publishInto(trx: Knex.Transaction, r: RequestEventData, draftId: string, communityId: string): Promise<void> {
    const requestId = r.id;
    const found = await repo.getDraftWithParent(trx, draftId);
    if (!found?.parent) {
      throw new Refusal((await repo.getRecord(trx, draftId)) ? SAGA_MESSAGES.alreadyPublished : SAGA_MESSAGES.draftGone);
    }
    const { draft, hasRecord, parent } = found;
    // Only the draft's own review publishes it, and only into the community it was submitted to.
    if (parent.review?.id !== requestId || parent.review.receiver?.community !== communityId) {
      throw new Refusal(SAGA_MESSAGES.notTheReview);
    }
    if (found.sourceDeleted) throw new Refusal(SAGA_MESSAGES.recordDeleted);
    await this.requireCreator(r, draft, parent, 'manage', SAGA_MESSAGES.creatorMaySubmit);
    const community = await this.community(communityId);
    if (community.visibility === 'restricted' && draft.access?.record !== 'restricted') throw new Refusal(SAGA_MESSAGES.restricted);
    const record = hasRecord ? await repo.getRecord(trx, draftId) : undefined;
    // Every check first; the idempotent files lock comes last, once nothing else can refuse.
    const frozen = await this.d.records.checkPublishable(draft, record, { lock: true }).catch(ReviewSaga.asRefusal);
    const isFirst = !found.parent.latest_id;
    const { event } = await trx
      .transaction((sp) =>
        this.d.records.commitPublication(sp, {
          id: draftId,
          parentId: draft.parent_id,
          isEdit: hasRecord,
          frozen,
          requestId,
          parentPatch: (p: ParentRow) => ({
            communities: withCommunity(p.communities, community, isFirst) as Record<string, unknown>,
            review: null,
          }),
        }),
      )
      .catch(ReviewSaga.asRefusal);
    await reviewRepo.settleEffect(trx, requestId, 'published', { eventId: event.id });
  }

  private async include(trx: Knex.Transaction, r: RequestEventData, recordId: string, communityId: string): Promise<void> {
    const requestId = r.id;
    const found = await repo.getRecordWithParent(trx, recordId);
    if (!found?.parent || found.record.deletion_status !== 'P') throw new Refusal(SAGA_MESSAGES.recordGone);
    await this.requireCreator(r, found.record, found.parent, 'manage', SAGA_MESSAGES.creatorMayInclude);
    const community = await this.community(communityId);
    if (community.visibility === 'restricted' && found.record.access?.record !== 'restricted') throw new Refusal(SAGA_MESSAGES.restricted);
    const parent = (await repo.getParent(trx, found.parent.id, true))!;
    const communities = withCommunity(parent.communities, community, false);
    await repo.updateParent(trx, parent.id, { communities: communities as Record<string, unknown> });
    await this.d.index.refreshParent(trx, parent.id, parentDoc({ ...parent, communities: communities as Record<string, unknown> }));
    // The latest version's files: communities keeps statistics only of parents in a community
    // (it skips the publications of the others), so a parent joining its first one brings them.
    const latestId = parent.latest_id ?? recordId;
    const latest = latestId === found.record.id ? found.record : ((await repo.getRecord(trx, latestId)) ?? found.record);
    // Emitted even when the record was already in the community: requests waits for it.
    const event = await writeOutbox(trx, {
      subject: 'rdm.records.inclusion.added',
      aggregate: { type: 'parent', id: parent.id, revision: parent.revision_id + 1 },
      data: {
        parent_id: parent.id,
        record_id: latestId,
        community_id: community.id,
        request_id: requestId,
        files_count: latest.files.count ?? 0,
        files_bytes: latest.files.total_bytes ?? 0,
      },
    });
    await reviewRepo.settleEffect(trx, requestId, 'included', { eventId: event.id });
  }
}
