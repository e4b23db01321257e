/**
 * The review lifecycle component: no direct publication while a review is `created` or open, no
 * deletion of a draft while its review is open, and a `created` review request deleted with its
 * draft (InvenioRDM's `ReviewComponent` of the drafts service).
 *
 * When to use: an entry of the records components list (`recordComponents`), present when the
 * requests service is wired; the review endpoints are review.service.ts.
 */
import { Errors, type MsgLogger } from '@rdm/platform';
import type { DraftDeletion, RecordComponent } from '../domain/component.js';
import { REVIEW_MESSAGES } from '../domain/errors.js';
import type { ParentRow, ReviewStatus } from '../domain/model.js';
import type { RequestsPort } from '../domain/ports.js';

/** Review statuses in which the request is open (submitted, waiting for the curators). */
export const OPEN_REVIEW: readonly ReviewStatus[] = ['submitted'];

/** Reviews in the records lifecycle. */
export class ReviewComponent implements RecordComponent {
  readonly name = 'review';

  constructor(private readonly d: { requests: Pick<RequestsPort, 'delete'>; logger: MsgLogger }) {}

  /** No direct publication while a review is created or open (checked again on the locked parent). */
  beforePublish(parent: ParentRow): void {
    if (parent.review && (parent.review.status === 'created' || OPEN_REVIEW.includes(parent.review.status))) {
      throw Errors.badRequest(REVIEW_MESSAGES.publishOpen);
    }
  }

  /** No deletion of a first or new-version draft while its review is open. */
  beforeDeleteDraft(d: DraftDeletion): void {
    if (d.kind === 'edit') return;
    if (d.parent.review && OPEN_REVIEW.includes(d.parent.review.status)) throw Errors.badRequest(REVIEW_MESSAGES.deleteOpen);
  }

  /** A `created` review goes with its draft (the system deletes it; the draft is gone). */
  async afterDeleteDraft(d: DraftDeletion): Promise<void> {
    if (d.kind === 'edit') return;
    if (d.parent.review?.status === 'created') await this.deleteRequestQuietly(d.parent.review.id);
  }

  private async deleteRequestQuietly(id: string): Promise<void> {
    try {
      await this.d.requests.delete(id, { sub: 'system', roles: ['system'] });
    } catch (err) {
      this.d.logger.warn({ err, request: id }, 'could not delete the review request');
    }
  }
}
