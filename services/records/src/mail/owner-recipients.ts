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
import { communityIdsOfRecord } from '../repo/records.repo.js';

/** The e-mail addresses of the owners of the record's communities (none: `[]`). */
export function communityOwnerEmails(deps: { db: Knex; communities: CommunityOwnersPort; users: UserEmailsPort }) {
  return async (recordId: string): Promise<string[]> => {
    const ids = await communityIdsOfRecord(deps.db, recordId);
    if (ids.length === 0) return [];
    const owners = await deps.communities.owners(ids);
    return deps.users.emails([...new Set(Object.values(owners).flat())]);
  };
}
