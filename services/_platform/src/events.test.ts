import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { validateEvent } from './events.js';

describe(validateEvent.name, () => {
  it('should turn an event that breaks its contract into a 500 AppError naming the subject', () => {
    const sut = {
      id: randomUUID(),
      type: 'rdm.files.file.committed',
      version: 1,
      occurred_at: new Date().toISOString(),
      aggregate: { type: 'file', id: 'f1', revision: 1 },
      data: { bucket_id: 'b', key: 'a.txt', size: -1, checksum: 'sha1:x' },
    };
    let caught: unknown;
    try {
      validateEvent('rdm.files.file.committed', sut);
    } catch (err) {
      caught = err;
    }
    expect(caught).toMatchObject({ code: 'invalid_event', status: 500 });
    expect((caught as Error).message).toContain('rdm.files.file.committed');
    expect((caught as Error).message).toContain('/data/size');
  });
});
