import { describe, expect, it } from 'vitest';
import { RpcCommunitiesClient } from './communities.client.js';

/** A NATS connection stand-in answering `rdm.communities.rpc.roles` with `current`, counting calls. */
function fakeNc(current: { roles: Record<string, string> }) {
  const calls: { subject: string; payload: any }[] = [];
  const nc = {
    async request(subject: string, data: Uint8Array) {
      const payload = JSON.parse(new TextDecoder().decode(data));
      calls.push({ subject, payload });
      return { data: new TextEncoder().encode(JSON.stringify({ ok: true, data: { roles: current.roles } })) };
    },
  };
  return { nc: nc as never, calls };
}

describe(RpcCommunitiesClient.name, () => {
  it('should ask for roles on every call, so a removed membership is seen by the next one', async () => {
    const current = { roles: { c1: 'reader' } as Record<string, string> };
    const { nc, calls } = fakeNc(current);
    const sut = new RpcCommunitiesClient(nc, 1000);
    expect(await sut.roles('5', ['c1', 'c1'])).toEqual({ c1: 'reader' });
    current.roles = {};
    expect(await sut.roles('5', ['c1'])).toEqual({});
    await sut.roles('5');
    expect(calls.map((c) => c.payload)).toEqual([
      { user_id: '5', community_ids: ['c1'] },
      { user_id: '5', community_ids: ['c1'] },
      { user_id: '5' },
    ]);
    expect(await sut.roles('5', [])).toEqual({});
    expect(calls).toHaveLength(3);
  });
});
