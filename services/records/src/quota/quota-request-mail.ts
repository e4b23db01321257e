/**
 * The e-mails of owners' quota-increase requests: to the site's moderation address when a request
 * waits for an administrator, and to the owner once the quota was raised or the request declined.
 * Pure builders; `events/quota-requests.consumer.ts` sends them.
 */
import type { MailMessage } from '../mail/mailer.js';
import { type RecordRequestMailBase, recordRequestMail } from '../record-requests/record-request-mail.js';

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
export function quotaRequestedMail(o: RecordRequestMailBase & { quotaSize: number; reason: string }): MailMessage {
  return recordRequestMail(o, {
    subject: `Quota increase requested for "${o.title}"`,
    lines: [
      `The owner of the draft "${o.title}" (${o.baseUrl}/uploads/${o.topicId}) asks for a bucket quota of ${humanBytes(o.quotaSize)} (${o.quotaSize} bytes).`,
      '',
      o.reason,
    ],
    idPrefix: 'quota-request',
    link: 'decide',
  });
}

/** To the owner: the outcome of their request (`granted` with the quota now in force, or `declined`). */
export function quotaOutcomeMail(o: RecordRequestMailBase & { outcome: 'granted' | 'declined'; quotaBytes?: number }): MailMessage {
  const granted = o.outcome === 'granted';
  return recordRequestMail(o, {
    subject: granted ? `Your quota increase for "${o.title}" was granted` : `Your quota increase request for "${o.title}" was declined`,
    lines: [
      granted
        ? `The files of your draft "${o.title}" (${o.baseUrl}/uploads/${o.topicId}) may now take up to ${humanBytes(o.quotaBytes ?? 0)} (${o.quotaBytes ?? 0} bytes).`
        : `An administrator declined your request for a larger quota for the draft "${o.title}" (${o.baseUrl}/uploads/${o.topicId}).`,
    ],
    idPrefix: `quota-${o.outcome}`,
    link: 'conversation',
  });
}
