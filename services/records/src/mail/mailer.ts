/**
 * Outgoing e-mail over SMTP (`nodemailer`), and the abuse-report message.
 *
 * When to use: only the mailer consumer (events/mailer.consumer.ts) sends mail, from the outbox;
 * request handlers never talk to SMTP.
 */
import nodemailer from 'nodemailer';
import type { AbuseReportRow } from '../repo/abuse.repo.js';

/** One message to send. */
export interface MailMessage {
  from: string;
  to: string[];
  replyTo?: string;
  subject: string;
  text: string;
  /** Stable id (`<report id@host>`): a rare second delivery carries the same Message-ID. */
  messageId: string;
}

/** Something that delivers mail (rejects when the server cannot take it). */
export interface MailSender {
  send(m: MailMessage): Promise<void>;
  close(): void;
}

/** An SMTP sender for `smtp://[user:pass@]host:port` (or `smtps://`); short timeouts, no pooling. */
export function smtpSender(url: string): MailSender {
  const transport = nodemailer.createTransport(url, { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 } as never);
  return {
    async send(m) {
      await transport.sendMail({ from: m.from, to: m.to, replyTo: m.replyTo, subject: m.subject, text: m.text, messageId: m.messageId });
    },
    close: () => transport.close(),
  };
}

/** The abuse-report e-mail. */
export function abuseMail(r: AbuseReportRow, o: { from: string; to: string[]; baseUrl: string; typeLabel: string }): MailMessage {
  const lines = [
    `A user reported record ${r.record_id} for: ${o.typeLabel} (${r.abuse_type}).`,
    '',
    `Record: ${o.baseUrl}/records/${r.record_id}`,
    `API:    ${o.baseUrl}/api/records/${r.record_id}`,
    '',
    `Name:        ${r.name}`,
    `E-mail:      ${r.email}`,
    `Affiliation: ${r.affiliation}`,
    `Phone:       ${r.phone}`,
    `Address:     ${r.address}, ${r.zip} ${r.city}, ${r.country}`,
    '',
    'Message:',
    r.message,
    '',
    `Report id: ${r.id}`,
  ];
  return {
    from: o.from,
    to: o.to,
    replyTo: r.email,
    subject: `Abuse report for record ${r.record_id}: ${o.typeLabel}`,
    text: lines.join('\n'),
    messageId: `<${r.id}@${new URL(o.baseUrl).hostname}>`,
  };
}
