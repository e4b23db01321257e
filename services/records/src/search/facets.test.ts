import { describe, expect, it } from 'vitest';
import { parseDateWindow, parseFacetFilters, parseNested } from './facet-params.js';
import { renderAggregations } from './facet-render.js';
import { aggregationSql, facetFilterSql } from './facet-sql.js';
import { fileTypesExpr, PUBLIC_FILES, publishedFilesGuard } from './files-guard.js';
import type { AggRow } from './indexer.js';

const NOW = new Date('2024-06-15T12:00:00Z');

describe(parseDateWindow.name, () => {
  it.each([
    ['2020', { lo: '2020-01-01', hi: '2021-01-01' }],
    ['2020-02', { lo: '2020-02-01', hi: '2020-03-01' }],
    ['2020-02-29', { lo: '2020-02-29', hi: '2020-03-01' }],
    ['2019--2021', { lo: '2019-01-01', hi: '2022-01-01' }],
    ['2019..2021', { lo: '2019-01-01', hi: '2022-01-01' }],
    ['2019/2021-06', { lo: '2019-01-01', hi: '2021-07-01' }],
    ['..2020', { hi: '2021-01-01' }],
    ['2020..', { lo: '2020-01-01' }],
    ['[2019..2021)', { lo: '2019-01-01', hi: '2021-01-01' }],
    ['(2019..2021]', { lo: '2020-01-01', hi: '2022-01-01' }],
    ['2019-05-01--2019-05-31', { lo: '2019-05-01', hi: '2019-06-01' }],
  ])('should parse %j', (raw, expected) => {
    expect(parseDateWindow(raw, NOW)).toEqual(expected);
  });

  it.each(['', 'yesterday', '2020-13', '2019--abc', '--', '2020-02-30'])('should refuse %j', (raw) => {
    expect(parseDateWindow(raw, NOW)).toBeNull();
  });
});

describe(parseFacetFilters.name, () => {
  it('should collect repeated values, both resource type spellings, and lower-case file types', () => {
    const f = parseFacetFilters({
      access_status: ['open', 'restricted'],
      file_type: 'PDF',
      resource_types: 'image',
      resource_type: 'dataset',
    });
    expect(f).toMatchObject({
      accessStatus: ['open', 'restricted'],
      fileType: ['pdf'],
      resourceTypes: ['image', 'dataset'],
      isPublished: [],
    });
  });

  it('should answer 400 to an invalid date or boolean', () => {
    expect(() => parseFacetFilters({ publication_date: 'soon' })).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => parseFacetFilters({ is_published: 'maybe' }, { isPublished: true })).toThrow(expect.objectContaining({ status: 400 }));
  });

  it('should ignore is_published where it is not a facet', () => {
    expect(parseFacetFilters({ is_published: 'maybe' }).isPublished).toEqual([]);
  });
});

describe(parseNested.name, () => {
  it('should group subtypes under their type', () => {
    expect([...parseNested(['publication', 'publication::publication-book', 'image::image-photo', 'image::x::image-plot'])]).toEqual([
      ['publication', ['publication-book']],
      ['image', ['image-photo', 'image-plot']],
    ]);
  });
});

describe(facetFilterSql.name, () => {
  it('should be null without facet filters', () => {
    expect(facetFilterSql(parseFacetFilters({}))).toBeNull();
  });

  it('should AND facets, OR values, and keep every value in bindings', () => {
    const sql = facetFilterSql(
      parseFacetFilters({ access_status: 'open', resource_types: ['image::image-photo', 'dataset', 'image-plot'], file_type: 'csv' }),
    );
    expect(sql?.sql).toBe(
      '(access_status = ANY(?::text[]) AND file_types && ?::text[] AND ((resource_type_type = ? AND resource_type_subtype = ANY(?::text[])) OR resource_type_type = ? OR (resource_type_type = ? OR (resource_type_type = ? AND resource_type_subtype = ?))))',
    );
    expect(sql?.bindings).toEqual([['open'], ['csv'], 'image', ['image-photo'], 'dataset', 'image-plot', 'image', 'image-plot']);
    expect(sql?.sql).not.toContain("'");
  });
});

describe('file types of files the caller may not read (defect 2)', () => {
  const readable = { sql: "(access_files = 'public' OR owner_id = ?)", bindings: ['7'] };

  it('should filter file types only among documents whose files the caller may read', () => {
    const sql = facetFilterSql(parseFacetFilters({ file_type: 'csv', access_status: 'open' }), readable);
    expect(sql).toEqual({
      sql: "(access_status = ANY(?::text[]) AND (file_types && ?::text[] AND (access_files = 'public' OR owner_id = ?)))",
      bindings: [['open'], ['csv'], '7'],
    });
    expect(facetFilterSql(parseFacetFilters({ access_status: 'open' }), readable)?.sql).not.toContain('owner_id');
  });

  it('should count as file types only those the caller may read, bindings in statement order', () => {
    const q = aggregationSql({ sql: 'kind = ?', bindings: ['record'] }, { fileTypes: fileTypesExpr(readable) });
    expect(q.sql).toContain("(CASE WHEN (access_files = 'public' OR owner_id = ?) THEN file_types END) AS file_types");
    expect(q.sql.indexOf('owner_id = ?')).toBeLessThan(q.sql.indexOf('kind = ?'));
    expect(q.bindings).toEqual(['7', 'record']);
    expect(fileTypesExpr({ sql: 'TRUE', bindings: [] })).toEqual({ sql: 'file_types', bindings: [] });
  });

  it('should guard anonymous callers by public files and let administrators read all', () => {
    const anon = publishedFilesGuard({ sub: null, roles: [] }, null);
    expect(anon).toEqual({ files: PUBLIC_FILES, sharedFiles: { sql: "access_files = 'public'", bindings: [] }, filesExtra: null });
    const owner = publishedFilesGuard({ sub: '7', roles: [] }, { sql: 'owner_id = ?', bindings: ['7'] });
    expect(owner.files.sql).toBe(`(${PUBLIC_FILES.sql} OR owner_id = ?)`);
    expect(owner.filesExtra).toEqual({ sql: 'owner_id = ?', bindings: ['7'] });
    expect(publishedFilesGuard({ sub: '1', roles: ['admin'] }, null).files.sql).toBe('TRUE');
    expect(publishedFilesGuard({ sub: '7', roles: [] }, null, true).sharedFiles.sql).toBe('TRUE');
  });
});

describe(renderAggregations.name, () => {
  const rows: AggRow[] = [
    { f: 'a', k: 'open', s: null, a: null, ys: null, ye: null, n: 3 },
    { f: 'a', k: 'metadata-only', s: null, a: null, ys: null, ye: null, n: 1 },
    { f: 'r', k: 'image', s: 'image-photo', a: null, ys: null, ye: null, n: 2 },
    { f: 'r', k: 'image', s: null, a: null, ys: null, ye: null, n: 1 },
    { f: 'r', k: 'dataset', s: null, a: null, ys: null, ye: null, n: 1 },
    { f: 'f', k: null, s: null, a: ['csv', 'pdf'], ys: null, ye: null, n: 2 },
    { f: 'f', k: null, s: null, a: ['pdf'], ys: null, ye: null, n: 1 },
    { f: 'f', k: null, s: null, a: [], ys: null, ye: null, n: 1 },
    { f: 'y', k: null, s: null, a: null, ys: 2018, ye: 2018, n: 1 },
    { f: 'y', k: null, s: null, a: null, ys: 2019, ye: 2021, n: 2 },
    { f: 'y', k: null, s: null, a: null, ys: null, ye: null, n: 1 },
    // A second statement (the personal part of a scope) adds to the same buckets.
    { f: 'a', k: 'open', s: null, a: null, ys: null, ye: null, n: 1 },
  ];
  const labels = new Map([
    ['image-photo', 'Photo'],
    ['dataset', 'Dataset'],
  ]);

  it('should sum, sort by count then key, label and nest', () => {
    const aggs = renderAggregations(rows, parseFacetFilters({ resource_types: 'image::image-photo', publication_date: '2020' }), labels);
    expect(aggs.access_status.buckets).toEqual([
      { key: 'open', doc_count: 4, label: 'Open', is_selected: false },
      { key: 'metadata-only', doc_count: 1, label: 'Metadata-only', is_selected: false },
    ]);
    expect(aggs.resource_types.buckets).toEqual([
      {
        key: 'image',
        doc_count: 3,
        label: 'Image',
        is_selected: false,
        inner: { buckets: [{ key: 'image-photo', doc_count: 2, label: 'Photo', is_selected: true }] },
      },
      { key: 'dataset', doc_count: 1, label: 'Dataset', is_selected: false, inner: { buckets: [] } },
    ]);
    expect(aggs.resource_type).toEqual(aggs.resource_types);
    expect(aggs.file_type.buckets).toEqual([
      { key: 'pdf', doc_count: 3, label: 'PDF', is_selected: false },
      { key: 'csv', doc_count: 2, label: 'CSV', is_selected: false },
    ]);
    expect(aggs.publication_date.buckets).toEqual([
      { key: '2018', doc_count: 1, label: '2018', is_selected: false },
      { key: '2019', doc_count: 2, label: '2019', is_selected: false },
      { key: '2020', doc_count: 2, label: '2020', is_selected: true },
      { key: '2021', doc_count: 2, label: '2021', is_selected: false },
    ]);
    expect(aggs.is_published).toBeUndefined();
  });

  it('should keep at most 10 terms buckets', () => {
    const many: AggRow[] = Array.from({ length: 15 }, (_, i) => ({
      f: 'f',
      k: null,
      s: null,
      a: [`t${String(i).padStart(2, '0')}`],
      ys: null,
      ye: null,
      n: i + 1,
    }));
    const buckets = renderAggregations(many, parseFacetFilters({}), new Map()).file_type.buckets;
    expect(buckets).toHaveLength(10);
    expect(buckets[0]).toMatchObject({ key: 't14', doc_count: 15 });
  });

  it('should render is_published with its labels for the caller’s records', () => {
    const aggs = renderAggregations(
      [
        { f: 'p', k: 'false', s: null, a: null, ys: null, ye: null, n: 2 },
        { f: 'p', k: 'true', s: null, a: null, ys: null, ye: null, n: 1 },
      ],
      parseFacetFilters({ is_published: 'false' }, { isPublished: true }),
      new Map(),
      { isPublished: true },
    );
    expect(aggs.is_published).toEqual({
      label: 'Status',
      buckets: [
        { key: 'false', doc_count: 2, label: 'Unpublished', is_selected: true },
        { key: 'true', doc_count: 1, label: 'Published', is_selected: false },
      ],
    });
  });
});
