/**
 * Durable consumers of the communities service (inbox-deduplicated through the platform's
 * runConsumer; each effect commits in the same transaction as its inbox row):
 * - `rdm.requests.request.accepted|declined|cancelled|expired` (stream REQUESTS): invitations and
 *   membership requests → membership (MembersService.applyRequestEvent); other types ignored.
 * - `rdm.records.record.published` and `rdm.records.inclusion.added|removed` (stream RECORDS):
 *   community statistics (a parent counts once per community; files of its latest version, from
 *   whichever of the two events is later in the stream). Publications of parents in no community
 *   are skipped (`ignoresPublication`): no transaction, no inbox row.
 */
import { type ConsumerHandle, type EventEnvelope, type Knex, type Logger, type NatsHandle, runConsumer } from '@rdm/platform';
import type { EventData } from '@rdm/contracts';
import { isUuid } from '../domain/community-input.js';
import type { MembersService } from '../domain/members.service.js';
import { addParent, removeParent, setParentCommunities, upsertParent } from '../repo/stats.repo.js';

/** Verbs of requests whose outcome communities applies. */
export const REQUEST_VERBS = ['accepted', 'declined', 'cancelled', 'expired'] as const;

/** Data of rdm.records.record.published (generated from proto/events). */
export type RecordPublished = EventData['rdm.records.record.published'];

/** Data of rdm.records.inclusion.added / removed (generated from proto/events). */
export type Inclusion = EventData['rdm.records.inclusion.added'];

/**
 * Publications communities has nothing to do with: the parent is in no community (the event
 * omits `communities` then), so no statistic counts it. Its files come with `inclusion.added`
 * if it ever joins one. Acked without a transaction or an inbox row (issue 14).
 */
export function ignoresPublication(e: EventEnvelope<RecordPublished>): boolean {
  return !Array.isArray(e.data.communities) || e.data.communities.length === 0;
}

/** Statistics effect of a publication (`seq`: its RECORDS stream sequence). */
export async function onRecordPublished(trx: Knex.Transaction, e: EventEnvelope<RecordPublished>, seq: number): Promise<void> {
  const d = e.data;
  if (d.is_latest !== false) {
    await upsertParent(trx, { parent_id: d.parent_id, record_id: d.id, files: d.files_count ?? 0, file_size: d.files_bytes ?? 0, seq });
  }
  if (Array.isArray(d.communities)) await setParentCommunities(trx, d.parent_id, d.communities.filter(isUuid));
}

/** Statistics effect of an inclusion change (`seq`: its RECORDS stream sequence). */
export async function onInclusion(trx: Knex.Transaction, e: EventEnvelope<Inclusion>, added: boolean, seq = 0): Promise<void> {
  if (!isUuid(e.data.community_id)) return;
  const d = e.data;
  // The latest version's files (records sends them since publications of parents in no community are skipped).
  if (added && d.files_count !== undefined)
    await upsertParent(trx, { parent_id: d.parent_id, record_id: d.record_id, files: d.files_count, file_size: d.files_bytes ?? 0, seq });
  if (added) await addParent(trx, d.community_id, d.parent_id);
  else await removeParent(trx, d.community_id, d.parent_id);
}

/** Start every consumer. */
export function startCommunitiesConsumers(opts: { db: Knex; nats: NatsHandle; members: MembersService; logger: Logger }): ConsumerHandle[] {
  const { db, nats, members, logger } = opts;
  const common = { db, js: nats.js, jsm: nats.jsm, logger, service: 'communities' };
  return [
    ...REQUEST_VERBS.map((verb) =>
      runConsumer({
        ...common,
        stream: 'REQUESTS',
        durable: `communities-request-${verb}`,
        filterSubject: `rdm.requests.request.${verb}`,
        handler: async (trx, e) => {
          await members.applyRequestEvent(trx, verb, e.data);
        },
      }),
    ),
    runConsumer({
      ...common,
      stream: 'RECORDS',
      durable: 'communities-record-published',
      filterSubject: 'rdm.records.record.published',
      skip: ignoresPublication,
      handler: (trx, e, msg) => onRecordPublished(trx, e, msg.seq),
    }),
    runConsumer({
      ...common,
      stream: 'RECORDS',
      durable: 'communities-inclusion-added',
      filterSubject: 'rdm.records.inclusion.added',
      handler: (trx, e, msg) => onInclusion(trx, e, true, msg.seq),
    }),
    runConsumer({
      ...common,
      stream: 'RECORDS',
      durable: 'communities-inclusion-removed',
      filterSubject: 'rdm.records.inclusion.removed',
      handler: (trx, e, msg) => onInclusion(trx, e, false, msg.seq),
    }),
  ];
}
