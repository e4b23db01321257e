/**
 * The reads the attempts of one claimed batch share, each made once for the whole batch and only
 * when the first attempt needs it: the subscriptions (one query), their owners as users knows
 * them now (one `get-users` for every owner of the batch), a community role per (owner,
 * community), and a record per (record, identity) — an event fanned out to N subscriptions of
 * one owner reads its record once, not N times. Nothing outlives the batch: every batch re-reads
 * owners and records as they are at that moment (a deactivated owner, a revoked role, a record
 * made restricted take effect at the next claim).
 *
 * When to use: the delivery worker, one instance per claim (delivery/worker.ts).
 */
import type { Identity, Knex } from '@rdm/platform';
import type { CommunityRolesPort, RecordReaderPort, UserNow, UsersPort } from '../domain/ports.js';
import type { DeliveryRow } from '../repo/deliveries.repo.js';
import { getSubscriptions, type SubscriptionRow } from '../repo/subscriptions.repo.js';
import type { BodyPorts } from './payload.js';

/** Reads shared by the attempts of one claimed batch. */
export class BatchReads implements BodyPorts {
  private readonly users: UsersPort;
  private subs: Promise<Map<string, SubscriptionRow>> | undefined;
  private owners: Promise<Map<string, UserNow>> | undefined;
  private readonly roleReads = new Map<string, Promise<Record<string, string>>>();
  private readonly recordReads = new Map<string, Promise<Record<string, unknown> | null>>();
  /** The communities port, deduplicating per (owner, communities) within the batch. */
  readonly communities: CommunityRolesPort;
  /** The records port, deduplicating per (record, identity) within the batch. */
  readonly records: RecordReaderPort;

  constructor(
    private readonly db: Knex,
    private readonly rows: DeliveryRow[],
    ports: { users: UsersPort; communities: CommunityRolesPort; records: RecordReaderPort },
  ) {
    this.users = ports.users;
    this.communities = {
      roles: (userId, communityIds) =>
        memo(this.roleReads, `${userId}\0${communityIds.join(',')}`, () => ports.communities.roles(userId, communityIds)),
    };
    this.records = {
      read: (identity: Identity, recordId: string) =>
        memo(this.recordReads, `${recordId}\0${identity.sub}\0${[...identity.roles].sort().join(',')}`, () =>
          ports.records.read(identity, recordId),
        ),
    };
  }

  /** The subscription of a claimed row (undefined when it was deleted). */
  async subscription(id: string): Promise<SubscriptionRow | undefined> {
    this.subs ??= getSubscriptions(this.db, [...new Set(this.rows.map((r) => r.subscription_id))]);
    return (await this.subs).get(id);
  }

  /** A subscription owner as users knows them now (null when unknown); one call for the batch's owners. */
  async owner(userId: string): Promise<UserNow | null> {
    this.owners ??= (async () => {
      const ids = new Set<string>([userId]);
      for (const r of this.rows) {
        const s = await this.subscription(r.subscription_id);
        if (s) ids.add(s.owner_id);
      }
      return this.users.current([...ids]);
    })();
    return (await this.owners).get(userId) ?? null;
  }
}

/** The promise under `key`, made by `make` the first time. */
function memo<T>(cache: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  let p = cache.get(key);
  if (!p) {
    p = make();
    cache.set(key, p);
  }
  return p;
}
