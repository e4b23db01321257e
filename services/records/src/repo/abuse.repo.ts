/** SQL of abuse reports (table `abuse_reports`, migration 20261123000100). No domain rules here. */
import type { Knex } from '@rdm/platform';

type Db = Knex | Knex.Transaction;

/** A stored abuse report. */
export interface AbuseReportRow {
  id: string;
  record_id: string;
  abuse_type: string;
  name: string;
  email: string;
  affiliation: string;
  phone: string;
  address: string;
  city: string;
  zip: string;
  country: string;
  message: string;
  created?: Date;
  mailed_at?: Date | null;
}

/** Insert a report. */
export async function insertReport(db: Db, row: AbuseReportRow): Promise<void> {
  await db('abuse_reports').insert(row);
}

/** A report by id. */
export async function getReport(db: Db, id: string): Promise<AbuseReportRow | undefined> {
  return db<AbuseReportRow>('abuse_reports').where({ id }).first();
}

/** Mark a report as mailed. */
export async function markMailed(db: Db, id: string): Promise<void> {
  await db('abuse_reports').where({ id }).update({ mailed_at: new Date() });
}
