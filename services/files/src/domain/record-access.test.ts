import { Errors, RpcError } from '@rdm/platform';
import { describe, expect, it } from 'vitest';
import type { RecordAccessRow } from '../repo/record-access.repo.js';
import type { AuthorizeFilesRequest, BucketGrant } from './authorizer.js';
import { LocalAccessAuthorizer, type LocalAuthzMode, localGrant } from './record-access.js';

const row = (o: Partial<RecordAccessRow> = {}): RecordAccessRow => ({
  record_id: 'rec01-00001',
  parent_id: 'par01-00001',
  bucket_id: 'bkt-1',
  access_status: 'open',
  deleted: false,
  seq: 7,
  ...o,
});
const req = (o: Partial<AuthorizeFilesRequest> = {}): AuthorizeFilesRequest => ({
  record_id: 'rec01-00001',
  scope: 'record',
  action: 'read',
  identity: { sub: null, roles: [] },
  ...o,
});
const fromRecords: BucketGrant = {
  bucket_id: 'bkt-1',
  record_id: 'rec01-00001',
  enabled: true,
  locked: true,
  default_preview: 'a.csv',
  order: ['a.csv'],
};

describe(localGrant.name, () => {
  it('should grant a public read of an open, published, undeleted version', () => {
    expect(localGrant(row(), req())).toEqual({
      bucket_id: 'bkt-1',
      record_id: 'rec01-00001',
      enabled: true,
      locked: true,
      default_preview: null,
      order: [],
    });
  });

  it('should leave every other case to records', () => {
    for (const status of ['restricted', 'embargoed', 'metadata-only'])
      expect(localGrant(row({ access_status: status }), req())).toBeUndefined();
    expect(localGrant(row({ deleted: true }), req())).toBeUndefined();
    expect(localGrant(undefined, req())).toBeUndefined();
    expect(localGrant(row(), req({ scope: 'draft' }))).toBeUndefined();
    expect(localGrant(row(), req({ action: 'update' }))).toBeUndefined();
    expect(localGrant(row(), req({ bucket: 'media' }))).toBeUndefined();
    expect(localGrant(row(), req({ access_token: 'secret' }))).toBeUndefined();
    expect(localGrant(row(), req(), { listing: true })).toBeUndefined();
    expect(localGrant(row({ record_id: 'other-00002' }), req())).toBeUndefined();
  });
});

describe(LocalAccessAuthorizer.name, () => {
  function make(mode: LocalAuthzMode, o: { rpc?: () => Promise<BucketGrant>; row?: RecordAccessRow; caughtUp?: boolean } = {}) {
    const calls = { rpc: 0, find: 0 };
    const authorizer = new LocalAccessAuthorizer({
      mode,
      rpc: {
        authorize: () => {
          calls.rpc++;
          return o.rpc ? o.rpc() : Promise.resolve(fromRecords);
        },
      },
      find: async () => {
        calls.find++;
        return o.row;
      },
      freshness: { caughtUp: async () => o.caughtUp ?? true },
    });
    return { authorizer, calls };
  }
  const down = () => Promise.reject(new RpcError('rdm.records.rpc.authorize-files'));

  it('fallback: answers as records while it is up, from the copy only when it does not answer', async () => {
    const up = make('fallback', { row: row() });
    expect(await up.authorizer.authorize(req())).toEqual(fromRecords);
    expect(up.calls).toEqual({ rpc: 1, find: 0 });
    const off = make('fallback', { rpc: down, row: row() });
    expect((await off.authorizer.authorize(req())).bucket_id).toBe('bkt-1');
    await expect(
      make('fallback', { rpc: down, row: row({ access_status: 'restricted' }) }).authorizer.authorize(req()),
    ).rejects.toBeInstanceOf(RpcError);
    await expect(make('fallback', { rpc: down, row: row(), caughtUp: false }).authorizer.authorize(req())).rejects.toBeInstanceOf(RpcError);
    await expect(make('fallback', { rpc: down, row: row() }).authorizer.authorize(req(), { listing: true })).rejects.toBeInstanceOf(
      RpcError,
    );
  });

  it("fallback: passes records' refusals through (never overridden by the copy)", async () => {
    const denied = make('fallback', { rpc: () => Promise.reject(Errors.gone()), row: row() });
    await expect(denied.authorizer.authorize(req())).rejects.toMatchObject({ status: 410 });
  });

  it('first: no call for a public read of an open version; records for the rest and when the copy is behind', async () => {
    const local = make('first', { rpc: down, row: row() });
    expect((await local.authorizer.authorize(req())).order).toEqual([]);
    expect(local.calls.rpc).toBe(0);
    const restricted = make('first', { row: row({ access_status: 'restricted' }) });
    expect(await restricted.authorizer.authorize(req())).toEqual(fromRecords);
    expect(restricted.calls.rpc).toBe(1);
    const behind = make('first', { row: row(), caughtUp: false });
    expect(await behind.authorizer.authorize(req())).toEqual(fromRecords);
    const draft = make('first', { row: row() });
    await draft.authorizer.authorize(req({ scope: 'draft' }));
    expect(draft.calls).toEqual({ rpc: 1, find: 0 });
  });

  it('off: always records', async () => {
    await expect(make('off', { rpc: down, row: row() }).authorizer.authorize(req())).rejects.toBeInstanceOf(RpcError);
  });
});
