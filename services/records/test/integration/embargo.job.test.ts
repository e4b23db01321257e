/**
 * The embargo lifter: expired embargoes lifted once by two runners at once (SKIP LOCKED), the
 * record opened (read, search, access.status), one outbox event per record; future ones untouched.
 */
import { createLogger } from '@rdm/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbargoLifter } from '../../src/jobs/embargo.job.js';
import { as, type Env, fullMetadata, startEnv } from './support.js';

const OWNER = '701';
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

describe('embargo lifter', () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv();
  });
  afterAll(async () => {
    await env?.close();
  });

  const embargoed = async (): Promise<string> => {
    const d = (
      await env.request
        .post('/api/records')
        .set(as(OWNER))
        .send({
          metadata: fullMetadata(),
          access: { record: 'restricted', files: 'restricted', embargo: { active: true, until: day(1), reason: 'Under review' } },
        })
    ).body;
    env.files.addFile(d.id, 'a.txt');
    await env.request.post(`/api/records/${d.id}/draft/actions/publish`).set(as(OWNER)).expect(202);
    return d.id as string;
  };

  it('should lift each expired embargo exactly once with two runners at once, and leave future ones', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await embargoed());
    const future = await embargoed();
    expect((await env.request.get(`/api/records/${ids[0]}`)).status).toBe(403);
    // The embargoes ended (the job was down for days: it catches up with every one of them).
    await env.db.raw(`UPDATE records SET access = jsonb_set(access, '{embargo,until}', to_jsonb(?::text)) WHERE id = ANY(?)`, [
      day(-3),
      ids,
    ]);
    await env.request.post(`/api/records/${ids[0]}/draft`).set(as(OWNER)).expect(201); // an edit draft follows the record
    await env.db.raw(`UPDATE drafts SET access = jsonb_set(access, '{embargo,until}', to_jsonb(?::text)) WHERE id = ?`, [day(-3), ids[0]]);

    const logger = createLogger('embargo-test', 'silent');
    const a = new EmbargoLifter({ db: env.db, index: env.parts.index, logger });
    const b = new EmbargoLifter({ db: env.db, index: env.parts.index, logger });
    const [na, nb] = await Promise.all([a.runOnce(), b.runOnce()]);
    expect(na + nb).toBe(ids.length);
    expect(await a.runOnce()).toBe(0);

    const events = await env.db.raw<{ rows: { aggregate_id: string; payload: { data: Record<string, unknown> } }[] }>(
      "SELECT aggregate_id, payload FROM outbox WHERE subject = 'rdm.records.record.embargo-lifted' AND aggregate_id = ANY(?)",
      [[...ids, future]],
    );
    expect(events.rows.map((e) => e.aggregate_id).sort()).toEqual([...ids].sort());
    expect(events.rows[0]!.payload.data).toMatchObject({ access_status: 'open', until: day(-3) });

    const r = await env.request.get(`/api/records/${ids[1]}`).expect(200);
    expect(r.body.access).toEqual({
      record: 'public',
      files: 'public',
      embargo: { active: false, until: day(-3), reason: 'Under review' },
      status: 'open',
    });
    const hits = (await env.request.get(`/api/records?q=id:${ids[1]}`).expect(200)).body.hits.hits;
    expect(hits.map((h: { id: string; access: { status: string } }) => [h.id, h.access.status])).toEqual([[ids[1], 'open']]);
    const draft = (await env.request.get(`/api/records/${ids[0]}/draft`).set(as(OWNER)).expect(200)).body;
    expect(draft.access).toMatchObject({ record: 'public', embargo: { active: false } });
    await env.request.post(`/api/records/${ids[0]}/draft/actions/publish`).set(as(OWNER)).expect(202);

    expect((await env.request.get(`/api/records/${future}`)).status).toBe(403);
    expect((await env.request.get(`/api/records/${future}`).set(as(OWNER))).body.access.status).toBe('embargoed');
  });
});
