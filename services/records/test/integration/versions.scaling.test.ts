import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, type Env, fullMetadata, startEnv } from './support.js';

const OWNER = '501';

/**
 * Publishing the n-th version must not scan the other versions: the versions state lives on
 * the parent row. We count the SQL statements of each publish and of each new version: the
 * count is the same for the 2nd and the 40th.
 */
describe('versions scaling', () => {
  let env: Env;
  let statements = 0;
  const counter = () => {
    statements++;
  };

  beforeAll(async () => {
    env = await startEnv();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('should publish the 40th version with as many statements as the 2nd', async () => {
    const d = (await env.request.post('/api/records').set(as(OWNER)).send({ metadata: fullMetadata() })).body;
    env.files.addFile(d.id, 'a.txt');
    await env.request.post(`/api/records/${d.id}/draft/actions/publish`).set(as(OWNER)).expect(202);
    env.db.on('query', counter);
    const costs: { newVersion: number; publish: number }[] = [];
    let latest = d.id;
    try {
      for (let i = 2; i <= 40; i++) {
        statements = 0;
        const nv = (await env.request.post(`/api/records/${latest}/versions`).set(as(OWNER)).expect(201)).body;
        const newVersion = statements;
        env.files.addFile(nv.id, 'a.txt');
        statements = 0;
        const pub = (await env.request.post(`/api/records/${nv.id}/draft/actions/publish`).set(as(OWNER)).expect(202)).body;
        costs.push({ newVersion, publish: statements });
        expect(pub.versions.index).toBe(i);
        latest = nv.id;
      }
    } finally {
      env.db.removeListener('query', counter);
    }
    expect(costs[costs.length - 1]).toEqual(costs[0]);
    const versions = await env.request.get(`/api/records/${d.id}/versions?size=5`);
    expect(versions.body.hits.total).toBe(40);
    expect(versions.body.hits.hits[0].versions).toEqual({ is_latest: true, index: 40 });
    const latestFlags = await env.db('search_docs').where({ parent_id: d.parent.id, is_latest: true });
    expect(latestFlags.map((r) => r.id)).toEqual([latest]);
  });
});
