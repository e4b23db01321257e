/**
 * The e-mails of owners' file-modification requests: to the site's moderation address when a
 * request waits for an administrator, and to the owner once the files were unlocked or the
 * request declined. Pure builders; `events/file-modification-requests.consumer.ts` sends them.
 */
import type { MailMessage } from '../mail/mailer.js';
import { type RecordRequestMailBase, recordRequestMail } from '../record-requests/record-request-mail.js';

/** To the administrators: a file-modification request waits for them. */
export function fileModificationRequestedMail(o: RecordRequestMailBase & { comment: string }): MailMessage {
  return recordRequestMail(o, {
    subject: `File modification requested for "${o.title}"`,
    lines: [
      `The owner of the record "${o.title}" (${o.baseUrl}/records/${o.topicId}) asks to modify its files after the grace period.`,
      ...(o.comment ? ['', o.comment] : []),
    ],
    idPrefix: 'file-modification-request',
    link: 'decide',
  });
}

/** To the owner: the outcome of their request (`unlocked` or `declined`). */
export function fileModificationOutcomeMail(o: RecordRequestMailBase & { outcome: 'unlocked' | 'declined' }): MailMessage {
  const unlocked = o.outcome === 'unlocked';
  return recordRequestMail(o, {
    subject: unlocked ? `The files of "${o.title}" are unlocked` : `Your file modification request for "${o.title}" was declined`,
    lines: [
      unlocked
        ? `The files of your record "${o.title}" (${o.baseUrl}/records/${o.topicId}) may now be changed: edit the record, change its files in the draft and publish it.`
        : `An administrator declined your request to modify the files of the record "${o.title}" (${o.baseUrl}/records/${o.topicId}).`,
    ],
    idPrefix: `file-modification-${o.outcome}`,
    link: 'conversation',
  });
}
