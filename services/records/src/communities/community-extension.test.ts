import { AppError } from '@rdm/platform';
import { describe, expect, it } from 'vitest';
import { CommunitiesComponent } from './communities.component.js';
import { parseRecordIds } from './community-records.service.js';
import type { PublishCheck } from '../domain/component.js';
import type { DraftRow } from '../domain/model.js';
import type { CommunitiesPort, ExtensionValidation } from '../domain/ports.js';

/** A communities port whose `validateExtension` answers from a table (404 for unknown schemas). */
class FakeExtensions implements Pick<CommunitiesPort, 'validateExtension'> {
  calls: { schemaId: string; extension: unknown }[] = [];
  constructor(private readonly answers: Record<string, ExtensionValidation>) {}
  async validateExtension(schemaId: string, extension: unknown): Promise<ExtensionValidation> {
    this.calls.push({ schemaId, extension });
    const a = this.answers[schemaId];
    if (!a) throw new AppError('schema_not_found', 404, 'The persistent identifier does not exist.');
    return a;
  }
}

const check = (metadata: Record<string, unknown>): PublishCheck => ({
  draft: { id: 'd', metadata } as unknown as DraftRow,
  record: undefined,
  errors: { metadata: [], files: [], pids: [], communities: [] },
  lock: false,
  frozen: { count: 0, total_bytes: 0, entries: {} },
});

function sut(port: FakeExtensions) {
  return new CommunitiesComponent({ communities: port as unknown as CommunitiesPort });
}

describe(CommunitiesComponent.name, () => {
  const bad = { field: 'metadata.community_extension.x:depth', messages: ['Must be greater than or equal to 0.'] };
  const port = new FakeExtensions({ ok: { valid: true }, bad: { valid: false, errors: [bad] } });

  it('should not ask the communities service when the draft names no extension schema', async () => {
    const c = check({ title: 't', community_extension: { 'x:depth': 1 } });
    const calls = port.calls.length;
    await sut(port).checkPublish(c);
    expect(port.calls.length).toBe(calls);
    expect(c.errors.communities).toEqual([]);
  });

  it('should validate the extension (an absent one as {}) and keep the reply errors as publish field errors', async () => {
    const valid = check({ community_extension_schema: 'ok' });
    await sut(port).checkPublish(valid);
    expect(port.calls.at(-1)).toEqual({ schemaId: 'ok', extension: {} });
    expect(valid.errors.communities).toEqual([]);
    const invalid = check({ community_extension_schema: 'bad', community_extension: { 'x:depth': -1 } });
    await sut(port).checkPublish(invalid);
    expect(invalid.errors.communities).toEqual([bad]);
  });

  it('should turn an unknown schema (404) into an error on metadata.community_extension_schema, and rethrow other failures', async () => {
    const unknown = check({ community_extension_schema: 'nope' });
    await sut(port).checkPublish(unknown);
    expect(unknown.errors.communities).toEqual([
      { field: 'metadata.community_extension_schema', messages: ['Unknown community schema extension.'] },
    ]);
    const down = { validateExtension: async () => Promise.reject(new AppError('service_unavailable', 503, 'Service unavailable.')) };
    await expect(sut(down as unknown as FakeExtensions).checkPublish(check({ community_extension_schema: 'ok' }))).rejects.toThrow(
      'Service unavailable.',
    );
  });
});

describe(parseRecordIds.name, () => {
  it('should read and de-duplicate the ids', () => {
    expect(parseRecordIds({ records: [{ id: 'a' }, { id: 'b' }, { id: 'a' }] })).toEqual(['a', 'b']);
  });

  it.each([
    [{}, 'records', 'Missing data for required field.'],
    [{ records: [] }, 'records', 'Shorter than minimum length 1.'],
    [{ records: [{ id: 1 }] }, 'records.0.id', 'Missing data for required field.'],
  ])('should refuse %j with a field error', (body, field, message) => {
    expect(() => parseRecordIds(body)).toThrow(expect.objectContaining({ status: 400, fieldErrors: [{ field, messages: [message] }] }));
  });

  it('should refuse more than 10 records', () => {
    const records = Array.from({ length: 11 }, (_, i) => ({ id: String(i) }));
    expect(() => parseRecordIds({ records })).toThrow('Exceeded maximum amount of records that can be updated at once: 10.');
  });
});
