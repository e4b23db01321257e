/**
 * The e-mails of owners' file-modification requests: to the site's moderation address when a
 * request waits for an administrator, and to the owner once the files were unlocked or the
 * request declined. Pure builders; `events/file-modification-requests.consumer.ts` sends them.
 */
import type { MailMessage } from '../mail/mailer.js';

const host = (baseUrl: string) => new URL(baseUrl).hostname;

/** To the administrators: a file-modification request waits for them. */
export function fileModificationRequestedMail(o: {
  from: string;
  to: string[];
  baseUrl: string;
  requestId: string;
  recordId: string;
  title: string;
  comment: string;
}): MailMessage {
  return {
    from: o.from,
    to: o.to,
    subject: `File modification requested for "${o.title}"`,
    text: [
      `The owner of the record "${o.title}" (${o.baseUrl}/records/${o.recordId}) asks to modify its files after the grace period.`,
      ...(o.comment ? ['', o.comment] : []),
      '',
      `Accept or decline the request: ${o.baseUrl}/api/requests/${o.requestId}`,
    ].join('\n'),
    messageId: `<file-modification-request-${o.requestId}@${host(o.baseUrl)}>`,
  };
}

/** To the owner: the outcome of their request (`unlocked` or `declined`). */
export function fileModificationOutcomeMail(o: {
  from: string;
  to: string[];
  baseUrl: string;
  requestId: string;
  recordId: string;
  title: string;
  outcome: 'unlocked' | 'declined';
}): MailMessage {
  const unlocked = o.outcome === 'unlocked';
  return {
    from: o.from,
    to: o.to,
    subject: unlocked ? `The files of "${o.title}" are unlocked` : `Your file modification request for "${o.title}" was declined`,
    text: [
      unlocked
        ? `The files of your record "${o.title}" (${o.baseUrl}/records/${o.recordId}) may now be changed: edit the record, change its files in the draft and publish it.`
        : `An administrator declined your request to modify the files of the record "${o.title}" (${o.baseUrl}/records/${o.recordId}).`,
      '',
      `The request and its conversation: ${o.baseUrl}/api/requests/${o.requestId}`,
    ].join('\n'),
    messageId: `<file-modification-${o.outcome}-${o.requestId}@${host(o.baseUrl)}>`,
  };
}
