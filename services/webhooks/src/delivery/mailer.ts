/**
 * Mailer: consumer of `rdm.webhooks.subscription.disabled` (stream WEBHOOKS, durable
 * `webhooks-mailer`) that e-mails the subscription's owner (address from users'
 * `rdm.users.rpc.get-users`) that the webhook was disabled, and how to turn it on again.
 *
 * When to use: the only sender of webhook e-mails; the delivery worker writes the event in the
 * transaction that disables the subscription. An SMTP or users failure throws: the inbox
 * transaction rolls back and the message is redelivered with growing delays, so an outage delays
 * the mail but never loses it (a crash between the SMTP answer and the commit may send a second
 * copy, with the same Message-ID).
 */
import { RPC_SUBJECTS } from '@rdm/contracts';
import { callContract, consumerWorker, injectTraceHeaders, type Knex, type Logger, type NatsHandle } from '@rdm/platform';
import nodemailer from 'nodemailer';
import type { WebhooksConfig } from '../config.js';

/** Durable consumer name. */
export const MAILER_DURABLE = 'webhooks-mailer';

/** One message. */
export interface MailMessage {
  from: string;
  to: string[];
  subject: string;
  text: string;
  messageId: string;
}

/** Something that delivers mail. */
export interface MailSender {
  send(m: MailMessage): Promise<void>;
  close(): void;
}

/** The SMTP URL to use (SMTP_URL, else records' sink with MAIL_SINK), or null: no e-mail. */
export function smtpUrlOf(config: Pick<WebhooksConfig, 'SMTP_URL' | 'MAIL_SINK' | 'MAIL_SINK_PORT'>): string | null {
  if (config.SMTP_URL) return config.SMTP_URL;
  return config.MAIL_SINK ? `smtp://127.0.0.1:${config.MAIL_SINK_PORT}` : null;
}

/** An SMTP sender; short timeouts, no pooling. */
export function smtpSender(url: string): MailSender {
  const transport = nodemailer.createTransport(url, { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 } as never);
  return {
    async send(m) {
      await transport.sendMail({ from: m.from, to: m.to, subject: m.subject, text: m.text, messageId: m.messageId });
    },
    close: () => transport.close(),
  };
}

/** The e-mail telling an owner their webhook was disabled. */
export function disabledMail(
  d: { subscription_id: string; url: string; consecutive_failures: number; last_error?: string | null },
  o: { from: string; to: string; baseUrl: string; eventId: string },
): MailMessage {
  const api = `${o.baseUrl}/api/webhooks/${d.subscription_id}`;
  return {
    from: o.from,
    to: [o.to],
    subject: `Your webhook to ${new URL(d.url).host} was disabled`,
    text: [
      `Your webhook ${d.subscription_id} was disabled after ${d.consecutive_failures} failed deliveries in a row.`,
      '',
      `Target:     ${d.url}`,
      `Last error: ${d.last_error ?? 'unknown'}`,
      '',
      `Delivery log: ${api}/deliveries`,
      `Turn it on again once the target answers: PUT ${api} with {"active": true}.`,
      'Deliveries not yet given up are retried then.',
    ].join('\n'),
    messageId: `<${o.eventId}@${new URL(o.baseUrl).hostname}>`,
  };
}

/** The mailer as a runService worker. */
export function mailerWorker(o: {
  db: Knex;
  nats: NatsHandle;
  sender: MailSender;
  logger: Logger;
  from: string;
  baseUrl: string;
  rpcTimeoutMs: number;
}) {
  return consumerWorker({
    db: o.db,
    js: o.nats.js,
    jsm: o.nats.jsm,
    stream: 'WEBHOOKS',
    durable: MAILER_DURABLE,
    filterSubject: 'rdm.webhooks.subscription.disabled',
    logger: o.logger,
    service: 'webhooks',
    maxDeliver: 2000,
    backoffMs: [1000, 5000, 15000, 30000, 60000],
    handler: async (_trx, e) => {
      const r = await callContract(
        o.nats.nc,
        RPC_SUBJECTS.users.getUsers,
        { ids: [e.data.owner_id] },
        { timeoutMs: o.rpcTimeoutMs, headers: injectTraceHeaders() },
      );
      const user = (r?.users ?? [])[0] as { email?: string; active?: boolean } | undefined;
      if (!user?.email || user.active === false) {
        o.logger.info({ subscription: e.data.subscription_id }, 'webhooks mailer: owner without an address, no e-mail');
        return;
      }
      await o.sender.send(disabledMail(e.data, { from: o.from, to: user.email, baseUrl: o.baseUrl, eventId: e.id }));
    },
  });
}
