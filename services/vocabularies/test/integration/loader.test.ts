import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDb } from '@rdm/platform/testing';
import { testDb } from '@rdm/platform/testing';
import { normalizeEntry } from '../../src/domain/entry.js';
import { loadVocabularies } from '../../src/domain/loader.service.js';
import { fixtureSet } from './setup.js';

let t: TestDb;

beforeAll(async () => {
  t = await testDb('vocabularies', { pool: { max: 4 } });
});
afterAll(async () => {
  await t?.destroy();
});

const entry = (type: string, id: string) =>
  t.db('entries').select('revision_id', 'created', 'updated', 'title').where({ type, id }).first();
const outbox = () => t.db('outbox').select('payload').where({ subject: 'rdm.vocabularies.vocabulary.loaded' }).orderBy('seq');
const changedEvents = () => t.db('outbox').select('payload').where({ subject: 'rdm.vocabularies.entries.changed' }).orderBy('seq');

describe(loadVocabularies.name, () => {
  it('should load every vocabulary with its entry count and announce each type once', async () => {
    const results = await loadVocabularies(t.db, fixtureSet().vocabularies);
    const counts = Object.fromEntries(results.map((r) => [r.type, r.count]));
    expect(counts).toEqual({
      affiliations: 17,
      creatorsroles: 22,
      contributorsroles: 22,
      languages: 7847,
      licenses: 419,
      resourcetypes: 47,
      descriptiontypes: 6,
      datetypes: 12,
      names: 0,
      relationtypes: 39,
      removalreasons: 12,
      titletypes: 4,
      communitytypes: 4,
      funders: 21,
      awards: 0,
      'code:developmentStatus': 8,
      'code:programmingLanguages': 706,
      subjects: 0,
    });
    expect(results.every((r) => r.createdType && r.emitted)).toBe(true);
    const types = await t.db('vocabulary_types').select('id', 'pid_type', 'is_custom').orderBy('id');
    expect(types).toContainEqual({ id: 'resourcetypes', pid_type: 'rsrct', is_custom: false });
    expect(types).toContainEqual({ id: 'subjects', pid_type: 'sub', is_custom: true });
    const events = await outbox();
    expect(events).toHaveLength(18);
    expect(events.find((e) => e.payload.data.type === 'languages')?.payload).toMatchObject({
      type: 'rdm.vocabularies.vocabulary.loaded',
      version: 1,
      aggregate: { type: 'vocabulary', id: 'languages', revision: 1 },
      data: { type: 'languages', count: 7847 },
    });
    // The large vocabularies also name their changed entries for the search indexer; the small ones do not.
    const changed = (await changedEvents()).map((e) => e.payload);
    expect(changed.map((p) => [p.data.type, p.data.ids.length, p.aggregate])).toEqual([
      ['affiliations', 17, { type: 'vocabulary', id: 'affiliations', revision: 1 }],
      ['funders', 21, { type: 'vocabulary', id: 'funders', revision: 1 }],
    ]);
  });

  it('should be idempotent: a second load changes nothing, keeps revisions and emits no event', async () => {
    const before = await entry('resourcetypes', 'image-photo');
    const results = await loadVocabularies(t.db, fixtureSet().vocabularies);
    expect(results.every((r) => !r.createdType && r.inserted === 0 && r.updated === 0 && !r.emitted)).toBe(true);
    expect(results.find((r) => r.type === 'languages')?.unchanged).toBe(7847);
    expect(await entry('resourcetypes', 'image-photo')).toEqual(before);
    expect(before?.revision_id).toBe(1);
    expect(await outbox()).toHaveLength(18);
  });

  it('should bump the revision of a changed entry only, and announce its type', async () => {
    const rt = fixtureSet().vocabularies.find((v) => v.type === 'resourcetypes')!;
    const changed = {
      ...rt,
      entries: rt.entries.map((e) => (e.id === 'image-photo' ? { ...e, title: { ...(e.title as object), en: 'Photograph' } } : e)),
    };
    const before = await entry('resourcetypes', 'image-photo');
    const [result] = await loadVocabularies(t.db, [changed]);
    expect(result).toMatchObject({ type: 'resourcetypes', inserted: 0, updated: 1, unchanged: 46, count: 47, emitted: true });
    const after = await entry('resourcetypes', 'image-photo');
    expect(after?.revision_id).toBe(2);
    expect(after?.title.en).toBe('Photograph');
    expect(after?.created).toEqual(before?.created);
    expect(after?.updated.getTime()).toBeGreaterThan(before!.updated.getTime());
    expect((await entry('resourcetypes', 'image-figure'))?.revision_id).toBe(1);
    const events = await outbox();
    expect(events).toHaveLength(19);
    expect(events.at(-1)?.payload).toMatchObject({
      aggregate: { id: 'resourcetypes', revision: 2 },
      data: { type: 'resourcetypes', count: 47 },
    });
    // Loading the original content again is a change too (revision 3).
    await loadVocabularies(t.db, [rt]);
    expect((await entry('resourcetypes', 'image-photo'))?.revision_id).toBe(3);
  });

  it('should serialize concurrent loads (advisory lock) without duplicate rows', async () => {
    const small = fixtureSet().vocabularies.filter((v) => v.type === 'titletypes' || v.type === 'datetypes');
    const [a, b] = await Promise.all([loadVocabularies(t.db, small), loadVocabularies(t.db, small)]);
    expect([...a, ...b].every((r) => !r.emitted)).toBe(true);
    const { n } = (await t.db('entries').count('* as n').where({ type: 'titletypes' }).first()) as { n: string };
    expect(Number(n)).toBe(4);
  });

  it('should name at most 500 entries per entries.changed event', async () => {
    const names = {
      type: 'names',
      pidType: 'names',
      missingFile: false,
      entries: Array.from({ length: 1203 }, (_, i) =>
        normalizeEntry('names', { id: `n-${i}`, name: `N${i}, P`, given_name: 'P', family_name: `N${i}` }),
      ),
    };
    const before = (await changedEvents()).length;
    const [result] = await loadVocabularies(t.db, [names]);
    expect(result).toMatchObject({ type: 'names', inserted: 1203, emitted: true });
    const added = (await changedEvents()).slice(before).map((e) => e.payload.data);
    expect(added.map((d) => [d.type, d.ids.length])).toEqual([
      ['names', 500],
      ['names', 500],
      ['names', 203],
    ]);
    expect(new Set(added.flatMap((d) => d.ids)).size).toBe(1203);
  });
});
