import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { envelopeSchema, eventSubjects, eventsDir, registerEventSchema, checkEvent } from './events.js';

const envelope = (type: string, data: Record<string, unknown>, version = 1) => ({
  id: randomUUID(),
  type,
  version,
  occurred_at: new Date().toISOString(),
  aggregate: { type: 'record', id: 'abcde-12345', revision: 3 },
  data,
});

describe(checkEvent.name, () => {
  it('should load a schema for every event subject of proto/README.md, and document every schema there', () => {
    const readme = readFileSync(join(eventsDir(), '..', 'README.md'), 'utf8');
    const rows = readme.split('\n').filter((l) => l.startsWith('| `rdm.'));
    // A row names its subjects literally (`rdm.files.file.committed`) or as a family
    // (`rdm.requests.request.<verb>` (`created`, `submitted`, …) or `….added` / `.removed`).
    const documented = (subject: string) => {
      const [, svc, entity, verb] = subject.split('.');
      return rows.some(
        (r) =>
          r.includes(`\`${subject}\``) || (r.includes(`rdm.${svc}.${entity}.`) && new RegExp(`[\`.]${verb}[\`]`).test(r.split('|')[1])),
      );
    };
    const subjects = eventSubjects();
    expect(subjects.length).toBeGreaterThan(20);
    expect(subjects.filter((s) => !documented(s))).toEqual([]);
    expect(subjects).toEqual(
      expect.arrayContaining(['rdm.files.file.committed', 'rdm.records.record.published', 'rdm.requests.request.accepted']),
    );
    expect(eventSubjects('records')).toEqual(subjects.filter((s) => s.startsWith('rdm.records.')));
    expect(eventSubjects('records')).toEqual(expect.arrayContaining(['rdm.records.draft.created', 'rdm.records.review.failed']));
  });

  it('should accept a valid envelope', () => {
    const sut = envelope('rdm.records.record.published', {
      id: 'abcde-12345',
      parent_id: 'fghij-67890',
      index: 1,
      is_latest: true,
      access_status: 'open',
      bucket_id: 'b1',
    });
    expect(() => checkEvent('rdm.records.record.published', sut)).not.toThrow();
  });

  it('should reject invalid data with a ContractError naming the subject and each field', () => {
    const sut = envelope('rdm.files.file.committed', { bucket_id: 'b', key: 'a.txt', size: -1, checksum: 'sha1:x' });
    let caught: unknown;
    try {
      checkEvent('rdm.files.file.committed', sut);
    } catch (err) {
      caught = err;
    }
    expect(caught).toMatchObject({ name: 'ContractError', code: 'invalid_event' });
    expect((caught as Error).message).toContain('rdm.files.file.committed');
    expect((caught as Error).message).toContain('/data/size');
    expect((caught as Error).message).toContain('/data/checksum');
  });

  it('should reject an envelope whose type is not the subject', () => {
    const sut = envelope('rdm.users.user.created', { id: '1', email: 'a@b.c' });
    expect(() => checkEvent('rdm.users.user.deactivated', sut)).toThrow(/rdm\.users\.user\.deactivated/);
  });

  it('should reject envelope fields that are missing or malformed', () => {
    const sut = { ...envelope('rdm.users.user.deactivated', { id: '1' }), id: 'not-a-uuid', occurred_at: 'yesterday' };
    expect(() => checkEvent('rdm.users.user.deactivated', sut)).toThrow(/\/id .*uuid/);
  });

  it('should reject a subject without a schema', () => {
    expect(() => checkEvent('rdm.nope.thing.happened', envelope('rdm.nope.thing.happened', {}))).toThrow(
      /No event schema for rdm\.nope\.thing\.happened v1/,
    );
  });

  it('should reject a version without a schema', () => {
    expect(() => checkEvent('rdm.users.user.deactivated', envelope('rdm.users.user.deactivated', { id: '1' }, 2))).toThrow(/v2/);
  });

  it('should validate schemas registered at runtime', () => {
    registerEventSchema('rdmtest.unit.thing.happened', 1, {
      type: 'object',
      required: ['n'],
      properties: { n: { type: 'integer' } },
    });
    expect(() => checkEvent('rdmtest.unit.thing.happened', envelope('rdmtest.unit.thing.happened', { n: 1 }))).not.toThrow();
    expect(() => checkEvent('rdmtest.unit.thing.happened', envelope('rdmtest.unit.thing.happened', { n: 'x' }))).toThrow();
  });

  it('should build envelope schemas that pin type and version', () => {
    const sut = envelopeSchema('rdm.a.b.c', 2, { type: 'object' }) as { properties: Record<string, unknown> };
    expect(sut.properties.type).toEqual({ const: 'rdm.a.b.c' });
    expect(sut.properties.version).toEqual({ const: 2 });
  });
});
