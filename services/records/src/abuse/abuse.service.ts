/**
 * Abuse reports (`POST /api/records/<id>/report-abuse`, spec: no authentication): validated,
 * stored and announced by `rdm.records.abuse.reported` in ONE transaction; the e-mail is sent
 * later by the mailer consumer (events/mailer.consumer.ts), so an accepted report (201) is never
 * lost while SMTP is down.
 *
 * When to use: the route calls `report`; nothing else writes `abuse_reports`.
 *
 * `abuseType` values (stable): `abusive` (abusive or inappropriate content), `copyright`
 * (copyrighted material), `not-research` (not research data), `illegal` (illegal content).
 */
import type { EventData } from '@rdm/contracts';
import { randomUUID } from 'node:crypto';
import { Errors, type FieldError, type Knex, withTransaction, writeOutbox } from '@rdm/platform';
import * as abuse from '../repo/abuse.repo.js';
import * as repo from '../repo/records.repo.js';

/** The contract's abuse types (`input.abuseType` is checked against `ABUSE_TYPES`, the same list). */
type AbuseType = EventData['rdm.records.abuse.reported']['abuse_type'];

/** The four reasons, value → label (the e-mail shows the label). */
export const ABUSE_TYPES: Record<string, string> = {
  abusive: 'Abusive or inappropriate content',
  copyright: 'Copyrighted material',
  'not-research': 'Not research data',
  illegal: 'Illegal content',
};

/** Field → [required, max length]. */
const FIELDS: Record<string, [boolean, number]> = {
  abuseType: [true, 32],
  name: [true, 255],
  email: [true, 254],
  affiliation: [false, 255],
  phone: [false, 64],
  address: [false, 255],
  city: [false, 255],
  zip: [false, 32],
  country: [false, 255],
  message: [true, 5000],
};

// A pragmatic address check (HTML5's `type=email` rule): local@domain with a dot-separated domain.
const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** Validate a report body; 400 with every field error at once. */
export function parseReport(body: unknown): Record<string, string> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw Errors.badRequest('Invalid JSON body: an object is expected.');
  const b = body as Record<string, unknown>;
  const out: Record<string, string> = {};
  const errors: FieldError[] = [];
  for (const [field, [required, max]] of Object.entries(FIELDS)) {
    const v = b[field];
    if (v === undefined || v === null || (typeof v === 'string' && !v.trim())) {
      if (required) errors.push({ field, messages: ['Missing data for required field.'] });
      out[field] = '';
      continue;
    }
    if (typeof v !== 'string') {
      errors.push({ field, messages: ['Not a valid string.'] });
      continue;
    }
    const s = v.trim();
    if (s.length > max) errors.push({ field, messages: [`Longer than maximum length ${max}.`] });
    else if (field === 'email' && !EMAIL.test(s)) errors.push({ field, messages: ['Not a valid email address.'] });
    else if (field === 'abuseType' && !(s in ABUSE_TYPES))
      errors.push({ field, messages: [`Must be one of: ${Object.keys(ABUSE_TYPES).join(', ')}.`] });
    out[field] = s;
  }
  if (errors.length) throw Errors.validation(errors);
  return out;
}

/** Accepts and stores abuse reports. */
export class AbuseService {
  constructor(private readonly d: { db: Knex }) {}

  /** POST /api/records/{id}/report-abuse: 404 for an unknown or unpublished id, 410 deleted. */
  async report(recordId: string, body: unknown): Promise<{ id: string }> {
    const input = parseReport(body);
    const record = await repo.getRecord(this.d.db, recordId);
    if (!record) throw Errors.pidDoesNotExist();
    if (record.deletion_status !== 'P') throw Errors.gone();
    const id = randomUUID();
    await withTransaction(this.d.db, async (trx) => {
      await abuse.insertReport(trx, {
        id,
        record_id: recordId,
        abuse_type: input.abuseType!,
        name: input.name!,
        email: input.email!,
        affiliation: input.affiliation!,
        phone: input.phone!,
        address: input.address!,
        city: input.city!,
        zip: input.zip!,
        country: input.country!,
        message: input.message!,
      });
      await writeOutbox(trx, {
        subject: 'rdm.records.abuse.reported',
        aggregate: { type: 'abuse-report', id, revision: 1 },
        data: { report_id: id, record_id: recordId, parent_id: record.parent_id, abuse_type: input.abuseType as AbuseType },
      });
    });
    return { id };
  }
}
