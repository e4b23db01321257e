/**
 * Compile-time checks of the typed contracts: `pnpm typecheck` fails when a `writeOutbox` with a
 * wrong data shape, a `serveContract` handler with a wrong reply or a consumer's handler compiles.
 * The functions are never called; the test only keeps the file in the unit run.
 */
import type { EventData, RpcContract } from '@rdm/contracts';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Knex } from 'knex';
import { describe, expectTypeOf, it } from 'vitest';
import { serveContract } from './contracts.js';
import { runConsumer } from './consumer.js';
import type { MsgLogger } from './nats.js';
import { writeOutbox } from './outbox.js';

declare const trx: Knex.Transaction;
declare const nc: NatsConnection;
declare const logger: MsgLogger;
declare const consumerDeps: Omit<Parameters<typeof runConsumer>[0], 'filterSubject' | 'handler' | 'skip' | 'orderKey'>;

const aggregate = { type: 'user', id: '1', revision: 1 };

function outboxCalls() {
  void writeOutbox(trx, { subject: 'rdm.users.user.deactivated', aggregate, data: { id: '1' } });
  // @ts-expect-error data of another subject
  void writeOutbox(trx, { subject: 'rdm.users.user.deactivated', aggregate, data: { id: '1', user_id: '2' } });
  // @ts-expect-error a required field missing
  void writeOutbox(trx, { subject: 'rdm.files.file.committed', aggregate, data: { bucket_id: 'b', key: 'k', size: 1 } });
  // @ts-expect-error a field of the wrong type
  void writeOutbox(trx, { subject: 'rdm.users.token.revoked', aggregate, data: { id: 1, user_id: '2' } });
  // @ts-expect-error a subject without a contract
  void writeOutbox(trx, { subject: 'rdm.users.user.exploded', aggregate, data: { id: '1' } });
}

function rpcServers() {
  serveContract(
    nc,
    'rdm.users.rpc.get-users',
    async (req) => ({ users: req.ids.map((id) => ({ id, username: null, full_name: '', email: '', active: true })) }),
    {
      queue: 'users',
      logger,
    },
  );
  // @ts-expect-error a reply that is not the contract's
  serveContract(nc, 'rdm.files.rpc.delete-bucket', async () => ({ removed: true }), { queue: 'files', logger });
  serveContract(
    nc,
    'rdm.records.rpc.community-usage',
    async (req) => {
      expectTypeOf(req).toEqualTypeOf<RpcContract['rdm.records.rpc.community-usage']['request']>();
      return { views: 0, downloads: 0 };
    },
    { queue: 'records', logger },
  );
}

function consumers() {
  runConsumer({
    ...consumerDeps,
    filterSubject: 'rdm.records.record.published',
    handler: async (_trx, e) => {
      expectTypeOf(e.data).toEqualTypeOf<EventData['rdm.records.record.published']>();
    },
  });
  runConsumer({
    ...consumerDeps,
    filterSubject: 'rdm.records.access-request.>',
    handler: async (_trx, e) => {
      if (e.type === 'rdm.records.access-request.granted')
        expectTypeOf(e.data).toEqualTypeOf<EventData['rdm.records.access-request.granted']>();
      // @ts-expect-error not captured by the filter
      if (e.type === 'rdm.records.record.published') return;
    },
  });
}

describe('typed contracts', () => {
  it('should be checked by the typecheck (this file compiles only with the contracts enforced)', () => {
    expectTypeOf(outboxCalls).toBeFunction();
    expectTypeOf(rpcServers).toBeFunction();
    expectTypeOf(consumers).toBeFunction();
  });
});
