import { describe, expect, it } from 'vitest';
import { isAppError } from '@rdm/platform';
import { buildEntrySearch, fieldsFor, parseQ, suggestWords } from './search.js';

const base = { type: 'resourcetypes', q: '', suggest: '', tags: [] as string[], sort: 'title', limit: 25, offset: 0, hideUnlisted: true };

describe(buildEntrySearch.name, () => {
  it('should filter by type only implicitly and hide unlisted entries from non-system callers', () => {
    const sut = buildEntrySearch(base);
    expect(sut.where.map((w) => w.sql)).toEqual([`NOT (e.tags @> '{unlisted}'::text[])`]);
    expect(sut.orderBy.sql).toContain('e.sort_key');
    expect(buildEntrySearch({ ...base, hideUnlisted: false }).where).toEqual([]);
  });

  it('should OR repeated tags into one array overlap filter', () => {
    const sut = buildEntrySearch({ ...base, tags: ['recommended', 'data'], hideUnlisted: false });
    expect(sut.where).toEqual([{ sql: 'e.tags && ?::text[]', bindings: ['{"recommended","data"}'] }]);
  });

  it('should compile q against the search vector and rank by it for bestmatch', () => {
    const sut = buildEntrySearch({ ...base, q: 'photo', sort: 'bestmatch', hideUnlisted: false });
    expect(sut.where[0].sql).toContain('e.search_vector @@');
    expect(sut.where[0].bindings).toEqual(['photo']);
    expect(sut.orderBy.sql).toMatch(/^\(ts_rank_cd/);
  });

  it('should turn suggest into an AND of word prefixes', () => {
    const sut = buildEntrySearch({ ...base, suggest: 'Jour Art', sort: 'bestmatch', hideUnlisted: false });
    expect(sut.where[0]).toEqual({ sql: `e.suggest_vector @@ to_tsquery('simple', ?)`, bindings: [`'jour':* & 'art':*`] });
  });

  it('should restrict subject suggestions to the schemes before a colon', () => {
    const sut = buildEntrySearch({ ...base, type: 'subjects', suggest: 'MeSH,FOS:canc', sort: 'bestmatch', hideUnlisted: false });
    expect(sut.where[0]).toEqual({ sql: 'e.scheme = ANY(?::text[])', bindings: ['{"MeSH","FOS"}'] });
    expect(sut.where[1].bindings).toEqual([`'canc':*`]);
  });

  it('should sort newest and oldest by creation', () => {
    expect(buildEntrySearch({ ...base, sort: 'newest' }).orderBy.sql).toBe('e.created DESC, e.id ASC');
    expect(buildEntrySearch({ ...base, sort: 'oldest' }).orderBy.sql).toBe('e.created ASC, e.id ASC');
  });
});

describe(parseQ.name, () => {
  it('should answer a syntax error with the 400 of InvenioRDM', () => {
    try {
      parseQ('(');
      expect.unreachable();
    } catch (e) {
      expect(isAppError(e) && e.status === 400 && e.message).toBe('Invalid query string syntax.');
    }
  });
});

describe(fieldsFor.name, () => {
  it('should add the props and title fields a query names, and refuse unsafe keys', () => {
    const fields = fieldsFor(parseQ("props.type:image AND title.xx:y AND props.a'b:c"));
    expect(fields['props.type']).toEqual({ kind: 'text', expr: `e.search_fields->>'props.type'` });
    expect(fields['title.xx']).toBeDefined();
    expect(fields["props.a'b"]).toBeUndefined();
  });
});

describe(suggestWords.name, () => {
  it('should fold and split on punctuation', () => {
    expect(suggestWords('Kernforschung, Genève')).toEqual(['kernforschung', 'geneve']);
  });
});
