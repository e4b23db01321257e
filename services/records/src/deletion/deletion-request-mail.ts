/**
 * The e-mails of owners' record-deletion requests: to the site's moderation address when a
 * request waits for an administrator, and to the owner once the record was deleted or the request
 * declined. Pure builders; `events/deletion-requests.consumer.ts` sends them from the outbox.
 */
import type { MailMessage } from '../mail/mailer.js';
import { type RecordRequestMailBase, recordRequestMail } from '../record-requests/record-request-mail.js';

/** To the administrators: a deletion request waits for them. */
export function deletionRequestedMail(o: RecordRequestMailBase & { reason: string; comment: string }): MailMessage {
  return recordRequestMail(o, {
    subject: `Deletion requested for "${o.title}"`,
    lines: [
      `The owner of the record "${o.title}" (${o.baseUrl}/records/${o.topicId}) asks for its deletion.`,
      `Reason: ${o.reason}`,
      ...(o.comment ? ['', o.comment] : []),
    ],
    idPrefix: 'deletion-request',
    link: 'decide',
  });
}

/** To the owner: the outcome of their request (`deleted` or `declined`). */
export function deletionOutcomeMail(o: RecordRequestMailBase & { outcome: 'deleted' | 'declined' }): MailMessage {
  const deleted = o.outcome === 'deleted';
  return recordRequestMail(o, {
    subject: deleted ? `Your record "${o.title}" was deleted` : `Your deletion request for "${o.title}" was declined`,
    lines: [
      deleted
        ? `Following your request, the record "${o.title}" (${o.baseUrl}/records/${o.topicId}) was deleted; its page now shows a tombstone.`
        : `An administrator declined your request to delete the record "${o.title}" (${o.baseUrl}/records/${o.topicId}).`,
    ],
    idPrefix: `deletion-${o.outcome}`,
    link: 'conversation',
  });
}
