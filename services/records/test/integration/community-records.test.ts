import { randomUUID } from 'node:crypto';
import { withTransaction } from '@rdm/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INCLUSION_MESSAGES } from '../../src/domain/errors.js';
import type { CommunitySummary } from '../../src/domain/ports.js';
import { community } from './review-support.js';
import { as, type Env, fullMetadata, startEnv } from './support.js';

const OWNER = '961';
const CURATOR = '962';
const OTHER = '963';
const SCHEMA = randomUUID();

/** Community schema extensions on publish, and records removed from a community by the community side. */
describe('records and their communities (extension on publish, DELETE /api/communities/:id/records)', () => {
  let env: Env;
  let c: CommunitySummary;

  beforeAll(async () => {
    env = await startEnv();
    c = env.fakeCommunities.add(community('cr-open'));
    env.fakeCommunities.setRole(CURATOR, c.id, 'curator');
    env.fakeCommunities.setRole(OTHER, c.id, 'reader');
    env.fakeCommunities.extensions.set(SCHEMA, (ext) =>
      typeof ext?.['cr-open:ship'] === 'string'
        ? { valid: true }
        : {
            valid: false,
            errors: [{ field: 'metadata.community_extension.cr-open:ship', messages: ['Missing data for required field.'] }],
          },
    );
  });
  afterAll(async () => {
    await env?.close();
  });

  /** A valid draft (with a file) whose metadata adds `extra`. */
  async function draft(extra: Record<string, unknown> = {}, owner = OWNER): Promise<{ id: string; parent: { id: string } }> {
    const d = (
      await env.request
        .post('/api/records')
        .set(as(owner))
        .send({ metadata: { ...fullMetadata(), ...extra } })
        .expect(201)
    ).body;
    env.files.addFile(d.id, 'data.csv');
    return d;
  }
  const publish = (id: string, user = OWNER) => env.request.post(`/api/records/${id}/draft/actions/publish`).set(as(user));

  /** A published record included in the community (through the saga's inclusion effect). */
  async function included(owner = OWNER): Promise<{ id: string; parentId: string }> {
    const d = await draft({}, owner);
    await publish(d.id, owner).expect(202);
    const requestId = randomUUID();
    await withTransaction(env.db, (trx) =>
      env.parts.saga!.onAccepted(trx, {
        id: randomUUID(),
        type: 'rdm.requests.request.accepted',
        version: 1,
        occurred_at: new Date().toISOString(),
        aggregate: { type: 'request', id: requestId, revision: 2 },
        data: {
          id: requestId,
          number: '1',
          type: 'community-inclusion',
          created_by: { user: owner },
          receiver: { community: c.id },
          topic: { record: d.id },
          actor: { user: CURATOR },
        },
      }),
    );
    return { id: d.id, parentId: d.parent.id };
  }
  const removedEvents = (parentId: string) =>
    env.db('outbox').where({ subject: 'rdm.records.inclusion.removed' }).whereRaw(`payload->'data'->>'parent_id' = ?`, [parentId]);
  const listed = async () => (await env.request.get(`/api/communities/${c.id}/records`).expect(200)).body.hits.hits.map((h: any) => h.id);

  it('should refuse to publish with an unknown extension schema, as a field error (400)', async () => {
    const d = await draft({ community_extension_schema: randomUUID(), community_extension: { 'cr-open:ship': 'Polarstern' } });
    const res = await publish(d.id);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'metadata.community_extension_schema', messages: ['Unknown community schema extension.'] }]);
  });

  it("should report the extension's field errors with the publish errors and freeze nothing", async () => {
    const d = await draft({ community_extension_schema: SCHEMA, community_extension: { 'cr-open:other': 1 } });
    const res = await publish(d.id);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { field: 'metadata.community_extension.cr-open:ship', messages: ['Missing data for required field.'] },
    ]);
    expect(env.files.bucket(d.id).locked).toBe(false);
  });

  it('should publish a record whose extension the communities service validates', async () => {
    const extension = { 'cr-open:ship': 'Polarstern' };
    const d = await draft({ community_extension_schema: SCHEMA, community_extension: extension });
    const res = await publish(d.id).expect(202);
    expect(res.body.metadata.community_extension).toEqual(extension);
    const call = env.fakeCommunities.calls.filter((x) => x.subject === 'validate-extension').pop();
    expect(call?.payload).toEqual({ schema_id: SCHEMA, community_extension: extension });
  });

  it('should let curators remove records, report the others per record, and write inclusion.removed', async () => {
    const a = await included();
    const b = await included();
    const notIn = await draft();
    await publish(notIn.id).expect(202);
    expect(await listed()).toEqual(expect.arrayContaining([a.id, b.id]));
    const res = await env.request
      .delete(`/api/communities/${c.slug}/records`)
      .set(as(CURATOR))
      .send({ records: [{ id: a.id }, { id: b.id }, { id: 'nope0-00000' }, { id: notIn.id }] })
      .expect(200);
    expect(res.body).toEqual({
      errors: [
        { record: 'nope0-00000', message: 'The persistent identifier does not exist.' },
        { record: notIn.id, message: INCLUSION_MESSAGES.notIncluded },
      ],
    });
    for (const r of [a, b]) {
      const events = await removedEvents(r.parentId);
      expect(events.map((e: any) => e.payload.data)).toEqual([
        { parent_id: r.parentId, record_id: r.id, community_id: c.id, request_id: null },
      ]);
      expect((await env.request.get(`/api/records/${r.id}`).expect(200)).body.parent.communities).toEqual({});
    }
    const after = await listed();
    expect(after).not.toContain(a.id);
    expect(after).not.toContain(b.id);
  });

  it("should refuse (403) everyone but the community's curators, the record's owner included (InvenioRDM remove_record)", async () => {
    const r = await included();
    for (const user of [OTHER, OWNER]) {
      const denied = await env.request
        .delete(`/api/communities/${c.id}/records`)
        .set(as(user))
        .send({ records: [{ id: r.id }] });
      expect(denied.status).toBe(403);
      expect(denied.body).toEqual({ status: 403, message: 'Permission denied.' });
    }
    expect(await removedEvents(r.parentId)).toHaveLength(0);
    expect(await listed()).toContain(r.id);
  });

  it("should answer a non-member about a restricted community's slug as about an unknown one (issue 18)", async () => {
    const hidden = env.fakeCommunities.add(community('cr-hidden', { visibility: 'restricted' }));
    env.fakeCommunities.setRole(OTHER, hidden.id, 'reader');
    env.fakeCommunities.setRole(CURATOR, hidden.id, 'curator');
    const body = { records: [{ id: 'abcde-12345' }] };
    const unknown = await env.request.delete('/api/communities/cr-unknown-slug/records').set(as(OWNER)).send(body);
    expect(unknown.status).toBe(404);
    const probe = await env.request.delete(`/api/communities/${hidden.slug}/records`).set(as(OWNER)).send(body);
    expect(probe.status).toBe(404);
    expect(probe.body).toEqual(unknown.body);
    // A member who may read it but not curate it is refused; its curators are answered per record.
    expect((await env.request.delete(`/api/communities/${hidden.slug}/records`).set(as(OTHER)).send(body)).status).toBe(403);
    const curated = await env.request.delete(`/api/communities/${hidden.slug}/records`).set(as(CURATOR)).send(body);
    expect(curated.status).toBe(200);
    expect(curated.body).toEqual({ errors: [{ record: 'abcde-12345', message: 'The persistent identifier does not exist.' }] });
  });

  it('should suggest communities only to those who may manage the record (issue 18, InvenioRDM add_community)', async () => {
    const r = await included();
    const suggestions = (user: string) => env.request.get(`/api/records/${r.id}/communities-suggestions`).set(as(user));
    // A reader of the record's community (and anyone else) may read the record but not manage it.
    for (const user of [OTHER, '964']) {
      const res = await suggestions(user);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ status: 403, message: 'Permission denied.' });
    }
    expect((await env.request.get(`/api/records/${r.id}/communities-suggestions`)).status).toBe(403);
    expect((await suggestions(OWNER)).status).toBe(200);
    // Curators of the record's communities manage it.
    expect((await suggestions(CURATOR)).status).toBe(200);
  });

  it('should answer 403 to anonymous callers, 404 for an unknown community and 400 for a bad body', async () => {
    const body = { records: [{ id: 'abcde-12345' }] };
    expect((await env.request.delete(`/api/communities/${c.id}/records`).send(body)).status).toBe(403);
    expect((await env.request.delete('/api/communities/nope/records').set(as(CURATOR)).send(body)).status).toBe(404);
    const empty = await env.request.delete(`/api/communities/${c.id}/records`).set(as(CURATOR)).send({ records: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.errors).toEqual([{ field: 'records', messages: ['Shorter than minimum length 1.'] }]);
    const many = Array.from({ length: 11 }, (_, i) => ({ id: `x${i}` }));
    const tooMany = await env.request.delete(`/api/communities/${c.id}/records`).set(as(CURATOR)).send({ records: many });
    expect(tooMany.body).toEqual({ status: 400, message: 'Exceeded maximum amount of records that can be updated at once: 10.' });
  });
});
