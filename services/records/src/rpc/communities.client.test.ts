import { describe, expect, it } from 'vitest';
import { RpcCommunitiesClient } from './communities.client.js';

/** A NATS connection stand-in answering `rdm.communities.rpc.roles`, counting calls. */
function fakeNc() {
  const calls: { subject: string; payload: any }[] = [];
  const nc = {
    async request(subject: string, data: Uint8Array) {
      const payload = JSON.parse(new TextDecoder().decode(data));
      calls.push({ subject, payload });
      return { data: new TextEncoder().encode(JSON.stringify({ ok: true, data: { roles: { c1: 'curator' } } })) };
    },
  };
  return { nc: nc as never, calls };
}

describe(RpcCommunitiesClient.name, () => {
  it('should cache roles per user and ids until invalidated or expired', async () => {
    const { nc, calls } = fakeNc();
    const sut = new RpcCommunitiesClient(nc, 1000, 60_000);
    expect(await sut.roles('5', ['c1'])).toEqual({ c1: 'curator' });
    await sut.roles('5', ['c1']);
    expect(calls).toEqual([{ subject: 'rdm.communities.rpc.roles', payload: { user_id: '5', community_ids: ['c1'] } }]);
    await sut.roles('5');
    expect(calls[1].payload).toEqual({ user_id: '5' });
    sut.invalidate('6');
    await sut.roles('5', ['c1']);
    expect(calls).toHaveLength(2);
    sut.invalidate('5');
    await sut.roles('5', ['c1']);
    expect(calls).toHaveLength(3);
    const noCache = new RpcCommunitiesClient(nc, 1000, 0);
    await noCache.roles('5', ['c1']);
    await noCache.roles('5', ['c1']);
    expect(calls).toHaveLength(5);
  });
});
