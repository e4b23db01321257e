/**
 * The READMEs describe only routes the gateway serves (issue 19 item 13): every API path a README
 * names resolves in the routing table (routes.ts), and each row of the gateway README's routing
 * table names only paths of the service the row is about. Placeholders (`<id>`, `{id}`, `:id`)
 * stand for one segment, `…` and `[…]` for "and below"/"optionally".
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RouteMatcher } from './route-matcher.js';
import { ROUTES, type ServiceName } from './routes.js';

const REPO = join(import.meta.dirname, '..', '..', '..');
const DOCS = [
  'README.md',
  'SECURITY.md',
  'charts/README.md',
  'e2e/API_COVERAGE.md',
  'services/_platform/README.md',
  'services/communities/README.md',
  'services/files/README.md',
  'services/gateway/README.md',
  'services/records/INTEROP.md',
  'services/records/README.md',
  'services/requests/README.md',
  'services/users/README.md',
  'services/vocabularies/README.md',
  'services/web/README.md',
  'services/webhooks/README.md',
];
/** Served by the gateway itself, or a wildcard standing for the whole API. */
const OWN = new Set(['/api/openapi.json', '/api/*', '/api']);
const matcher = new RouteMatcher(ROUTES);

/** API paths named in a text: `/api/…`, `/oai2d`, `/sitemap…` up to a space, quote, pipe or closing bracket. */
function pathsIn(text: string): string[] {
  return text.match(/(?<![\w.:/-])\/(?:api\/[^\s`'"|),;]*|api\b|oai2d\b|sitemap[^\s`'"|),;]*)/g) ?? [];
}

/** One concrete path for a mention: placeholders become a sample segment, `…`, `[…]` and the query go. */
function concrete(mention: string): string {
  return mention
    .replace(/\?.*$/, '')
    .replace(/\[[^\]]*\]?/g, '')
    .replace(/\]/g, '')
    .replace(/…$/, '')
    .replace(/(^|\/)(?:<type>|\{type\})(?=\/|$)/g, '$1affiliations')
    .replace(/<[^>/]*>?|\{[^}/]*\}|:[a-z_]+/g, 'x')
    .replace(/\/$/, '');
}

/** Where each mention resolves: its owner, or null when no route serves it. */
function owner(mention: string): ServiceName | 'gateway' | null {
  if (OWN.has(mention)) return 'gateway';
  const path = concrete(mention);
  if (OWN.has(path)) return 'gateway';
  return matcher.match(path)[0]?.service ?? null;
}

describe('routes named in the READMEs', () => {
  it('every API path a README names is served (resolves in the routing table)', () => {
    const unserved: string[] = [];
    for (const doc of DOCS) {
      readFileSync(join(REPO, doc), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          for (const m of pathsIn(line)) if (owner(m) === null) unserved.push(`${doc}:${i + 1}: ${m}`);
        });
    }
    expect(unserved).toEqual([]);
  });

  it("the gateway README's routing table: each row names only paths of its service, and every service has a row", () => {
    const text = readFileSync(join(REPO, 'services/gateway/README.md'), 'utf8');
    const section = text.slice(text.indexOf('## Routing'), text.indexOf('\n## ', text.indexOf('## Routing') + 1));
    const rows = section.split('\n').filter((l) => /^\| [a-z]+ \|/.test(l) && !l.startsWith('| service |'));
    const wrong: string[] = [];
    const seen = new Set<string>();
    for (const row of rows) {
      const [, service, paths] = row.split('|').map((c) => c.trim());
      seen.add(service);
      // "`/api/communities…` except `/records`": the exception is a suffix, not a path of its own.
      for (const m of pathsIn(paths.replace(/except `[^`]*`/g, ''))) {
        const o = owner(m);
        if (o !== service) wrong.push(`${service} row: ${m} is served by ${o ?? 'nothing'}`);
      }
    }
    expect(wrong).toEqual([]);
    expect([...seen].sort()).toEqual([...new Set(ROUTES.map((r) => r.service))].sort());
  });

  it('reads placeholders as the README writes them', () => {
    expect(concrete('/api/records/<id>/files[/<key>[/content]]')).toBe('/api/records/x/files');
    expect(concrete('/api/<type>[/<id>]')).toBe('/api/affiliations');
    expect(concrete('/api/records/{id}/draft/files/{key+}/content')).toBe('/api/records/x/draft/files/x/content');
    expect(concrete('/api/records…')).toBe('/api/records');
    expect(concrete('/api/user/records?shared_with_me=true')).toBe('/api/user/records');
    expect(owner('/api/iiif/<uuid>/info.json')).toBe('files');
    expect(owner('/api/no-such-area/<id>')).toBeNull();
    expect(owner('/api/groups…')).toBeNull();
    expect(owner('/api/communities/<id>/requests')).toBe('requests');
  });
});
