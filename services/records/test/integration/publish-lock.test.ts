import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, type Env, fullMetadata, startEnv } from './support.js';

const OWNER = '801';

/** Publish freezes the files with ONE `lock` call (`if_complete`), and still works against an older files service. */
describe('publish and the files lock', () => {
  let env: Env;

  beforeAll(async () => {
    env = await startEnv();
  });
  afterAll(async () => {
    await env?.close();
  });

  async function draft(): Promise<any> {
    return (await env.request.post('/api/records').set(as(OWNER)).send({ metadata: fullMetadata() }).expect(201)).body;
  }
  const callsFor = (bucket: string) => env.files.calls.filter((c) => c.payload?.bucket_id === bucket).map((c) => c.subject);

  it('should check and lock the files of a valid draft with one call', async () => {
    const d = await draft();
    env.files.addFile(d.id, 'a.txt');
    await env.request.post(`/api/records/${d.id}/draft/actions/publish`).set(as(OWNER)).expect(202);
    expect(callsFor(d.id)).toEqual(['lock']);
    expect(env.files.calls.find((c) => c.payload?.bucket_id === d.id)?.payload).toEqual({ bucket_id: d.id, if_complete: true });
    expect(env.files.bucket(d.id).locked).toBe(true);
  });

  it('should leave the bucket unlocked and report pending files', async () => {
    const d = await draft();
    env.files.addFile(d.id, 'a.txt', { pending: true });
    const res = await env.request.post(`/api/records/${d.id}/draft/actions/publish`).set(as(OWNER));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'files', messages: ['One or more files have not completed their transfer, please wait.'] }]);
    expect(env.files.bucket(d.id).locked).toBe(false);
  });
});
