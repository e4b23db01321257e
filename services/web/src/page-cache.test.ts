import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { cachedPage, PageCache } from './page-cache.js';

describe(PageCache.name, () => {
  it('should keep a page as bytes, gzip-compressed once, with an ETag of its content', () => {
    const html = '<!doctype html><p>Ocean temperatures — “quoted”</p>';
    const page = cachedPage('"3"', html, '<x>; rel="linkset"');
    expect(page.html.toString('utf8')).toBe(html);
    expect(gunzipSync(page.gzip).toString('utf8')).toBe(html);
    expect(page.pageEtag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(cachedPage('"4"', html).pageEtag).toBe(page.pageEtag);
    expect(cachedPage('"3"', `${html} `).pageEtag).not.toBe(page.pageEtag);
  });

  it('should give a page held at any revision to peek and only at its revision to get', () => {
    const cache = new PageCache(10, 60_000);
    cache.set('abc apa', cachedPage('"3"', '<p>x</p>'));
    expect(cache.peek('abc apa')?.etag).toBe('"3"');
    expect(cache.get('abc apa', '"3"')).toBeDefined();
    expect(cache.get('abc apa', '"4"')).toBeUndefined();
    expect(cache.peek('abc ieee')).toBeUndefined();
  });
});
