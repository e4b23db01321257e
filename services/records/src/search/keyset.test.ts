import { describe, expect, it } from 'vitest';
import { Keysets, keysetAfter, sortColumns } from './keyset.js';

describe('keyset pagination conditions', () => {
  it('should parse column sorts and refuse anything else', () => {
    expect(sortColumns('created DESC, id DESC, kind')).toEqual([
      { column: 'created', desc: true },
      { column: 'id', desc: true },
      { column: 'kind', desc: false },
    ]);
    expect(sortColumns('rank DESC, created DESC, id DESC, kind')).toBeNull();
    expect(sortColumns('created DESC NULLS LAST, id')).toBeNull();
  });

  it('should write mixed directions as an index range AND an explicit OR chain', () => {
    const cols = sortColumns('created DESC, id DESC, kind') ?? [];
    expect(keysetAfter(cols, ['2026-01-01 00:00:00.123457+00', 'abc', 'draft'])).toEqual({
      sql: '(created, id) <= (?::timestamptz, ?::text) AND ((created, id) < (?::timestamptz, ?::text) OR (created = ?::timestamptz AND id = ?::text AND kind > ?::text))',
      bindings: [
        '2026-01-01 00:00:00.123457+00',
        'abc',
        '2026-01-01 00:00:00.123457+00',
        'abc',
        '2026-01-01 00:00:00.123457+00',
        'abc',
        'draft',
      ],
    });
  });

  it('should write one direction as one row comparison', () => {
    const cols = sortColumns('created ASC, id ASC, kind') ?? [];
    expect(keysetAfter(cols, ['t', 'i', 'record'])).toEqual({
      sql: '(created, id, kind) > (?::timestamptz, ?::text, ?::text)',
      bindings: ['t', 'i', 'record'],
    });
  });

  it('should not use a key with a NULL or of another length', () => {
    const cols = sortColumns('views DESC, created DESC, id DESC, kind') ?? [];
    expect(keysetAfter(cols, ['1', null, 'i', 'record'])).toBeNull();
    expect(keysetAfter(cols, ['1', 't', 'i'])).toBeNull();
  });

  it('should serve a remembered key only under its stamp, and stay bounded', () => {
    const k = new Keysets(2);
    k.set('q', 20, 's1', ['a']);
    expect(k.get('q', 20, 's1')).toEqual(['a']);
    expect(k.get('q', 20, 's2')).toBeNull();
    expect(k.get('q', 10, 's1')).toBeNull();
    k.set('q', 30, 's1', ['b']);
    k.set('q', 40, 's1', ['c']);
    expect(k.size).toBe(2);
    expect(k.get('q', 20, 's1')).toBeNull();
  });
});
