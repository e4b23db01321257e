/**
 * `record_parents.seq`: the RECORDS stream sequence of the event that last wrote the row. Both
 * `record.published` and `inclusion.added` (which now carries the latest version's files) write
 * it, from independent consumers; the sequence keeps an older event from overwriting a newer one
 * whichever is applied last. Rows written before this column start at 0 (any event is newer).
 */
import type { Knex } from '@rdm/platform';

/** Add the column (idempotent). */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE record_parents ADD COLUMN IF NOT EXISTS seq bigint NOT NULL DEFAULT 0');
}
