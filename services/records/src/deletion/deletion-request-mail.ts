/**
 * The e-mails of owners' record-deletion requests: to the site's moderation address when a
 * request waits for an administrator, and to the owner once the record was deleted or the request
 * declined. Pure builders; `events/deletion-requests.consumer.ts` sends them from the outbox.
 */
import type { MailMessage } from '../mail/mailer.js';

const host = (baseUrl: string) => new URL(baseUrl).hostname;

/** To the administrators: a deletion request waits for them. */
export function deletionRequestedMail(o: {
  from: string;
  to: string[];
  baseUrl: string;
  requestId: string;
  recordId: string;
  title: string;
  reason: string;
  comment: string;
}): MailMessage {
  return {
    from: o.from,
    to: o.to,
    subject: `Deletion requested for "${o.title}"`,
    text: [
      `The owner of the record "${o.title}" (${o.baseUrl}/records/${o.recordId}) asks for its deletion.`,
      `Reason: ${o.reason}`,
      ...(o.comment ? ['', o.comment] : []),
      '',
      `Accept or decline the request: ${o.baseUrl}/api/requests/${o.requestId}`,
    ].join('\n'),
    messageId: `<deletion-request-${o.requestId}@${host(o.baseUrl)}>`,
  };
}

/** To the owner: the outcome of their request (`deleted` or `declined`). */
export function deletionOutcomeMail(o: {
  from: string;
  to: string[];
  baseUrl: string;
  requestId: string;
  recordId: string;
  title: string;
  outcome: 'deleted' | 'declined';
}): MailMessage {
  const deleted = o.outcome === 'deleted';
  return {
    from: o.from,
    to: o.to,
    subject: deleted ? `Your record "${o.title}" was deleted` : `Your deletion request for "${o.title}" was declined`,
    text: [
      deleted
        ? `Following your request, the record "${o.title}" (${o.baseUrl}/records/${o.recordId}) was deleted; its page now shows a tombstone.`
        : `An administrator declined your request to delete the record "${o.title}" (${o.baseUrl}/records/${o.recordId}).`,
      '',
      `The request and its conversation: ${o.baseUrl}/api/requests/${o.requestId}`,
    ].join('\n'),
    messageId: `<deletion-${o.outcome}-${o.requestId}@${host(o.baseUrl)}>`,
  };
}
