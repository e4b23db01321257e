/**
 * Member search vectors without the e-mail address (issue 18, item 9): the address the users
 * service hands over is unfiltered, so a free-text member search matched co-members' hidden
 * addresses. New rows are written without it (`repo.memberVector`); this recomputes the stored
 * vectors of `members` and `archived_requests` from name, username and affiliations. Idempotent
 * (recomputing gives the same vector). Search-engine deployments rebuild their member documents with
 * `tsx src/main.ts reindex` (the documents' `search_text` changed the same way).
 */
import { type Knex, searchVectorSql } from '@rdm/platform';

const BATCH = 500;

/** Recompute the vectors of one table, in id order, a batch at a time. */
async function recompute(knex: Knex, table: string): Promise<void> {
  let after: string | null = null;
  for (;;) {
    const q = knex(table).select('id', 'name', 'username', 'affiliations').orderBy('id').limit(BATCH);
    if (after !== null) q.where('id', '>', after);
    const rows = (await q) as { id: string; name: string; username: string | null; affiliations: string }[];
    if (rows.length === 0) return;
    for (const r of rows) {
      // The same texts as `repo.memberSearchTexts` (written out: a migration never changes with the code).
      const v = searchVectorSql([r.name, r.username ?? '', r.affiliations]);
      await knex(table)
        .where({ id: r.id })
        .update({ search_vector: knex.raw(v.sql, v.bindings) });
    }
    after = rows[rows.length - 1]!.id;
  }
}

/** Recompute both tables' vectors. */
export async function up(knex: Knex): Promise<void> {
  await recompute(knex, 'members');
  await recompute(knex, 'archived_requests');
}
