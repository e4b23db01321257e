/**
 * One page of a list, newest first: the count and the rows of a filtered query. Use it for every
 * paged list of the webhooks service (subscriptions, a subscription's deliveries), so they page alike.
 */
import type { Knex } from '@rdm/platform';

/** `{rows, total}` of `q` (a filtered table query) for `page`, ordered by `created` desc then `id`. */
export async function newestFirstPage<Row>(
  q: Knex.QueryBuilder,
  page: { from: number; size: number },
): Promise<{ rows: Row[]; total: number }> {
  const [{ n }] = (await q.clone().count({ n: '*' })) as [{ n: string }];
  const rows = (await q
    .clone()
    .orderBy([{ column: 'created', order: 'desc' }, { column: 'id' }])
    .offset(page.from)
    .limit(page.size)) as Row[];
  return { rows, total: Number(n) };
}
