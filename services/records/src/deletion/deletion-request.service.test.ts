import { describe, expect, it } from 'vitest';
import { DeletionRequestService, mayRequestDeletion, parseDeletionAsk } from './deletion-request.service.js';

const service = (gracePeriodDays: number) =>
  new DeletionRequestService({ db: {} as never, requests: {} as never, vocabularies: {} as never, gracePeriodDays });
const DAY = 86_400_000;

describe(DeletionRequestService.name, () => {
  it('should accept at once only within the grace period after publication and without an external DOI', () => {
    const now = new Date('2026-11-28T00:00:00Z');
    const at = (days: number) => new Date(now.getTime() - days * DAY);
    const s = service(30);
    expect(s.isImmediate({ created: at(0), pids: {} }, now)).toBe(true);
    expect(s.isImmediate({ created: at(30), pids: {} }, now)).toBe(true);
    expect(s.isImmediate({ created: at(31), pids: {} }, now)).toBe(false);
    expect(s.isImmediate({ created: at(1), pids: { doi: { provider: 'datacite' } } }, now)).toBe(true);
    expect(s.isImmediate({ created: at(1), pids: { doi: { provider: 'external' } } }, now)).toBe(false);
    expect(service(0).isImmediate({ created: at(1), pids: {} }, now)).toBe(false);
  });

  it('should parse the reason as an id or {id}, an optional comment, and refuse the rest with field errors', () => {
    expect(parseDeletionAsk({ reason: 'spam' })).toEqual({ reason: 'spam', comment: '' });
    expect(parseDeletionAsk({ reason: { id: ' spam ' }, comment: ' Twice. ' })).toEqual({ reason: 'spam', comment: 'Twice.' });
    const fields = (body: unknown) => {
      try {
        parseDeletionAsk(body);
      } catch (e) {
        return {
          status: (e as { status: number }).status,
          fields: (e as { fieldErrors: { field: string }[] }).fieldErrors.map((f) => f.field),
        };
      }
      throw new Error('expected a refusal');
    };
    expect(fields({})).toEqual({ status: 400, fields: ['reason'] });
    expect(fields({ reason: '', comment: 1, other: true })).toEqual({ status: 400, fields: ['other', 'reason', 'comment'] });
    expect(fields({ reason: 'spam', comment: 'x'.repeat(5001) })).toEqual({ status: 400, fields: ['comment'] });
    expect(fields([])).toEqual({ status: 400, fields: ['_schema'] });
  });

  it('should let only the owner ask', () => {
    expect(mayRequestDeletion({ sub: '1', roles: [] }, '1')).toBe(true);
    expect(mayRequestDeletion({ sub: '2', roles: ['admin'] }, '1')).toBe(false);
    expect(mayRequestDeletion({ sub: null, roles: [] }, '1')).toBe(false);
    expect(mayRequestDeletion({ sub: '1', roles: [] }, null)).toBe(false);
  });
});
