import { describe, expect, it } from 'vitest';
import { AppError } from './errors.js';
import { buildUrl, listEnvelope, parseListArgs } from './list.js';

const opts = { sorts: ['bestmatch', 'newest', 'oldest'], defaultSort: 'newest' } as const;

describe(parseListArgs.name, () => {
  it('should default to page 1, size 25 and the default sort', () => {
    expect(parseListArgs({}, opts)).toEqual({ q: '', page: 1, size: 25, sort: 'newest', from: 0 });
  });

  it('should use bestmatch when q is given', () => {
    expect(parseListArgs({ q: 'photo' }, opts).sort).toBe('bestmatch');
  });

  it('should rewrite bestmatch without q to the default sort', () => {
    expect(parseListArgs({ sort: 'bestmatch' }, opts).sort).toBe('newest');
  });

  it('should compute the offset of page 2 size 50', () => {
    const sut = parseListArgs({ page: '2', size: '50' }, opts);
    expect(sut.from).toBe(50);
  });

  it.each([
    [{ page: 'abc' }, 'page', 'Not a valid integer.'],
    [{ page: '0' }, 'page', 'Must be greater than or equal to 1.'],
    [{ size: '-1' }, 'size', 'Not a valid integer.'],
    [{ size: '0' }, 'size', 'Must be greater than or equal to 1.'],
    [{ sort: 'nope' }, '_schema', "Invalid sort option 'nope'."],
  ])('should refuse %j with a 400 field error', (query, field, message) => {
    try {
      parseListArgs(query as Record<string, string>, opts);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(AppError);
      expect((e as AppError).status).toBe(400);
      expect((e as AppError).fieldErrors).toContainEqual({ field, messages: [message] });
    }
  });

  it('should refuse a window beyond 10000 hits', () => {
    expect(() => parseListArgs({ page: '101', size: '100' }, opts)).toThrow('Invalid querystring parameters.');
  });
});

describe(listEnvelope.name, () => {
  const base = 'http://127.0.0.1:5000';
  it('should render hits, total, sortBy and absolute links with sorted keys', () => {
    const args = parseListArgs({ q: 'a b' }, opts);
    const sut = listEnvelope({ hits: [{ id: 1 }], total: 1, args, baseUrl: base, path: '/api/records' });
    expect(sut).toEqual({
      hits: { hits: [{ id: 1 }], total: 1 },
      aggregations: {},
      sortBy: 'bestmatch',
      links: { self: `${base}/api/records?page=1&q=a+b&size=25&sort=bestmatch` },
    });
  });

  it('should add next only when more pages exist and prev after page 1', () => {
    const args = parseListArgs({ page: '2', size: '10' }, opts);
    const sut = listEnvelope({ hits: [], total: 35, args, baseUrl: base, path: '/api/x' }) as { links: Record<string, string> };
    expect(sut.links.next).toBe(`${base}/api/x?page=3&size=10&sort=newest`);
    expect(sut.links.prev).toBe(`${base}/api/x?page=1&size=10&sort=newest`);
    const last = listEnvelope({ hits: [], total: 20, args, baseUrl: base, path: '/api/x' }) as { links: Record<string, string> };
    expect(last.links.next).toBeUndefined();
  });

  it('should keep facet parameters, repeated values in order', () => {
    const args = parseListArgs({}, opts);
    const sut = listEnvelope({
      hits: [],
      total: 0,
      args,
      baseUrl: base,
      path: '/api/records',
      params: { resource_types: ['image', 'dataset'] },
    });
    expect((sut.links as Record<string, string>).self).toBe(
      `${base}/api/records?page=1&resource_types=image&resource_types=dataset&size=25&sort=newest`,
    );
  });
});

describe(buildUrl.name, () => {
  it('should encode values', () => {
    expect(buildUrl('http://h', '/p', { q: 'title:"x y"&z' })).toBe('http://h/p?q=title%3A%22x+y%22%26z');
  });
});

describe('parseListArgs size cap', () => {
  it('should accept size=10000 like InvenioRDM (no size cap, only the 10000-hit window)', () => {
    expect(parseListArgs({ size: '10000' }, opts).size).toBe(10000);
    expect(() => parseListArgs({ size: '10000', page: '2' }, opts)).toThrow('Invalid querystring parameters.');
  });
});
