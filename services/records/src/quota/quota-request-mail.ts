/**
 * The e-mails of owners' quota-increase requests: to the site's moderation address when a request
 * waits for an administrator, and to the owner once the quota was raised or the request declined.
 * Pure builders; `events/quota-requests.consumer.ts` sends them.
 */
import type { MailMessage } from '../mail/mailer.js';

const host = (baseUrl: string) => new URL(baseUrl).hostname;

/** Bytes as people read them (decimal units, as InvenioRDM shows sizes). */
export function humanBytes(n: number): string {
  const units = ['bytes', 'kB', 'MB', 'GB', 'TB', 'PB'];
  let v = n;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return i === 0 ? `${n} bytes` : `${Number(v.toFixed(2))} ${units[i]}`;
}

/** To the administrators: a quota request waits for them. */
export function quotaRequestedMail(o: {
  from: string;
  to: string[];
  baseUrl: string;
  requestId: string;
  draftId: string;
  title: string;
  quotaSize: number;
  reason: string;
}): MailMessage {
  return {
    from: o.from,
    to: o.to,
    subject: `Quota increase requested for "${o.title}"`,
    text: [
      `The owner of the draft "${o.title}" (${o.baseUrl}/uploads/${o.draftId}) asks for a bucket quota of ${humanBytes(o.quotaSize)} (${o.quotaSize} bytes).`,
      '',
      o.reason,
      '',
      `Accept or decline the request: ${o.baseUrl}/api/requests/${o.requestId}`,
    ].join('\n'),
    messageId: `<quota-request-${o.requestId}@${host(o.baseUrl)}>`,
  };
}

/** To the owner: the outcome of their request (`granted` with the quota now in force, or `declined`). */
export function quotaOutcomeMail(o: {
  from: string;
  to: string[];
  baseUrl: string;
  requestId: string;
  draftId: string;
  title: string;
  outcome: 'granted' | 'declined';
  quotaBytes?: number;
}): MailMessage {
  const granted = o.outcome === 'granted';
  return {
    from: o.from,
    to: o.to,
    subject: granted ? `Your quota increase for "${o.title}" was granted` : `Your quota increase request for "${o.title}" was declined`,
    text: [
      granted
        ? `The files of your draft "${o.title}" (${o.baseUrl}/uploads/${o.draftId}) may now take up to ${humanBytes(o.quotaBytes ?? 0)} (${o.quotaBytes ?? 0} bytes).`
        : `An administrator declined your request for a larger quota for the draft "${o.title}" (${o.baseUrl}/uploads/${o.draftId}).`,
      '',
      `The request and its conversation: ${o.baseUrl}/api/requests/${o.requestId}`,
    ].join('\n'),
    messageId: `<quota-${o.outcome}-${o.requestId}@${host(o.baseUrl)}>`,
  };
}
