/**
 * Idempotent loading of vocabularies into the database (the `migrate` command, tests, tools).
 *
 * When to use: `loadVocabularies(db, readFixtures().vocabularies)`. Everything runs in ONE
 * transaction under an advisory lock, so two concurrent `migrate` runs load one after the other
 * and a failure leaves the previous content intact. Each type is upserted; an entry whose
 * content is unchanged keeps its `revision_id` and `updated`, a changed one gets revision + 1.
 * Entries absent from the fixtures are left alone (like InvenioRDM's fixtures, loading never
 * deletes). For every type whose content changed (created, inserted or updated entries), the
 * type's revision is bumped and `rdm.vocabularies.vocabulary.loaded` `{type, count}` is written
 * to the outbox in the same transaction; serving replicas clear their entry caches on it. For the
 * large vocabularies, `rdm.vocabularies.entries.changed` `{type, ids}` (≤ 500 ids each) name the
 * changed entries for the search indexer (one bulk request per batch of events).
 */
import { type Knex, writeOutbox } from '@rdm/platform';
import { toRowInput } from './documents.js';
import type { FixtureVocabulary } from './fixtures.js';
import { isIndexedType, kindOf } from './kinds.js';
import { bumpTypeRevision, countEntries, entryHashes, lockType, upsertEntries, upsertType } from '../repo/vocabularies.repo.js';

/** The event announcing a (re)loaded vocabulary type. */
export const LOADED_SUBJECT = 'rdm.vocabularies.vocabulary.loaded';
/** The event naming changed entries of a large (search-engine indexed) vocabulary. */
export const ENTRIES_CHANGED_SUBJECT = 'rdm.vocabularies.entries.changed';
/** Most ids one `entries.changed` event carries. */
const IDS_PER_EVENT = 500;

/** Write `entries.changed` for `ids` of `type` (chunks of 500 ids) to the outbox, in `trx`. */
export async function writeEntriesChanged(trx: Knex.Transaction, type: string, revision: number, ids: string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += IDS_PER_EVENT) {
    await writeOutbox(trx, {
      subject: ENTRIES_CHANGED_SUBJECT,
      aggregate: { type: 'vocabulary', id: type, revision },
      // A chunk is never empty (i < ids.length), as the contract's minItems 1 wants.
      data: { type, ids: ids.slice(i, i + IDS_PER_EVENT) as [string, ...string[]] },
    });
  }
}

/** What loading did to one type. */
export interface LoadResult {
  type: string;
  /** The type row was created. */
  createdType: boolean;
  inserted: number;
  updated: number;
  unchanged: number;
  /** Entries of the type after the load. */
  count: number;
  /** An event was written (something changed). */
  emitted: boolean;
}

/** Upsert the given vocabularies in one transaction; returns what changed per type. */
export async function loadVocabularies(db: Knex, vocabularies: FixtureVocabulary[]): Promise<LoadResult[]> {
  return db.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', ['rdm:vocabularies:load']);
    const results: LoadResult[] = [];
    for (const v of vocabularies) {
      const createdType = await upsertType(trx, { id: v.type, pid_type: v.pidType, is_custom: kindOf(v.type) !== 'generic' });
      await lockType(trx, v.type);
      // Why: skip unchanged rows before building tsvectors; a re-run of migrate then costs one read per type.
      const known = await entryHashes(trx, v.type);
      const rows = v.entries.map((doc) => toRowInput(v.type, doc)).filter((r) => known.get(r.id) !== r.content_hash);
      const { inserted, updated, ids } = await upsertEntries(trx, rows);
      const changed = createdType || inserted > 0 || updated > 0;
      const count = await countEntries(trx, v.type);
      if (changed) {
        const revision = createdType ? 1 : await bumpTypeRevision(trx, v.type);
        await writeOutbox(trx, {
          subject: LOADED_SUBJECT,
          aggregate: { type: 'vocabulary', id: v.type, revision },
          data: { type: v.type, count },
        });
        if (isIndexedType(v.type)) await writeEntriesChanged(trx, v.type, revision, ids);
      }
      results.push({
        type: v.type,
        createdType,
        inserted,
        updated,
        unchanged: v.entries.length - inserted - updated,
        count,
        emitted: changed,
      });
    }
    return results;
  });
}
