/**
 * The common frame of owners' record-request e-mails: the administrators' "a request waits for
 * you" (ending with the link to accept or decline it) and the owner's outcome (ending with the
 * link to the request's conversation), with a stable Message-ID. The types supply their subject,
 * their lines and their Message-ID prefix.
 *
 * When to use: the mail texts of a `RecordRequestWorkersDef` (deletion, quota, file modification).
 */
import type { MailMessage } from '../mail/mailer.js';

/** What every record-request mail is about: the request and its record or draft. */
export interface RecordRequestMailBase {
  from: string;
  to: string[];
  baseUrl: string;
  requestId: string;
  /** The record's (or draft's) id. */
  topicId: string;
  title: string;
}

/** A record-request mail: `lines`, then the link for administrators (`decide`) or the owner (`conversation`). */
export function recordRequestMail(
  o: RecordRequestMailBase,
  m: { subject: string; lines: string[]; idPrefix: string; link: 'decide' | 'conversation' },
): MailMessage {
  const url = `${o.baseUrl}/api/requests/${o.requestId}`;
  return {
    from: o.from,
    to: o.to,
    subject: m.subject,
    text: [...m.lines, '', m.link === 'decide' ? `Accept or decline the request: ${url}` : `The request and its conversation: ${url}`].join(
      '\n',
    ),
    messageId: `<${m.idPrefix}-${o.requestId}@${new URL(o.baseUrl).hostname}>`,
  };
}
