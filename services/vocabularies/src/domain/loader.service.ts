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
 * to the outbox in the same transaction; serving replicas clear their entry caches on it.
 */
import { type Knex, writeOutbox } from '@rdm/platform';
import { toRowInput } from './documents.js';
import type { FixtureVocabulary } from './fixtures.js';
import { kindOf } from './kinds.js';
import { bumpTypeRevision, countEntries, entryHashes, upsertEntries, upsertType } from '../repo/vocabularies.repo.js';

/** The event announcing a (re)loaded vocabulary type. */
export const LOADED_SUBJECT = 'rdm.vocabularies.vocabulary.loaded';

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
      // Why: skip unchanged rows before building tsvectors; a re-run of migrate then costs one read per type.
      const known = await entryHashes(trx, v.type);
      const rows = v.entries.map((doc) => toRowInput(v.type, doc)).filter((r) => known.get(r.id) !== r.content_hash);
      const { inserted, updated } = await upsertEntries(trx, rows);
      const changed = createdType || inserted > 0 || updated > 0;
      const count = await countEntries(trx, v.type);
      if (changed) {
        const revision = createdType ? 1 : await bumpTypeRevision(trx, v.type);
        await writeOutbox(trx, {
          subject: LOADED_SUBJECT,
          aggregate: { type: 'vocabulary', id: v.type, revision },
          data: { type: v.type, count },
        });
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
