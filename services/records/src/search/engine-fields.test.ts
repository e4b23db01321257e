import { buildSearchBody, type QueryAst } from '@rdm/platform';
import { describe, expect, it } from 'vitest';
import { RECORD_DSL_FIELDS, valuesAt } from './engine-fields.js';
import { RECORD_FIELDS } from './fields.js';

describe('record fields on the search engines', () => {
  it('should have a twin for every q field of the postgres engine, aliases pointing at the same names', () => {
    for (const [name, spec] of Object.entries(RECORD_FIELDS)) {
      expect(RECORD_DSL_FIELDS[name], name).toBeDefined();
      if (typeof spec === 'string') expect(RECORD_DSL_FIELDS[name]).toBe(spec);
      else expect(typeof RECORD_DSL_FIELDS[name], name).toBe('object');
    }
  });

  it('should keep permission fields out of reach of q, by name and by glob', () => {
    const body = (q: QueryAst) =>
      JSON.stringify(buildSearchBody({ query: q, fields: RECORD_DSL_FIELDS, sort: [], from: 0, size: 1 }).query);
    expect(body({ type: 'term', field: '#grants', value: 'user:1', wildcard: false })).toBe('{"match_none":{}}');
    expect(body({ type: 'term', field: '*', value: 'user:1', wildcard: false })).not.toContain('grants');
    expect(body({ type: 'term', field: '*', value: 'user:1', wildcard: false })).not.toContain('owner_id');
  });

  it('should read values at dotted paths with arrays flattened', () => {
    const doc = { metadata: { creators: [{ affiliations: [{ id: 'a' }, { id: 'b' }] }, { affiliations: [{ id: 'c' }] }], version: 'v1' } };
    expect(valuesAt(doc, 'metadata.creators[].affiliations[].id')).toEqual(['a', 'b', 'c']);
    expect(valuesAt(doc, 'metadata.version')).toEqual(['v1']);
    expect(valuesAt(doc, 'metadata.missing[].id')).toEqual([]);
  });
});
