/**
 * Durable consumers of the communities service (inbox-deduplicated through the platform's
 * runConsumer; each effect commits in the same transaction as its inbox row):
 * - `rdm.requests.request.accepted|declined|cancelled|expired` (stream REQUESTS): invitations and
 *   membership requests → membership (MembersService.applyRequestEvent); other types ignored.
 * - `rdm.records.record.published` and `rdm.records.inclusion.added|removed` (stream RECORDS):
 *   community statistics (a parent counts once per community; files of its latest version).
 */
import { type ConsumerHandle, type EventEnvelope, type Knex, type Logger, type NatsHandle, runConsumer } from '@rdm/platform';
import type { EventData } from '@rdm/platform/contracts';
import { isUuid } from '../domain/community-input.js';
import type { MembersService } from '../domain/members.service.js';
import { addParent, removeParent, setParentCommunities, upsertParent } from '../repo/stats.repo.js';

/** Verbs of requests whose outcome communities applies. */
export const REQUEST_VERBS = ['accepted', 'declined', 'cancelled', 'expired'] as const;

/** Data of rdm.records.record.published (generated from proto/events). */
export type RecordPublished = EventData['rdm.records.record.published'];

/** Data of rdm.records.inclusion.added / removed (generated from proto/events). */
export type Inclusion = EventData['rdm.records.inclusion.added'];

/** Statistics effect of a publication. */
export async function onRecordPublished(trx: Knex.Transaction, e: EventEnvelope<RecordPublished>): Promise<void> {
  const d = e.data;
  if (d.is_latest !== false) {
    await upsertParent(trx, { parent_id: d.parent_id, record_id: d.id, files: d.files_count ?? 0, file_size: d.files_bytes ?? 0 });
  }
  if (Array.isArray(d.communities)) await setParentCommunities(trx, d.parent_id, d.communities.filter(isUuid));
}

/** Statistics effect of an inclusion change. */
export async function onInclusion(trx: Knex.Transaction, e: EventEnvelope<Inclusion>, added: boolean): Promise<void> {
  if (!isUuid(e.data.community_id)) return;
  if (added) await addParent(trx, e.data.community_id, e.data.parent_id);
  else await removeParent(trx, e.data.community_id, e.data.parent_id);
}

/** Start every consumer. */
export function startCommunitiesConsumers(opts: { db: Knex; nats: NatsHandle; members: MembersService; logger: Logger }): ConsumerHandle[] {
  const { db, nats, members, logger } = opts;
  const common = { db, js: nats.js, jsm: nats.jsm, logger, service: 'communities' };
  return [
    ...REQUEST_VERBS.map((verb) =>
      runConsumer<{ id: string; type: string }>({
        ...common,
        stream: 'REQUESTS',
        durable: `communities-request-${verb}`,
        filterSubject: `rdm.requests.request.${verb}`,
        handler: async (trx, e) => {
          await members.applyRequestEvent(trx, verb, e.data);
        },
      }),
    ),
    runConsumer<RecordPublished>({
      ...common,
      stream: 'RECORDS',
      durable: 'communities-record-published',
      filterSubject: 'rdm.records.record.published',
      handler: (trx, e) => onRecordPublished(trx, e),
    }),
    runConsumer<Inclusion>({
      ...common,
      stream: 'RECORDS',
      durable: 'communities-inclusion-added',
      filterSubject: 'rdm.records.inclusion.added',
      handler: (trx, e) => onInclusion(trx, e, true),
    }),
    runConsumer<Inclusion>({
      ...common,
      stream: 'RECORDS',
      durable: 'communities-inclusion-removed',
      filterSubject: 'rdm.records.inclusion.removed',
      handler: (trx, e) => onInclusion(trx, e, false),
    }),
  ];
}
