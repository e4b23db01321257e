import { parseQuery, QuerySyntaxError } from '@rdm/platform';
import { describe, expect, it } from 'vitest';
import { compileQuery, RECORD_FIELDS, withVectorPrefilter } from './fields.js';
import { FILES_READABLE_COLUMN } from './files-guard.js';

describe(withVectorPrefilter.name, () => {
  it('should add the unfielded term beside a fielded text term that is part of the vector', () => {
    expect(withVectorPrefilter(parseQuery('metadata.title:romans'))).toEqual({
      type: 'and',
      children: [
        { type: 'term', value: 'romans', wildcard: false },
        { type: 'term', field: 'metadata.title', value: 'romans', wildcard: false },
      ],
    });
  });

  it('should follow aliases and keep phrases and prefixes', () => {
    const ast = withVectorPrefilter(parseQuery('creators.creator:"troy brown" title:rom*'));
    expect(JSON.stringify(ast)).toContain('"type":"phrase","value":"troy brown"');
    expect(JSON.stringify(ast)).toContain('"type":"term","value":"rom*","wildcard":true');
  });

  it('should leave keyword fields, non-vector text fields, globs and inner wildcards alone', () => {
    for (const q of ['id:abc', 'metadata.locations.features.place:x', 'metadata.*:x', 'title:r?mans', 'unknown.field:x']) {
      expect(withVectorPrefilter(parseQuery(q))).toEqual(parseQuery(q));
    }
  });
});

describe(compileQuery.name, () => {
  it('should match all without q', () => {
    expect(compileQuery('')).toMatchObject({ matchAll: true, where: { sql: 'TRUE' } });
    expect(compileQuery('*').matchAll).toBe(true);
  });

  it('should search the vector for unfielded terms and rank them', () => {
    const c = compileQuery('Römäns');
    expect(c.where).toEqual({ sql: "search_vector @@ plainto_tsquery('simple'::regconfig, ?)", bindings: ['romans'] });
    expect(c.rank.sql).toContain('ts_rank_cd(search_vector');
  });

  it('should compile keyword fields to containment and columns', () => {
    expect(compileQuery('pids.doi.identifier:10.1234/abc').where).toEqual({
      sql: 'doc @> ?::jsonb',
      bindings: ['{"pids":{"doi":{"identifier":"10.1234/abc"}}}'],
    });
    expect(compileQuery('parent.id:abcde-fgh12').where).toEqual({ sql: '(parent_id) = ?', bindings: ['abcde-fgh12'] });
    expect(compileQuery('metadata.resource_type.id:dataset').where.sql).toBe('(resource_type_id) = ?');
  });

  it('should throw QuerySyntaxError for values a field rejects (what the engine would refuse)', () => {
    for (const q of ['metadata.publication_date:someday', 'versions.index:abc']) {
      expect(() => compileQuery(q), q).toThrow(QuerySyntaxError);
    }
  });

  it('should fall back to the plain words of a q the parser cannot read', () => {
    expect(compileQuery('(a')).toEqual(compileQuery('a'));
    for (const q of ['title:', '"open', 'AND']) expect(() => compileQuery(q), q).not.toThrow();
  });

  it('should read file data only through the files-readable guard (defect 2), and say so', () => {
    for (const q of [
      'files.entries.key:data*',
      'files.count:1',
      'files.count:[1 TO 3]',
      'files.types:csv',
      'file_type:csv',
      'files.\\*:x',
    ]) {
      const c = compileQuery(q);
      expect(c.readsFiles, q).toBe(true);
      expect(c.where.sql, q).toContain(`CASE WHEN ${FILES_READABLE_COLUMN} THEN`);
    }
    for (const q of ['ocean', 'id:abc', 'files.enabled:true', 'metadata.title:ocean']) {
      const c = compileQuery(q);
      expect(c.readsFiles, q).toBe(false);
      expect(c.where.sql, q).not.toContain(FILES_READABLE_COLUMN);
    }
  });

  it('should map every alias to a known field', () => {
    for (const [name, spec] of Object.entries(RECORD_FIELDS)) {
      if (typeof spec === 'string') expect(Object.hasOwn(RECORD_FIELDS, spec), `${name} → ${spec}`).toBe(true);
    }
  });
});
