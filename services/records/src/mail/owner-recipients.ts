/**
 * Who besides the site's abuse address hears of an abuse report: the owners of the communities
 * the reported record's parent belongs to (issue: "and to the owners of the record's
 * communities"). Asked by the mailer consumer when it sends, never on the HTTP path: a service
 * that does not answer makes the consumer retry, so no report goes out without them.
 *
 * When to use: `mailerWorker({ recipientsOf })` in main.ts.
 */
import type { Knex } from '@rdm/platform';
import type { CommunityOwnersPort, UserEmailsPort } from '../domain/ports.js';

/** The e-mail addresses of the owners of the record's communities (none: `[]`). */
export function communityOwnerEmails(deps: { db: Knex; communities: CommunityOwnersPort; users: UserEmailsPort }) {
  return async (recordId: string): Promise<string[]> => {
    const row = (await deps
      .db('records as r')
      .join('parents as p', 'p.id', 'r.parent_id')
      .where('r.id', recordId)
      .first(deps.db.raw("p.communities->'ids' AS ids"))) as { ids?: unknown } | undefined;
    const ids = Array.isArray(row?.ids) ? row.ids.filter((x): x is string => typeof x === 'string') : [];
    if (ids.length === 0) return [];
    const owners = await deps.communities.owners(ids);
    return deps.users.emails([...new Set(Object.values(owners).flat())]);
  };
}
