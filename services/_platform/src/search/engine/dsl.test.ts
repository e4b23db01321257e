import { describe, expect, it } from 'vitest';
import { QuerySyntaxError } from '../ast.js';
import { parseQuery } from '../parser.js';
import { compileToSql } from '../sql.js';
import { buildQuery, buildSearchBody } from './dsl.js';
import type { DslFieldMap } from './port.js';

const FIELDS: DslFieldMap = {
  title: { kind: 'text', path: 'title' },
  type: { kind: 'keyword', path: 'type_id' },
  id: { kind: 'keyword', path: 'id', caseSensitive: true },
  created: { kind: 'date', path: 'created' },
  n: { kind: 'number', path: 'n' },
  alias: 'title',
};
const q = (s: string) => buildQuery(parseQuery(s), FIELDS, { now: new Date('2024-01-01T00:00:00Z') });

describe(buildQuery.name, () => {
  it('should fold unfielded terms and match all their words on the full-text field', () => {
    expect(q('Römäns')).toEqual({ match: { search_text: { query: 'romans', operator: 'and' } } });
    expect(q('"Ocean Data"')).toEqual({ match_phrase: { search_text: { query: 'ocean data' } } });
    expect(q('Oce*')).toEqual({ prefix: { search_text: { value: 'oce' } } });
  });

  it('should match keywords case-insensitively unless the field is case-sensitive', () => {
    expect(q('type:Dataset')).toEqual({ term: { type_id: { value: 'Dataset', case_insensitive: true } } });
    expect(q('id:AbC')).toEqual({ term: { id: { value: 'AbC', case_insensitive: false } } });
  });

  it('should give dates the same periods as the SQL compiler and NOT keep documents without the field', () => {
    expect(q('created:2020')).toEqual({
      bool: {
        filter: [{ range: { created: { gte: '2020-01-01T00:00:00.000Z' } } }, { range: { created: { lt: '2021-01-01T00:00:00.000Z' } } }],
      },
    });
    expect(q('NOT type:x')).toEqual({ bool: { must_not: [{ term: { type_id: { value: 'x', case_insensitive: true } } }] } });
  });

  it('should match nothing for unknown fields, and impose nothing for punctuation-only terms', () => {
    expect(q('nofield:x')).toEqual({ match_none: {} });
    expect(q('&')).toEqual({ match_none: {} });
    expect(q('ocean AND &')).toEqual({ match: { search_text: { query: 'ocean', operator: 'and' } } });
    expect(q('alias:sea')).toEqual({ match: { title: { query: 'sea', operator: 'and' } } });
  });

  it('should throw the same QuerySyntaxError as compileToSql on a value a field rejects', () => {
    for (const s of ['created:abc', 'created:2020*', 'n:abc', 'n:1*', 'created:/x/']) {
      expect(() => q(s), s).toThrow(QuerySyntaxError);
      expect(() => compileToSql(parseQuery(s), { created: { kind: 'date', expr: 'c' }, n: { kind: 'number', expr: 'n' } }), s).toThrow(
        QuerySyntaxError,
      );
    }
  });
});

describe(buildSearchBody.name, () => {
  it('should put scopes in filter, facet selections in post_filter, and order buckets by count then key', () => {
    const body = buildSearchBody({
      query: parseQuery('ocean'),
      fields: FIELDS,
      filters: [parseQuery('type:a')],
      postFilters: [parseQuery('type:b')],
      sort: [{ path: 'created', order: 'desc' }],
      from: 10,
      size: 5,
      aggs: { type: { type: 'terms', path: 'type_id' } },
    });
    expect(body).toMatchObject({
      query: { bool: { must: [{ match: {} }], filter: [{ term: { type_id: { value: 'a' } } }] } },
      post_filter: { bool: { filter: [{ term: { type_id: { value: 'b' } } }] } },
      sort: [{ created: { order: 'desc', missing: '_last' } }],
      from: 10,
      size: 5,
      track_total_hits: true,
      aggs: { type: { terms: { field: 'type_id', order: [{ _count: 'desc' }, { _key: 'asc' }] } } },
    });
  });
});

describe('buildSearchBody trackTotalHits', () => {
  it('should count every hit unless the caller says it knows the total', () => {
    const req = { query: parseQuery(''), fields: FIELDS, sort: [{ path: 'created', order: 'desc' as const }], from: 0, size: 5 };
    expect(buildSearchBody(req).track_total_hits).toBe(true);
    expect(buildSearchBody({ ...req, trackTotalHits: true }).track_total_hits).toBe(true);
    expect(buildSearchBody({ ...req, trackTotalHits: false }).track_total_hits).toBe(false);
  });
});

describe('buildSearchBody boosts', () => {
  it('should add each boost as a scoring-only constant_score clause beside the query and filters', () => {
    const body = buildSearchBody({
      query: parseQuery('ocean'),
      fields: FIELDS,
      boosts: [{ filter: parseQuery('id:CERN'), weight: 10 }],
      sort: [{ path: '_score', order: 'desc' }],
      from: 0,
      size: 5,
    });
    expect(body.query).toEqual({
      bool: {
        must: [{ match: { search_text: { query: 'ocean', operator: 'and' } } }],
        should: [{ constant_score: { filter: { term: { id: { value: 'CERN', case_insensitive: false } } }, boost: 10 } }],
      },
    });
  });
});
