import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { as, type Env, fullMetadata, startEnv } from './support.js';
import { gatewayFront } from '@rdm/platform/testing';
import { SECRET } from './support.js';

const OWNER = as('720');
const ADMIN = as('9', ['admin']);
const NO_PERMISSION = { field: 'access', messages: ["You don't have permissions to manage record access."] };

describe('ALLOW_RESTRICTED_RECORDS=false (InvenioRDM RDM_ALLOW_RESTRICTED_RECORDS)', () => {
  let env: Env;
  let request: ReturnType<typeof supertest>;

  beforeAll(async () => {
    env = await startEnv();
    const { app } = createApp({ ...env.deps, config: { ...env.deps.config, ALLOW_RESTRICTED_RECORDS: false } as never });
    request = supertest(gatewayFront(app.callback(), SECRET));
  });
  afterAll(async () => {
    await env?.close();
  });

  const draft = (access?: Record<string, string>) => ({
    files: { enabled: false },
    metadata: fullMetadata(),
    ...(access ? { access } : {}),
  });

  it('should create public drafts as usual and refuse a restricted one (400 on access, nothing created)', async () => {
    const ok = await request.post('/api/records').set(OWNER).send(draft());
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.access).toMatchObject({ record: 'public', files: 'public' });

    const before = await request.get('/api/user/records').set(OWNER);
    const refused = await request
      .post('/api/records')
      .set(OWNER)
      .send(draft({ record: 'restricted', files: 'restricted' }));
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([NO_PERMISSION]);
    const after = await request.get('/api/user/records').set(OWNER);
    expect(after.body.hits.total).toBe(before.body.hits.total);
  });

  it("should refuse to restrict a draft's record or files on update, keeping it public", async () => {
    const created = await request.post('/api/records').set(OWNER).send(draft());
    const id = created.body.id as string;
    for (const access of [
      { record: 'restricted', files: 'public' },
      { record: 'public', files: 'restricted' },
    ]) {
      const res = await request.put(`/api/records/${id}/draft`).set(OWNER).send(draft(access));
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([NO_PERMISSION]);
    }
    const read = await request.get(`/api/records/${id}/draft`).set(OWNER);
    expect(read.body.access).toMatchObject({ record: 'public', files: 'public' });
    // Sending the unchanged access is no change: saved.
    expect(
      (
        await request
          .put(`/api/records/${id}/draft`)
          .set(OWNER)
          .send(draft({ record: 'public', files: 'public' }))
      ).status,
    ).toBe(200);
  });

  it('should let an administrator restrict a draft', async () => {
    const created = await request
      .post('/api/records')
      .set(ADMIN)
      .send(draft({ record: 'restricted', files: 'restricted' }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.access).toMatchObject({ record: 'restricted', files: 'restricted' });
  });

  it('should allow restricted drafts by default (the switch on)', async () => {
    const res = await env.request
      .post('/api/records')
      .set(OWNER)
      .send(draft({ record: 'restricted', files: 'restricted' }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.access).toMatchObject({ record: 'restricted', files: 'restricted' });
  });
});
