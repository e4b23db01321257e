/**
 * Mailer: consumer of `rdm.records.abuse.reported` (stream RECORDS, durable `records-mailer`)
 * that e-mails the report to the site's abuse address (`ABUSE_EMAIL_TO`) and to the owners of the
 * record's communities (`recipientsOf`, mail/owner-recipients.ts).
 *
 * When to use: the only sender of abuse e-mails. Delivery: the handler runs in the inbox
 * transaction; an SMTP failure throws, the transaction rolls back and the message is redelivered
 * with growing delays (up to a minute) for many hours (`maxDeliver` 2000), so an SMTP outage of
 * minutes delays the mail but never loses it. A report already `mailed_at` is skipped, and the
 * inbox row makes a redelivery a no-op: the mail is sent once (a crash between the SMTP answer
 * and the commit is the only window for a second copy, which then carries the same Message-ID).
 */
import { consumerWorker, type Knex, type Logger, type NatsHandle } from '@rdm/platform';
import { ABUSE_TYPES } from '../abuse/abuse.service.js';
import { abuseMail, type MailSender } from '../mail/mailer.js';
import * as abuse from '../repo/abuse.repo.js';

/** Durable consumer name. */
export const MAILER_DURABLE = 'records-mailer';

/** What the mailer needs. */
export interface MailerOptions {
  db: Knex;
  nats: NatsHandle;
  sender: MailSender;
  logger: Logger;
  from: string;
  to: string[];
  baseUrl: string;
  /** Further recipients of a report about a record (the owners of its communities); a throw retries. */
  recipientsOf?: (recordId: string) => Promise<string[]>;
  /** Nak delays (default 1 s, 5 s, 15 s, 30 s, then every 60 s). */
  backoffMs?: number[];
}

/** A background worker running the consumer (for runService). */
export function mailerWorker(o: MailerOptions) {
  return consumerWorker({
    db: o.db,
    js: o.nats.js,
    jsm: o.nats.jsm,
    stream: 'RECORDS',
    durable: MAILER_DURABLE,
    filterSubject: 'rdm.records.abuse.reported',
    logger: o.logger,
    service: 'records',
    maxDeliver: 2000,
    backoffMs: o.backoffMs ?? [1000, 5000, 15000, 30000, 60000],
    handler: async (trx, e) => {
      const report = await abuse.getReport(trx, e.data.report_id);
      if (!report || report.mailed_at) return;
      const label = ABUSE_TYPES[report.abuse_type] ?? report.abuse_type;
      const extra = o.recipientsOf ? await o.recipientsOf(report.record_id) : [];
      const to = [...new Set([...o.to, ...extra])];
      await o.sender.send(abuseMail(report, { from: o.from, to, baseUrl: o.baseUrl, typeLabel: label }));
      await abuse.markMailed(trx, report.id);
    },
  });
}
