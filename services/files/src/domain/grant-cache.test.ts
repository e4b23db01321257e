import { Errors } from '@rdm/platform';
import { describe, expect, it } from 'vitest';
import type { AuthorizeFilesRequest, BucketGrant, FilesAuthorizer } from './authorizer.js';
import { GrantCache } from './grant-cache.js';

const req = (o: Partial<AuthorizeFilesRequest> = {}): AuthorizeFilesRequest => ({
  record_id: 'rec01-00001',
  scope: 'draft',
  action: 'update',
  identity: { sub: '7', roles: ['authenticated'] },
  ...o,
});
const grant = (n: number): BucketGrant => ({
  bucket_id: `bkt-${n}`,
  record_id: 'rec01-00001',
  enabled: true,
  locked: false,
  default_preview: null,
  order: [],
});

/** A records stand-in answering grant 1, 2, 3… (or `fail`), counting its calls; a settable clock. */
function make(o: { ttlMs?: number; max?: number; fail?: () => Error } = {}) {
  const state = { calls: 0, now: 1000 };
  const inner: FilesAuthorizer = {
    async authorize() {
      state.calls++;
      if (o.fail) throw o.fail();
      return grant(state.calls);
    },
  };
  const cache = new GrantCache(inner, { ttlMs: o.ttlMs ?? 5000, max: o.max, now: () => state.now });
  return { cache, state };
}

describe(GrantCache.name, () => {
  it('should answer a reused draft update grant from memory within the TTL, and ask again after it', async () => {
    const { cache, state } = make();
    expect(await cache.authorize(req())).toEqual(grant(1));
    expect(await cache.authorize(req(), { reuse: true })).toEqual(grant(1));
    state.now += 4999;
    expect(await cache.authorize(req(), { reuse: true })).toEqual(grant(1));
    expect(state.calls).toBe(1);
    state.now += 1;
    expect(await cache.authorize(req(), { reuse: true })).toEqual(grant(2));
    expect(state.calls).toBe(2);
  });

  it('should always ask records without reuse (registrations), refreshing the memory', async () => {
    const { cache, state } = make();
    await cache.authorize(req());
    expect(await cache.authorize(req())).toEqual(grant(2));
    expect(await cache.authorize(req(), { reuse: true })).toEqual(grant(2));
    expect(state.calls).toBe(2);
  });

  it('should never remember reads, records, secret-link tokens or denials', async () => {
    for (const r of [req({ action: 'read' }), req({ scope: 'record', action: 'read' }), req({ access_token: 'secret' })]) {
      const { cache, state } = make();
      await cache.authorize(r);
      await cache.authorize(r, { reuse: true });
      expect(state.calls).toBe(2);
      expect(cache.size).toBe(0);
    }
    const denied = make({ fail: () => Errors.permissionDenied() });
    await expect(denied.cache.authorize(req())).rejects.toMatchObject({ status: 403 });
    await expect(denied.cache.authorize(req(), { reuse: true })).rejects.toMatchObject({ status: 403 });
    expect(denied.state.calls).toBe(2);
  });

  it('should keep grants apart per identity, roles, draft and bucket kind', async () => {
    const { cache, state } = make();
    await cache.authorize(req());
    for (const r of [
      req({ identity: { sub: '8', roles: ['authenticated'] } }),
      req({ identity: { sub: '7', roles: ['authenticated', 'admin'] } }),
      req({ record_id: 'rec02-00002' }),
      req({ bucket: 'media' }),
    ]) {
      const before = state.calls;
      await cache.authorize(r, { reuse: true });
      expect(state.calls).toBe(before + 1);
    }
  });

  it("should forget a draft's grants (publication, deletion) and ask records again", async () => {
    const { cache, state } = make();
    await cache.authorize(req());
    await cache.authorize(req({ bucket: 'media' }));
    cache.forget('rec01-00001');
    expect(cache.size).toBe(0);
    expect(await cache.authorize(req(), { reuse: true })).toEqual(grant(3));
    expect(state.calls).toBe(3);
  });

  it('should ask records every time with a TTL of 0', async () => {
    const { cache, state } = make({ ttlMs: 0 });
    await cache.authorize(req());
    await cache.authorize(req(), { reuse: true });
    expect(state.calls).toBe(2);
  });

  it('should hold at most `max` grants, forgetting the oldest first', async () => {
    const { cache, state } = make({ max: 2 });
    for (const id of ['a-1', 'b-2', 'c-3']) await cache.authorize(req({ record_id: id }));
    expect(cache.size).toBe(2);
    await cache.authorize(req({ record_id: 'c-3' }), { reuse: true });
    expect(state.calls).toBe(3);
    await cache.authorize(req({ record_id: 'a-1' }), { reuse: true });
    expect(state.calls).toBe(4);
  });
});
