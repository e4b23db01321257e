import { describe, expect, it } from 'vitest';
import {
  FileModificationRequestService,
  mayRequestFileModification,
  parseFileModificationAsk,
  withinGracePeriod,
} from './file-modification-request.service.js';

const DAY = 86_400_000;

describe(FileModificationRequestService.name, () => {
  it('should accept at once only within the grace period after publication', () => {
    const now = new Date('2026-11-28T00:00:00Z');
    const at = (days: number) => new Date(now.getTime() - days * DAY);
    expect(withinGracePeriod(at(0), 30, now)).toBe(true);
    expect(withinGracePeriod(at(30), 30, now)).toBe(true);
    expect(withinGracePeriod(at(31), 30, now)).toBe(false);
    expect(withinGracePeriod(at(1), 0, now)).toBe(false);
  });

  it('should take no body, an empty one or a comment of at least 25 characters, and refuse the rest with field errors', () => {
    expect(parseFileModificationAsk(undefined)).toEqual({ comment: '' });
    expect(parseFileModificationAsk({})).toEqual({ comment: '' });
    expect(parseFileModificationAsk({ comment: null })).toEqual({ comment: '' });
    expect(parseFileModificationAsk({ comment: '  The second file was the wrong one.  ' })).toEqual({
      comment: 'The second file was the wrong one.',
    });
    const fields = (body: unknown) => {
      try {
        parseFileModificationAsk(body);
      } catch (e) {
        return {
          status: (e as { status: number }).status,
          fields: (e as { fieldErrors: { field: string }[] }).fieldErrors.map((f) => f.field),
        };
      }
      return undefined;
    };
    expect(fields([])).toEqual({ status: 400, fields: ['_schema'] });
    expect(fields({ comment: 'too short' })).toEqual({ status: 400, fields: ['comment'] });
    expect(fields({ comment: 5 })).toEqual({ status: 400, fields: ['comment'] });
    expect(fields({ comment: 'x'.repeat(5001) })).toEqual({ status: 400, fields: ['comment'] });
    expect(fields({ policy: 'grace' })).toEqual({ status: 400, fields: ['policy'] });
  });

  it('should let only the owner ask', () => {
    expect(mayRequestFileModification({ sub: '1', roles: [] }, '1')).toBe(true);
    expect(mayRequestFileModification({ sub: '2', roles: ['admin'] }, '1')).toBe(false);
    expect(mayRequestFileModification({ sub: null, roles: [] }, '1')).toBe(false);
    expect(mayRequestFileModification({ sub: '1', roles: [] }, null)).toBe(false);
  });
});
