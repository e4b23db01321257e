/**
 * Consumers of the requests service's events (stream REQUESTS), each a durable `runConsumer`
 * with the inbox, so an event's effect and its inbox row commit in one transaction:
 *
 * - `records-request-accepted` (`rdm.requests.request.accepted`): community-submission →
 *   publish the draft into the community; community-inclusion → add the community to the
 *   record (review-saga.ts). Other types are ignored.
 * - `records-request-status` (`rdm.requests.request.*`): the review snapshot of a draft follows
 *   its community-submission request — submitted, declined, expired; cancelled and deleted
 *   unlink it (review/review.service.ts `applyStatus`). `accepted` is left to the consumer above.
 */
import { consumerWorker, type Knex, type Logger, type NatsHandle } from '@rdm/platform';
import type { ReviewStatus } from '../domain/model.js';
import type { ReviewService } from '../review/review.service.js';
import type { RequestEventData, ReviewSaga } from './review-saga.js';

/** Durable consumer names. */
export const REQUEST_ACCEPTED_DURABLE = 'records-request-accepted';
/** Durable consumer name of the status follower. */
export const REQUEST_STATUS_DURABLE = 'records-request-status';
/** Stream of the requests service. */
export const REQUESTS_STREAM = 'REQUESTS';

const STATUS_OF: Record<string, ReviewStatus | 'deleted'> = {
  'rdm.requests.request.submitted': 'submitted',
  'rdm.requests.request.declined': 'declined',
  'rdm.requests.request.expired': 'expired',
  'rdm.requests.request.cancelled': 'cancelled',
  'rdm.requests.request.deleted': 'deleted',
};

/** Options of the request consumers. */
export interface RequestConsumersOptions {
  db: Knex;
  nats: NatsHandle;
  saga: ReviewSaga;
  review: ReviewService;
  logger: Logger;
  /** runConsumer tuning (tests). */
  maxDeliver?: number;
  backoffMs?: number[];
}

/** The two background workers (for runService). */
export function requestConsumerWorkers(o: RequestConsumersOptions) {
  const common = {
    db: o.db,
    js: o.nats.js,
    jsm: o.nats.jsm,
    stream: REQUESTS_STREAM,
    logger: o.logger,
    service: 'records',
    maxDeliver: o.maxDeliver,
    backoffMs: o.backoffMs,
  };
  return [
    consumerWorker({
      ...common,
      durable: REQUEST_ACCEPTED_DURABLE,
      filterSubject: 'rdm.requests.request.accepted',
      handler: (trx, e) => o.saga.onAccepted(trx, e),
    }),
    consumerWorker({
      ...common,
      durable: REQUEST_STATUS_DURABLE,
      filterSubject: 'rdm.requests.request.*',
      handler: async (trx, e) => {
        const status = STATUS_OF[e.type];
        if (!status || e.data?.type !== 'community-submission' || typeof e.data.id !== 'string') return;
        await o.review.applyStatus(trx, e.data.id, status);
      },
    }),
  ];
}
