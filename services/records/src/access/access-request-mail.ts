/**
 * The e-mails of access requests: the guest's verification link and, once the owner accepted,
 * the guest's secret link. Pure builders; the mailer consumer (events/access-requests.consumer.ts)
 * sends them from the outbox.
 */
import type { MailMessage } from '../mail/mailer.js';

const HOURS = 6;

/** Where a guest confirms their address (the API path this service serves). */
export function confirmUrl(baseUrl: string, recordId: string, token: string): string {
  return `${baseUrl}/api/records/${encodeURIComponent(recordId)}/access/request/confirm?access_request_token=${encodeURIComponent(token)}`;
}

/** The verification e-mail to a guest. */
export function verificationMail(o: {
  from: string;
  baseUrl: string;
  tokenId: string;
  recordId: string;
  title: string;
  email: string;
  fullName: string;
  token: string;
}): MailMessage {
  const url = confirmUrl(o.baseUrl, o.recordId, o.token);
  return {
    from: o.from,
    to: [o.email],
    subject: `Confirm your access request for "${o.title}"`,
    text: [
      `Dear ${o.fullName},`,
      '',
      `you asked for access to the record "${o.title}" (${o.baseUrl}/records/${o.recordId}).`,
      `Please confirm your e-mail address within ${HOURS} hours by opening this link:`,
      '',
      url,
      '',
      'The owner of the record is then asked to accept your request. If you did not ask for access, ignore this e-mail.',
    ].join('\n'),
    messageId: `<access-token-${o.tokenId}@${new URL(o.baseUrl).hostname}>`,
  };
}

/** The e-mail granting a guest access by a secret link. */
export function linkGrantedMail(o: {
  from: string;
  baseUrl: string;
  requestId: string;
  recordId: string;
  title: string;
  email: string;
  token: string;
  expiresAt: string | null;
}): MailMessage {
  const t = encodeURIComponent(o.token);
  return {
    from: o.from,
    to: [o.email],
    subject: `Access granted to "${o.title}"`,
    text: [
      `Your request for access to the record "${o.title}" was accepted.`,
      '',
      `Record: ${o.baseUrl}/records/${o.recordId}?token=${t}`,
      `API:    ${o.baseUrl}/api/records/${o.recordId}?token=${t}`,
      '',
      o.expiresAt ? `The link works until ${o.expiresAt} (00:00 UTC).` : 'The link does not expire.',
      'Keep it private: whoever has it can read the record and its files.',
      '',
      `Request: ${o.baseUrl}/api/requests/${o.requestId}`,
    ].join('\n'),
    messageId: `<access-link-${o.requestId}@${new URL(o.baseUrl).hostname}>`,
  };
}
