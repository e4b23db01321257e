/**
 * Consumers of access requests, each a durable `runConsumer` with the inbox:
 *
 * - `records-access-requests` (stream REQUESTS, `rdm.requests.request.*`): an accepted
 *   `user-access-request` / `guest-access-request` becomes a grant or a secret link, exactly once;
 *   closed ones stop blocking a new ask (events/access-request-effects.ts).
 * - `records-access-mailer` (stream RECORDS, `rdm.records.access-request.>`): e-mails a guest the
 *   verification link (`verification-requested`) and, once accepted, the secret link
 *   (`granted` with `kind: link`). Delivery as the abuse mailer: an SMTP failure rolls the
 *   transaction back and the message is redelivered with growing delays for hours; `mailed_at`
 *   and the inbox row make a redelivery send nothing twice.
 */
import { consumerWorker, type Knex, type Logger, type NatsHandle } from '@rdm/platform';
import type { AccessLinksService } from '../access/access-links.service.js';
import { accessTokenOf } from '../access/access-request.service.js';
import type { AccessRequestEffects } from './access-request-effects.js';
import { linkGrantedMail, verificationMail } from '../access/access-request-mail.js';
import type { RequestEventData } from './review-saga.js';
import type { MailSender } from '../mail/mailer.js';
import { getLink } from '../repo/access.repo.js';
import * as ar from '../repo/access-requests.repo.js';
import { getRecord } from '../repo/records.repo.js';

/** Durable consumer of request events. */
export const ACCESS_REQUESTS_DURABLE = 'records-access-requests';
/** Durable consumer of the mails. */
export const ACCESS_MAILER_DURABLE = 'records-access-mailer';

/** What the workers need. */
export interface AccessRequestWorkersOptions {
  db: Knex;
  nats: NatsHandle;
  effects: AccessRequestEffects;
  links: Pick<AccessLinksService, 'render'>;
  sender: MailSender;
  logger: Logger;
  from: string;
  baseUrl: string;
  /** The service secret (verification tokens derive from it). */
  secret: string;
  /** runConsumer tuning (tests). */
  maxDeliver?: number;
  backoffMs?: number[];
}

const titleOf = async (db: Knex.Transaction, recordId: string) => String((await getRecord(db, recordId))?.metadata?.title ?? recordId);

/** The two background workers (for runService). */
export function accessRequestWorkers(o: AccessRequestWorkersOptions) {
  const common = { db: o.db, js: o.nats.js, jsm: o.nats.jsm, logger: o.logger, service: 'records' };
  return [
    consumerWorker({
      ...common,
      stream: 'REQUESTS',
      durable: ACCESS_REQUESTS_DURABLE,
      filterSubject: 'rdm.requests.request.*',
      maxDeliver: o.maxDeliver,
      backoffMs: o.backoffMs,
      handler: (trx, e) => o.effects.onRequestEvent(trx, e),
    }),
    consumerWorker({
      ...common,
      stream: 'RECORDS',
      durable: ACCESS_MAILER_DURABLE,
      filterSubject: 'rdm.records.access-request.>',
      maxDeliver: o.maxDeliver ?? 2000,
      backoffMs: o.backoffMs ?? [1000, 5000, 15000, 30000, 60000],
      handler: async (trx, e) => {
        if (e.type === 'rdm.records.access-request.verification-requested') {
          const t = await ar.getToken(trx, String(e.data.token_id));
          if (!t || t.mailed_at) return;
          await o.sender.send(
            verificationMail({
              from: o.from,
              baseUrl: o.baseUrl,
              tokenId: t.id,
              recordId: t.record_id,
              title: await titleOf(trx, t.record_id),
              email: t.email,
              fullName: t.full_name,
              token: accessTokenOf(o.secret, t),
            }),
          );
          await ar.markTokenMailed(trx, t.id);
        } else if (e.type === 'rdm.records.access-request.granted' && e.data.kind === 'link') {
          const requestId = String(e.data.request_id);
          const row = await ar.byRequestId(trx, requestId, true);
          if (!row?.email || row.mailed_at || !row.link_id) return;
          const link = await getLink(trx, row.parent_id, row.link_id);
          // Revoked before the mail left: nothing to send.
          if (!link) return;
          await o.sender.send(
            linkGrantedMail({
              from: o.from,
              baseUrl: o.baseUrl,
              requestId,
              recordId: row.record_id,
              title: await titleOf(trx, row.record_id),
              email: row.email,
              token: String(o.links.render(link).token),
              expiresAt: link.expires_at,
            }),
          );
          await ar.markRequestMailed(trx, requestId);
        }
      },
    }),
  ];
}
