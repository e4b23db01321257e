import { describe, expect, it } from 'vitest';
import { renderPage, scriptJson } from './layout.js';
import { RecordPage, recordHead } from './record.js';
import { CommunityPage, SearchPage } from './search.js';
import { STYLESHEET_NAME } from './style.js';

const XSS = '<script>alert(1)</script>';
const base = 'http://rdm.test';

function record(over: Record<string, unknown> = {}): any {
  return {
    id: 'abcde-12345',
    links: {
      self: `${base}/api/records/abcde-12345`,
      self_html: `${base}/records/abcde-12345`,
      archive: `${base}/api/records/abcde-12345/files-archive`,
    },
    access: { record: 'public', files: 'public', status: 'open', embargo: { active: false } },
    files: { enabled: true },
    pids: { doi: { identifier: '10.1234/abcde-12345' } },
    metadata: {
      title: `A title ${XSS}`,
      publication_date: '2024-05-01',
      resource_type: { id: 'dataset', title: { en: 'Dataset' } },
      creators: [
        {
          person_or_org: { name: `Doe, ${XSS}`, type: 'personal', identifiers: [{ scheme: 'orcid', identifier: '0000-0002-1825-0097' }] },
          affiliations: [{ id: '01ggx4157', name: 'CERN' }],
        },
      ],
      description: `<p>Hello <b>world</b></p>${XSS}<img src="x" onerror="alert(2)">`,
      subjects: [{ subject: XSS }],
      rights: [
        {
          id: 'cc-by-4.0',
          title: { en: 'Creative Commons Attribution 4.0' },
          props: { url: 'https://creativecommons.org/licenses/by/4.0/' },
        },
      ],
      ...over,
    },
  };
}

describe(RecordPage.name, () => {
  it('should never write user text unescaped (title, creators, subjects) and keep only the allowed description HTML', () => {
    const html = renderPage(
      RecordPage({
        baseUrl: base,
        record: record(),
        files: {
          entries: [
            { key: `f${XSS}.pdf`, size: 1536, checksum: 'md5:abc', links: { content: `${base}/api/records/abcde-12345/files/x/content` } },
          ],
        },
        versions: [],
        jsonLd: { name: `</script>${XSS}` },
      }),
    );
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('onerror');
    expect(html).toContain('A title &lt;script>alert(1)&lt;/script>');
    expect(html).toContain('<p>Hello <b>world</b></p>');
    // JSON-LD: one script element only, whose text cannot close it.
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).toContain('\\u003c/script\\u003e');
  });

  it('should link ORCID and ROR identifiers, the files with sizes and checksums, the zip, the DOI and every export format', () => {
    const html = renderPage(
      RecordPage({
        baseUrl: base,
        record: record(),
        files: {
          entries: [
            {
              key: 'data.csv',
              size: 1536,
              checksum: 'md5:0123',
              links: { content: `${base}/api/records/abcde-12345/files/data.csv/content` },
            },
          ],
        },
      }),
    );
    expect(html).toContain('href="https://orcid.org/0000-0002-1825-0097"');
    expect(html).toContain('href="https://ror.org/01ggx4157"');
    expect(html).toContain('1.5 kB');
    expect(html).toContain('md5:0123');
    expect(html).toContain(`href="${base}/api/records/abcde-12345/files-archive"`);
    expect(html).toContain('href="https://doi.org/10.1234/abcde-12345"');
    expect(html).toContain(`href="${base}/api/records/abcde-12345/export/bibtex"`);
    expect(html).toContain(`<link rel="stylesheet" href="${base}/static/${STYLESHEET_NAME}"/>`);
  });

  it('should list versions newest first and mark the current one', () => {
    const v = (id: string, index: number) => ({
      id,
      versions: { index },
      metadata: { version: `v${index}` },
      links: { self_html: `${base}/records/${id}` },
    });
    const html = renderPage(
      RecordPage({ baseUrl: base, record: record(), versions: [v('old11-11111', 1), v('abcde-12345', 2), v('new33-33333', 3)] }),
    );
    expect(html.indexOf('v3')).toBeLessThan(html.indexOf('v2'));
    expect(html.indexOf('v2')).toBeLessThan(html.indexOf('v1'));
    expect(html).toMatch(/aria-current="page">\s*Version v2 \(this version\)/);
  });

  it("should link the record's communities by their title", () => {
    const html = renderPage(
      RecordPage({ baseUrl: base, record: record(), communities: [{ id: 'u1', slug: 'ocean', title: 'Ocean <b>data</b>' }] }),
    );
    expect(html).toContain(`<a href="${base}/communities/ocean">Ocean &lt;b>data&lt;/b></a>`);
  });

  it('should say the files are restricted when the API refused them', () => {
    const html = renderPage(RecordPage({ baseUrl: base, record: record(), files: { refused: 403 } }));
    expect(html).toContain('The files of this record are restricted');
  });
});

describe(recordHead.name, () => {
  it('should give Highwire, OpenGraph, canonical and one alternate per export format', () => {
    const head = recordHead({
      baseUrl: base,
      record: record(),
      files: { entries: [{ key: 'paper.pdf', links: { content: 'http://rdm.test/c' } }] },
    });
    const names = (head.meta ?? []).map((m) => m.name ?? m.property);
    expect(names).toEqual(
      expect.arrayContaining([
        'citation_title',
        'citation_author',
        'citation_publication_date',
        'citation_doi',
        'citation_pdf_url',
        'og:title',
        'og:url',
      ]),
    );
    expect(head.meta?.find((m) => m.name === 'citation_publication_date')?.content).toBe('2024/05/01');
    expect(head.canonical).toBe(`${base}/records/abcde-12345`);
    expect(head.alternates?.map((a) => a.type)).toContain('application/ld+json');
  });
});

describe(scriptJson.name, () => {
  it('should escape what could end a script element', () => {
    expect(scriptJson({ a: '</script><!--&' })).toBe('{"a":"\\u003c/script\\u003e\\u003c!--\\u0026"}');
    expect(JSON.parse(scriptJson({ a: '</script>\u2028' }))).toEqual({ a: '</script>\u2028' });
  });
});

describe(SearchPage.name, () => {
  it('should escape the query and hits and offer facet filters and paging as links', () => {
    const answer = {
      hits: {
        total: 25,
        hits: [
          { id: 'x', metadata: { title: XSS, creators: [{ person_or_org: { name: XSS } }] }, links: { self_html: `${base}/records/x` } },
        ],
      },
      aggregations: { access_status: { buckets: [{ key: 'open', label: 'Open', doc_count: 25 }] } },
    };
    const html = renderPage(SearchPage({ baseUrl: base, answer, state: { q: XSS, page: 1, size: 10, filters: {} } }));
    expect(html).not.toContain('<script>');
    expect(html).toContain('access_status=open');
    expect(html).toContain('page=2');
    expect(html).toContain('Page 1 of 3');
  });
});

describe(CommunityPage.name, () => {
  it('should escape the community fields', () => {
    const community = { id: 'u', slug: 's', metadata: { title: XSS, description: XSS, curation_policy: `<p>ok</p>${XSS}` } };
    const html = renderPage(
      CommunityPage({
        baseUrl: base,
        community,
        answer: { hits: { hits: [], total: 0 } },
        state: { q: '', page: 1, size: 10, filters: {} },
      }),
    );
    expect(html).not.toContain('<script>');
    expect(html).toContain('<p>ok</p>');
  });
});

describe('citation box', () => {
  it('should show the citation text escaped and a style selector that is a plain GET form back to the page', () => {
    const html = renderPage(
      RecordPage({
        baseUrl: base,
        record: record(),
        token: 'tok&1',
        citation: { style: 'ieee', text: `[1] Doe, “A title ${XSS}.” doi: 10.1234/abcde-12345.` },
      }),
    );
    expect(html).toContain('id="citation"');
    expect(html).toContain('[1] Doe, “A title &lt;script>alert(1)&lt;/script>.”');
    expect(html).not.toContain('<script>alert');
    expect(html).toMatch(/<form method="get" action="http:\/\/rdm\.test\/records\/abcde-12345#citation"/);
    expect(html).toContain('<input type="hidden" name="token" value="tok&amp;1"/>');
    expect(html).toMatch(/<select id="citation-style" name="style">/);
    expect(html).toMatch(/<option value="ieee" selected>IEEE<\/option>/);
    for (const s of ['apa', 'harvard-cite-them-right', 'modern-language-association', 'vancouver', 'chicago-author-date', 'nature'])
      expect(html).toContain(`<option value="${s}"`);
    expect(html).toMatch(/<button type="submit">Show<\/button>/);
  });

  it('should say when the citation could not be read and show no box without citation data', () => {
    const unavailable = renderPage(RecordPage({ baseUrl: base, record: record(), citation: { style: 'apa' } }));
    expect(unavailable).toContain('The citation is not available right now.');
    expect(renderPage(RecordPage({ baseUrl: base, record: record() }))).not.toContain('id="citation"');
  });
});

describe('draft preview', () => {
  it('should say a draft shown read-only is not published', () => {
    const html = renderPage(RecordPage({ baseUrl: base, record: record(), preview: true }));
    expect(html).toContain('<strong>Preview.</strong> This draft is not published');
    // A draft has no exports: no export links, no alternates.
    expect(html).not.toContain('/export/');
    expect(renderPage(RecordPage({ baseUrl: base, record: record() }))).not.toContain('This draft is not published');
  });
});
