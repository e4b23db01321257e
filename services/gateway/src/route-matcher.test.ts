import { describe, expect, it } from 'vitest';
import { RouteMatcher, splitPath } from './route-matcher.js';
import { DECLARING_SERVICES, ROUTES, type RouteSpec } from './routes.js';
import { GENERATED_ROUTES } from './routes.generated.js';

const sut = new RouteMatcher(ROUTES);
const svc = (method: string, path: string) => {
  const r = sut.resolve(method, path);
  return r.kind === 'route' ? r.route.service : r.kind;
};

describe(RouteMatcher.name, () => {
  it('should route every spec path to its owning service', () => {
    const cases: [string, string, string][] = [
      ['GET', '/api/records', 'records'],
      ['POST', '/api/records', 'records'],
      ['GET', '/api/records/abcde-fgh12', 'records'],
      ['PUT', '/api/records/abcde-fgh12/draft', 'records'],
      ['POST', '/api/records/abcde-fgh12/draft', 'records'],
      ['DELETE', '/api/records/abcde-fgh12/draft', 'records'],
      ['POST', '/api/records/abcde-fgh12/draft/pids/doi', 'records'],
      ['DELETE', '/api/records/abcde-fgh12/draft/pids/doi', 'records'],
      ['POST', '/api/records/abcde-fgh12/draft/actions/publish', 'records'],
      ['POST', '/api/records/abcde-fgh12/draft/actions/submit-review', 'records'],
      ['POST', '/api/records/abcde-fgh12/draft/actions/files-import', 'records'],
      ['GET', '/api/records/abcde-fgh12/draft/review', 'records'],
      ['PUT', '/api/records/abcde-fgh12/draft/review', 'records'],
      ['DELETE', '/api/records/abcde-fgh12/draft/review', 'records'],
      ['POST', '/api/records/abcde-fgh12/report-abuse', 'records'],
      ['POST', '/api/records/abcde-fgh12/versions', 'records'],
      ['GET', '/api/records/abcde-fgh12/versions', 'records'],
      ['GET', '/api/records/abcde-fgh12/versions/latest', 'records'],
      ['POST', '/api/records/abcde-fgh12/access/links', 'records'],
      ['GET', '/api/records/abcde-fgh12/access/links', 'records'],
      ['GET', '/api/records/abcde-fgh12/access/links/5b8f', 'records'],
      ['PATCH', '/api/records/abcde-fgh12/access/links/5b8f', 'records'],
      ['DELETE', '/api/records/abcde-fgh12/access/links/5b8f', 'records'],
      ['GET', '/api/user/records', 'records'],
      ['GET', '/api/communities/my-comm/records', 'records'],
      ['POST', '/api/records/abcde-fgh12/draft/files', 'files'],
      ['GET', '/api/records/abcde-fgh12/draft/files', 'files'],
      ['PUT', '/api/records/abcde-fgh12/draft/files/data.csv/content', 'files'],
      ['POST', '/api/records/abcde-fgh12/draft/files/data.csv/commit', 'files'],
      ['GET', '/api/records/abcde-fgh12/draft/files/data.csv', 'files'],
      ['DELETE', '/api/records/abcde-fgh12/draft/files/data.csv', 'files'],
      ['GET', '/api/records/abcde-fgh12/files', 'files'],
      ['GET', '/api/records/abcde-fgh12/files/a/b/c.txt/content', 'files'],
      ['GET', '/api/records/abcde-fgh12/files-archive', 'files'],
      ['GET', '/api/records/abcde-fgh12/draft/files-archive', 'files'],
      ['POST', '/api/records/abcde-fgh12/draft/media-files', 'files'],
      ['PUT', '/api/records/abcde-fgh12/draft/media-files/cover.png/content', 'files'],
      ['POST', '/api/records/abcde-fgh12/draft/media-files/cover.png/commit', 'files'],
      ['GET', '/api/records/abcde-fgh12/draft/media-files-archive', 'files'],
      ['GET', '/api/records/abcde-fgh12/media-files/cover.png/content', 'files'],
      ['DELETE', '/api/records/abcde-fgh12/media-files/cover.png', 'files'],
      ['GET', '/api/records/abcde-fgh12/media-files-archive', 'files'],
      ['GET', '/api/requests', 'requests'],
      ['GET', '/api/requests/0d4f', 'requests'],
      ['POST', '/api/requests/0d4f/actions/accept', 'requests'],
      ['POST', '/api/requests/0d4f/comments', 'requests'],
      ['PUT', '/api/requests/0d4f/comments/77', 'requests'],
      ['GET', '/api/requests/0d4f/timeline', 'requests'],
      ['GET', '/api/user/requests', 'requests'],
      ['GET', '/api/communities', 'communities'],
      ['POST', '/api/communities', 'communities'],
      ['GET', '/api/communities/my-comm', 'communities'],
      ['PUT', '/api/communities/0d4f/logo', 'communities'],
      ['GET', '/api/communities/0d4f/members/public', 'communities'],
      ['PUT', '/api/communities/0d4f/invitations', 'communities'],
      ['DELETE', '/api/communities/0d4f/members', 'communities'],
      ['GET', '/api/user/communities', 'communities'],
      ['GET', '/api/community-schema-extension', 'communities'],
      ['GET', '/api/community-schema-extension/my-comm', 'communities'],
      ['GET', '/api/community-schema-extension/schema/12/jsonschema', 'communities'],
      ['GET', '/api/vocabularies', 'vocabularies'],
      ['GET', '/api/vocabularies/resourcetypes', 'vocabularies'],
      ['GET', '/api/vocabularies/resourcetypes/image-photo', 'vocabularies'],
      ['GET', '/api/affiliations', 'vocabularies'],
      ['GET', '/api/funders/00k4n6c32', 'vocabularies'],
      ['GET', '/api/awards', 'vocabularies'],
      ['GET', '/api/names/orcid/0000-0002-1825-0097', 'vocabularies'],
      ['GET', '/api/subjects/https:/id.loc.gov/x', 'vocabularies'],
      ['GET', '/api/users', 'users'],
      ['GET', '/api/users/42', 'users'],
      ['GET', '/api/me', 'users'],
    ];
    for (const [method, path, service] of cases) expect(`${method} ${path} → ${svc(method, path)}`).toBe(`${method} ${path} → ${service}`);
  });

  it('should answer 404 for unknown paths, vocabularies InvenioRDM does not serve at the root, and dot segments', () => {
    for (const p of [
      '/api',
      '/',
      '/api/nothing',
      '/api/licenses',
      '/api/resourcetypes/x',
      '/api/records/x/unknown',
      '/api//records',
      '/api/records/../users',
      '/api/records/./x',
      '/apix/records',
    ]) {
      expect(sut.resolve('GET', p)).toEqual({ kind: 'not_found' });
    }
  });

  it('should answer 405 with the allowed methods for a known path and a wrong method', () => {
    expect(sut.resolve('POST', '/api/requests')).toEqual({ kind: 'method_not_allowed', allow: ['GET', 'HEAD', 'OPTIONS'] });
    expect(sut.resolve('POST', '/api/records/x/files')).toEqual({ kind: 'method_not_allowed', allow: ['GET', 'HEAD', 'OPTIONS'] });
    expect(sut.resolve('PUT', '/api/records/x/access/links/y')).toEqual({
      kind: 'method_not_allowed',
      allow: ['GET', 'HEAD', 'PATCH', 'DELETE', 'OPTIONS'],
    });
    expect(sut.resolve('PROPFIND', '/api/records')).toMatchObject({ kind: 'method_not_allowed' });
    // No GET on a DOI reservation: it told anyone whether a draft exists.
    expect(sut.resolve('GET', '/api/records/x/draft/pids/doi')).toEqual({
      kind: 'method_not_allowed',
      allow: ['POST', 'DELETE', 'OPTIONS'],
    });
  });

  it('should serve HEAD wherever GET is served and ignore a trailing slash', () => {
    expect(svc('HEAD', '/api/records/x/files/a.bin/content')).toBe('files');
    expect(svc('GET', '/api/vocabularies/')).toBe('vocabularies');
    expect(svc('GET', '/api/records/')).toBe('records');
  });

  it('should treat keys with slashes and mark upload routes', () => {
    const r = sut.resolve('PUT', '/api/records/x/draft/files/dir/sub/file.bin/content');
    expect(r).toMatchObject({ kind: 'route', route: { service: 'files', upload: true } });
    const meta = sut.resolve('PUT', '/api/records/x/draft/files/dir/file.bin');
    expect(meta).toMatchObject({ kind: 'route', route: { upload: false } });
    // A key literally named "content" is still a file entry.
    expect(sut.resolve('DELETE', '/api/records/x/draft/files/content')).toMatchObject({ kind: 'route', route: { service: 'files' } });
  });

  it('should prefer literal segments over parameters', () => {
    const table: RouteSpec[] = [
      { pattern: '/api/a/{id}', methods: ['GET'], service: 'users' },
      { pattern: '/api/a/b', methods: ['POST'], service: 'records' },
    ];
    const m = new RouteMatcher(table);
    expect(m.resolve('POST', '/api/a/b')).toMatchObject({ kind: 'route', route: { service: 'records' } });
    expect(m.resolve('GET', '/api/a/b')).toMatchObject({ kind: 'route', route: { service: 'users' } });
    expect(m.resolve('DELETE', '/api/a/b')).toEqual({ kind: 'method_not_allowed', allow: ['GET', 'HEAD', 'POST', 'OPTIONS'] });
  });

  it('should have every route pattern well formed and unique', () => {
    const seen = new Set<string>();
    for (const r of ROUTES) {
      // Everything lives under /api but the OAI-PMH base URL, which harvesters expect at /oai2d,
      // the sitemap crawlers expect at the root, and the web service's HTML pages (the `*_html` links).
      if (r.service === 'web') expect(r.pattern).toMatch(/^(\/([A-Za-z0-9._-]+|\{[a-z_]+\+?\}))+$/);
      else if (!['/oai2d', '/sitemap.xml', '/sitemaps/{name}'].includes(r.pattern))
        expect(r.pattern).toMatch(/^\/api(\/([A-Za-z0-9._-]+|\{[a-z_]+\+?\}))+$/);
      expect(seen.has(r.pattern), r.pattern).toBe(false);
      seen.add(r.pattern);
      expect(r.methods.length).toBeGreaterThan(0);
    }
  });
});

describe(splitPath.name, () => {
  it('should split, drop one trailing slash and refuse empty or dot segments', () => {
    expect(splitPath('/api/records/')).toEqual(['api', 'records']);
    expect(splitPath('/api/records')).toEqual(['api', 'records']);
    expect(splitPath('/')).toEqual([]);
    expect(splitPath('api')).toBeNull();
    expect(splitPath('/api//x')).toBeNull();
    expect(splitPath('/api/../x')).toBeNull();
  });
});

describe('ROUTES', () => {
  it('should write by hand no route of a service that declares its route table (routes.generated.ts has them)', () => {
    const generated = new Set<string>(DECLARING_SERVICES);
    expect(ROUTES.filter((r) => generated.has(r.service)).map((r) => r.pattern)).toEqual(GENERATED_ROUTES.map((r) => r.pattern));
  });
});
