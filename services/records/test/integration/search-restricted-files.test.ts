/**
 * Record search never matches or counts file data the caller may not read (issue 10, defect 2;
 * src/search/files-guard.ts), and members of a record's communities find its restricted records.
 */
import { randomUUID } from 'node:crypto';
import { withTransaction } from '@rdm/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommunitySummary } from '../../src/domain/ports.js';
import { RecordSearchService } from '../../src/search/search.service.js';
import { community } from './review-support.js';
import { as, type Env, startEnv } from './support.js';

const OWNER = '4101';
const OTHER = '4102';
const GRANTEE = '4103';
const MEMBER = '4104';
const ADMIN = '4190';

// Extensions unique to this file, so the facet counts of other files' records do not interfere.
const HIDDEN_EXT = 'zhq';
const OPEN_EXT = 'zoq';

describe('record search and restricted files', () => {
  let env: Env;
  let c: CommunitySummary;
  const ids: Record<string, string> = {};

  async function published(name: string, access: Record<string, string>, files: string[]): Promise<string> {
    const res = await env.request
      .post('/api/records')
      .set(as(OWNER))
      .send({
        access,
        files: { enabled: true },
        metadata: {
          resource_types: [{ id: 'dataset' }],
          title: `Restricted files probe ${name}`,
          publication_date: '2022',
          creators: [{ person_or_org: { type: 'personal', given_name: 'Jo', family_name: 'Probe' } }],
        },
      });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const id = res.body.id as string;
    for (const key of files) env.files.addFile(id, key, { size: 10 });
    const pub = await env.request.post(`/api/records/${id}/draft/actions/publish`).set(as(OWNER));
    expect(pub.status, JSON.stringify(pub.body)).toBe(202);
    ids[name] = id;
    return id;
  }

  /** Include a published record in `c` through the saga's inclusion effect. */
  async function include(recordId: string): Promise<void> {
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
          created_by: { user: OWNER },
          receiver: { community: c.id },
          topic: { record: recordId },
          actor: { user: MEMBER },
        },
      }),
    );
  }

  const who = (user: string | null) => (user === ADMIN ? as(ADMIN, ['admin']) : as(user));
  const search = (query: Record<string, string>, user: string | null = null) => env.request.get('/api/records').query(query).set(who(user));
  const total = async (query: Record<string, string>, user: string | null = null) => {
    const res = await search(query, user);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.hits.total as number;
  };
  const fileTypes = async (query: Record<string, string>, user: string | null = null) => {
    const res = await search(query, user);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return Object.fromEntries((res.body.aggregations.file_type.buckets as any[]).map((b) => [b.key, b.doc_count]));
  };

  beforeAll(async () => {
    env = await startEnv();
    c = env.fakeCommunities.add(community('rf-probe'));
    env.fakeCommunities.setRole(MEMBER, c.id, 'reader');
    await published('hidden', { record: 'public', files: 'restricted' }, [`hiddenfile.${HIDDEN_EXT}`]);
    await published('open', { record: 'public', files: 'public' }, [`openfile.${OPEN_EXT}`]);
    await published('restricted', { record: 'restricted', files: 'restricted' }, [`secretfile.${HIDDEN_EXT}`]);
    await include(ids.restricted);
    const grant = await env.request
      .post(`/api/records/${ids.hidden}/access/users`)
      .set(as(OWNER))
      .send({ grants: [{ subject: { type: 'user', id: GRANTEE }, permission: 'view' }] });
    expect(grant.status, JSON.stringify(grant.body)).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await env?.close();
  });

  it('should match public file data for everyone', async () => {
    expect(await total({ q: `id:${ids.open} AND files.entries.key:openfil*` })).toBe(1);
    expect(await total({ q: `id:${ids.open} AND files.count:1` })).toBe(1);
    expect(await total({ q: `id:${ids.open} AND file_type:${OPEN_EXT}` })).toBe(1);
  });

  it.each([
    ['files.entries.key:hiddenfil*'],
    [`files.entries.key:hiddenfile.${HIDDEN_EXT}`],
    ['files.count:1'],
    ['files.count:[1 TO *]'],
    [`files.types:${HIDDEN_EXT}`],
    [`file_type:${HIDDEN_EXT}`],
    ['files.\\*:hiddenfil*'],
    ['_exists_:files.count'],
  ])('should not match %s on restricted files for those who may not read them', async (clause) => {
    const q = `id:${ids.hidden} AND ${clause}`;
    expect(await total({ q }), 'anonymous').toBe(0);
    expect(await total({ q }, OTHER), 'other user').toBe(0);
    expect(await total({ q }, MEMBER), 'member of another community').toBe(0);
    expect(await total({ q }, OWNER), 'owner').toBe(1);
    expect(await total({ q }, GRANTEE), 'grantee').toBe(1);
    expect(await total({ q }, ADMIN), 'administrator').toBe(1);
  });

  it('should treat unreadable file data as absent (NOT matches, nothing narrows)', async () => {
    expect(await total({ q: `id:${ids.hidden} AND NOT files.count:1` })).toBe(1);
    expect(await total({ q: `id:${ids.hidden} AND NOT files.count:7` })).toBe(1);
    expect(await total({ q: `id:${ids.hidden} AND NOT files.count:1` }, OWNER)).toBe(0);
    // files.enabled is public (the read form shows it to everyone).
    expect(await total({ q: `id:${ids.hidden} AND files.enabled:true` })).toBe(1);
  });

  it('should not count or filter restricted file types for those who may not read them', async () => {
    for (const q of [{}, { q: 'probe' }] as Record<string, string>[]) {
      expect(await fileTypes(q), `anonymous ${JSON.stringify(q)}`).toMatchObject({ [OPEN_EXT]: 1 });
      expect((await fileTypes(q))[HIDDEN_EXT], `anonymous ${JSON.stringify(q)}`).toBeUndefined();
      expect((await fileTypes(q, OTHER))[HIDDEN_EXT], `other ${JSON.stringify(q)}`).toBeUndefined();
      expect((await fileTypes(q, OWNER))[HIDDEN_EXT], `owner ${JSON.stringify(q)}`).toBe(2);
      expect((await fileTypes(q, GRANTEE))[HIDDEN_EXT], `grantee ${JSON.stringify(q)}`).toBe(1);
      expect((await fileTypes(q, ADMIN))[HIDDEN_EXT], `admin ${JSON.stringify(q)}`).toBe(2);
      const filtered = { ...q, file_type: HIDDEN_EXT };
      expect(await total(filtered), `anonymous filter ${JSON.stringify(q)}`).toBe(0);
      expect(await total(filtered, OTHER), `other filter ${JSON.stringify(q)}`).toBe(0);
      expect(await total(filtered, GRANTEE), `grantee filter ${JSON.stringify(q)}`).toBe(1);
      expect(await total(filtered, OWNER), `owner filter ${JSON.stringify(q)}`).toBe(2);
    }
  });

  it("should let members of a record's communities find its restricted record and its file data", async () => {
    const withMemberships = new RecordSearchService({
      index: env.parts.index,
      memberships: async (userId) => Object.keys(await env.deps.communities!.roles(userId)),
    });
    const plain = new RecordSearchService({ index: env.parts.index });
    const member = { sub: MEMBER, roles: [] };
    const q = { q: `id:${ids.restricted} AND files.entries.key:secretfil*` };
    expect((await withMemberships.searchRecords(member, q)).total).toBe(1);
    expect((await withMemberships.searchRecords({ sub: OTHER, roles: [] }, q)).total).toBe(0);
    expect((await plain.searchRecords(member, q)).total).toBe(0);
    const aggs = (await withMemberships.searchRecords(member, { q: 'probe' })).aggregations;
    expect(aggs.file_type.buckets.find((b) => b.key === HIDDEN_EXT)?.doc_count).toBe(1);
    // The community's own listing already counted its members in.
    const listed = await env.request.get(`/api/communities/${c.id}/records`).query(q).set(as(MEMBER));
    expect(listed.body.hits.total).toBe(1);
  });
});
