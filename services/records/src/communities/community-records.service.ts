/**
 * A community's records, from the community's side (reference invenio-records §4.2):
 * `DELETE /api/communities/<id or slug>/records` `{records: [{id}]}` removes records from the
 * community. Only curators, managers and owners of the community (and administrators, the system)
 * may, as InvenioRDM's `remove_record` (a record's owner removes their record through
 * `DELETE /api/records/<id>/communities` instead); anyone else gets 403, or 404 when the community
 * is restricted and they are not a member, the answer of an unknown community, so the route tells
 * nobody that a restricted slug exists. Per-record refusals come
 * back as `{errors: [{record, message}]}` with 200, as InvenioRDM answers; the removals that are
 * allowed are written in ONE transaction, each parent with its `rdm.records.inclusion.removed`
 * (the communities service keeps its statistics from it).
 *
 * When to use: the community-records routes only. (The search of a community's records is
 * search.service's `searchCommunityRecords`.)
 */
import { Errors, type Identity, isAdmin, isSystem, type Knex, withTransaction } from '@rdm/platform';
import * as repo from '../repo/records.repo.js';
import type { RecordCommunitiesService } from './record-communities.service.js';
import { INCLUSION_MESSAGES } from '../domain/errors.js';
import { type CommunitiesPort, CURATOR_ROLES } from '../domain/ports.js';

/** Most records handled by one call (InvenioRDM's `max_number`). */
export const MAX_RECORDS_PER_CALL = 10;

/** Dependencies of the component. */
export interface CommunityRecordsDeps {
  db: Knex;
  communities: CommunitiesPort;
  inclusions: RecordCommunitiesService;
}

/** One refused record. */
export interface RecordRemovalError {
  record: string;
  message: string;
}

const isObj = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `{records: [{id}]}` → the ids, de-duplicated (400 when malformed or too many). */
export function parseRecordIds(body: unknown): string[] {
  const list = isObj(body) ? body.records : undefined;
  if (list === undefined || list === null) throw Errors.validation([{ field: 'records', messages: ['Missing data for required field.'] }]);
  if (!Array.isArray(list)) throw Errors.validation([{ field: 'records', messages: ['Not a valid list.'] }]);
  if (list.length === 0) throw Errors.validation([{ field: 'records', messages: ['Shorter than minimum length 1.'] }]);
  if (list.length > MAX_RECORDS_PER_CALL) {
    throw Errors.badRequest(`Exceeded maximum amount of records that can be updated at once: ${MAX_RECORDS_PER_CALL}.`);
  }
  const ids = list.map((r, i) => {
    if (!isObj(r) || typeof r.id !== 'string' || r.id === '') {
      throw Errors.validation([{ field: `records.${i}.id`, messages: ['Missing data for required field.'] }]);
    }
    return r.id;
  });
  return [...new Set(ids)];
}

/** Removal of records by the community side. */
export class CommunityRecordsService {
  constructor(private readonly d: CommunityRecordsDeps) {}

  /** DELETE /api/communities/<id or slug>/records: `{}` or `{errors}` (200); 403 non-curators; 404/410 for the community. */
  async remove(identity: Identity, idOrSlug: string, body: unknown): Promise<{ errors?: RecordRemovalError[] }> {
    if (identity.sub === null && !isSystem(identity)) throw Errors.permissionDenied();
    const [community] = await this.d.communities.get([idOrSlug]);
    if (!community) throw Errors.pidDoesNotExist();
    const privileged = isAdmin(identity) || isSystem(identity);
    const role =
      privileged || identity.sub === null ? undefined : (await this.d.communities.roles(identity.sub, [community.id]))[community.id];
    if (!privileged && !CURATOR_ROLES.includes(role as never)) {
      // Why before the deletion check: a non-member learns nothing about a restricted community.
      if (community.visibility === 'restricted' && !role) throw Errors.pidDoesNotExist();
      throw Errors.permissionDenied();
    }
    if (community.is_deleted) throw Errors.gone();
    const ids = parseRecordIds(body);
    const errors: RecordRemovalError[] = [];
    await withTransaction(this.d.db, async (trx) => {
      for (const id of ids) {
        const message = await this.removeOne(trx, id, community.id);
        if (message) errors.push({ record: id, message });
      }
    });
    return errors.length ? { errors } : {};
  }

  /** Remove one record in `trx`; the refusal's message, or undefined when removed. */
  private async removeOne(trx: Knex.Transaction, id: string, communityId: string): Promise<string | undefined> {
    const record = await repo.getRecord(trx, id);
    if (!record || record.deletion_status !== 'P') return Errors.pidDoesNotExist().message;
    const parent = await repo.getParent(trx, record.parent_id, true);
    if (!parent) return Errors.pidDoesNotExist().message;
    const removed = await this.d.inclusions.removeFromParent(trx, parent, [communityId], id);
    return removed.length ? undefined : INCLUSION_MESSAGES.notIncluded;
  }
}
