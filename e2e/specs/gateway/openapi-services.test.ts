/**
 * `/api/openapi.json` through the real stack once the users, records and files services'
 * fragments are merged: the document is valid OpenAPI 3.1 with resolvable references, carries
 * those services' operations with their response schemas, and real answers of a draft → files →
 * publish → versions walk conform to it (documented status, body valid against the schema).
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, api } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { walkthroughMetadata } from '../records/support.js';

type Json = Record<string, any>;
type Doc = { paths: Record<string, Json>; components: Record<string, Json> };

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head'];

/** Operation ids that only the services' fragments define (the base document names operations `get_…`). */
const FRAGMENT_MARKERS: [path: string, method: string, operationId: string][] = [
  ['/api/records', 'get', 'searchRecords'],
  ['/api/records/{id}/draft/files', 'get', 'listDraftFiles'],
  ['/api/users', 'get', 'searchUsers'],
];

const merged = (doc: Doc) => FRAGMENT_MARKERS.every(([p, m, id]) => doc.paths?.[p]?.[m]?.operationId === id);

/** The document once every marker is merged (the gateway fetches fragments with back-off at start-up). */
async function mergedDocument(ms = 120_000): Promise<Doc> {
  const deadline = Date.now() + ms;
  for (;;) {
    const res = await api<Doc>('/api/openapi.json');
    expect(res.status).toBe(200);
    if (merged(res.body) || Date.now() > deadline) return res.body;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Checks answers against the document: documented status, JSON body valid against its schema. */
class Conformance {
  private readonly ajv: Ajv2020;
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(private readonly doc: Doc) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, allowUnionTypes: true });
    addFormats(this.ajv);
    const schemas = JSON.parse(JSON.stringify(doc.components.schemas).replaceAll('"#/components/schemas/', '"#/$defs/'));
    this.ajv.addSchema({ $id: 'urn:rdm:openapi', $defs: schemas });
  }

  private response(path: string, method: string, status: number): Json | undefined {
    const op = this.doc.paths[path]?.[method];
    if (!op) throw new Error(`${method} ${path} is not documented`);
    const r = op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
    if (!r?.$ref) return r;
    return this.doc.components.responses[r.$ref.replace('#/components/responses/', '')];
  }

  /** Assert `res` (from `method path`) is documented; returns the schema-checked body. */
  check(res: ApiResponse, method: string, path: string): void {
    const what = `${method.toUpperCase()} ${path} → ${res.status} ${res.text.slice(0, 300)}`;
    const r = this.response(path, method, res.status);
    expect(r, `undocumented status: ${what}`).toBeDefined();
    const schema = r?.content?.['application/json']?.schema;
    const type = res.headers.get('content-type') ?? '';
    if (!schema || !type.includes('json')) return;
    const key = JSON.stringify(schema);
    let validate = this.cache.get(key);
    if (!validate) {
      validate = this.ajv.compile(JSON.parse(key.replaceAll('"#/components/schemas/', '"urn:rdm:openapi#/$defs/')));
      this.cache.set(key, validate);
    }
    expect(validate(res.body), `${what}\n${JSON.stringify(validate.errors, null, 1)}`).toBe(true);
  }
}

describe('GET /api/openapi.json with the service fragments', () => {
  let doc: Doc;

  beforeAll(async () => {
    doc = await mergedDocument();
  }, 150_000);

  it('should merge the records, files and users fragments', () => {
    for (const [p, m, id] of FRAGMENT_MARKERS) expect(doc.paths[p]?.[m]?.operationId, `${m} ${p}`).toBe(id);
  });

  it('should be a valid OpenAPI 3.1 document whose references all resolve', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as Json);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)?.slice(0, 3000)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(() => validator.resolveRefs()).not.toThrow();
  });

  it('should carry the records, files and users operations with their response schemas', () => {
    const schemaOf = (p: string, m: string, status: string) =>
      doc.paths[p]?.[m]?.responses?.[status]?.content?.['application/json']?.schema;
    const expected: [string, string, string, string][] = [
      ['/api/records', 'get', '200', 'RecordList'],
      ['/api/records', 'post', '201', 'Record'],
      ['/api/records/{id}', 'get', '200', 'Record'],
      ['/api/records/{id}/draft', 'get', '200', 'Record'],
      ['/api/records/{id}/draft', 'put', '200', 'Record'],
      ['/api/records/{id}/draft/actions/{action}', 'post', '202', 'Record'],
      ['/api/records/{id}/draft/actions/{action}', 'post', '201', 'RecordFilesImport'],
      ['/api/records/{id}/draft/pids/{scheme}', 'post', '201', 'Record'],
      ['/api/records/{id}/versions', 'get', '200', 'VersionList'],
      ['/api/records/{id}/versions', 'post', '201', 'Record'],
      ['/api/records/{id}/versions/latest', 'get', '200', 'Record'],
      ['/api/user/records', 'get', '200', 'RecordList'],
      ['/api/communities/{id}/records', 'get', '200', 'RecordList'],
      ['/api/records/{id}/draft/files', 'get', '200', 'FileList'],
      ['/api/records/{id}/draft/files', 'post', '201', 'FileList'],
      ['/api/records/{id}/draft/files/{key}', 'get', '200', 'FileEntry'],
      ['/api/records/{id}/draft/files/{key}/content', 'put', '200', 'FileEntry'],
      ['/api/records/{id}/draft/files/{key}/commit', 'post', '200', 'FileEntry'],
      ['/api/records/{id}/files', 'get', '200', 'FileList'],
      ['/api/records/{id}/files/{key}', 'get', '200', 'FileEntry'],
      ['/api/users', 'get', '200', 'UserList'],
      ['/api/users/{id}', 'get', '200', 'User'],
      ['/api/me', 'get', '200', 'User'],
    ];
    for (const [p, m, status, name] of expected) {
      expect(schemaOf(p, m, status), `${m} ${p} ${status}`).toEqual({ $ref: `#/components/schemas/${name}` });
      expect(doc.components.schemas[name], name).toBeDefined();
      expect(doc.paths[p]['x-service']).toBe(
        p.includes('/files') ? 'files' : p.startsWith('/api/users') || p === '/api/me' ? 'users' : 'records',
      );
    }
    expect(doc.paths['/api/records'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/RecordWrite',
    });
    expect(doc.components.schemas.RecordMetadataWrite.properties.creators).toBeDefined();
    expect(Object.keys(doc.paths['/api/records/{id}/draft/files/{key}/content'].put.requestBody.content)).toEqual([
      'application/octet-stream',
    ]);
    expect(Object.keys(doc.paths['/api/records/{id}/files/{key}/content'].get.responses)).toEqual(
      expect.arrayContaining(['200', '206', '304', '416']),
    );
    expect(doc.paths['/api/records/{id}/draft/files-archive'].get.responses['200'].content['application/zip']).toBeDefined();
    const facets = doc.paths['/api/records'].get.parameters.map((p: Json) => p.name ?? p.$ref);
    expect(facets).toEqual(expect.arrayContaining(['#/components/parameters/q', 'access_status', 'resource_types', 'publication_date']));
    expect(doc.paths['/api/me'].get.security).toContainEqual({ bearerAuth: [] });
    expect(doc.components.schemas.Error.required).toEqual(['status', 'message']);
  });

  it('should have unique operation ids', () => {
    const seen = new Set<string>();
    for (const [p, item] of Object.entries(doc.paths)) {
      for (const m of METHODS) {
        const id = item[m]?.operationId;
        if (!id) continue;
        expect(seen.has(id), `${id} (${m} ${p})`).toBe(false);
        seen.add(id);
      }
    }
  });
});

describe('answers of the records, files and users services conform to /api/openapi.json', () => {
  let c: Conformance;
  let owner: TestUser;

  beforeAll(async () => {
    c = new Conformance(await mergedDocument());
    owner = await createUser({ email: uniqueEmail('openapi'), name: 'Open Api' });
  }, 150_000);

  it('should catch an undocumented status and a body that does not match its schema', () => {
    const fake = (status: number, body: unknown): ApiResponse => ({
      status,
      headers: new Headers({ 'content-type': 'application/json' }),
      body,
      text: JSON.stringify(body),
    });
    expect(() => c.check(fake(200, { id: owner.id }), 'get', '/api/me')).toThrow();
    expect(() => c.check(fake(418, {}), 'get', '/api/me')).toThrow(/undocumented status/);
    expect(() => c.check(fake(403, { status: 403, message: 'Permission denied.' }), 'get', '/api/me')).not.toThrow();
  });

  it('should answer the users routes as documented', async () => {
    c.check(await api('/api/me', { token: owner.token }), 'get', '/api/me');
    c.check(await api('/api/me'), 'get', '/api/me');
    c.check(await api(`/api/users/${owner.id}`, { token: owner.token }), 'get', '/api/users/{id}');
    c.check(await api('/api/users/999999999'), 'get', '/api/users/{id}');
    c.check(await api(`/api/users?q=${encodeURIComponent('Open')}&size=5`), 'get', '/api/users');
    c.check(await api('/api/users?sort=nope'), 'get', '/api/users');
    c.check(await api(`/api/users/${owner.id}/avatar.svg`), 'get', '/api/users/{id}/avatar.svg');
  });

  it('should answer a draft, its files, publish and versions as documented', async () => {
    const t = owner.token;
    const body = { access: { record: 'public', files: 'public' }, files: { enabled: true }, metadata: walkthroughMetadata() };
    const created = await api('/api/records', { method: 'POST', token: t, body });
    c.check(created, 'post', '/api/records');
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    c.check(await api('/api/records', { method: 'POST', body }), 'post', '/api/records');
    c.check(
      await api('/api/records', { method: 'POST', token: t, raw: '{nope', headers: { 'content-type': 'application/json' } }),
      'post',
      '/api/records',
    );

    const D = '/api/records/{id}/draft';
    const init = await api(`/api/records/${id}/draft/files`, { method: 'POST', token: t, body: [{ key: 'dir/data.txt' }] });
    c.check(init, 'post', `${D}/files`);
    expect(init.status).toBe(201);
    c.check(await api(`/api/records/${id}/draft/files`, { method: 'POST', token: t, body: {} }), 'post', `${D}/files`);
    const up = await api(`/api/records/${id}/draft/files/dir/data.txt/content`, { method: 'PUT', token: t, raw: 'hello world' });
    c.check(up, 'put', `${D}/files/{key}/content`);
    expect(up.status).toBe(200);
    c.check(
      await api(`/api/records/${id}/draft/files/dir/data.txt/content`, {
        method: 'PUT',
        token: t,
        raw: 'x',
        headers: { 'content-type': 'text/plain' },
      }),
      'put',
      `${D}/files/{key}/content`,
    );
    const commit = await api(`/api/records/${id}/draft/files/dir/data.txt/commit`, { method: 'POST', token: t });
    c.check(commit, 'post', `${D}/files/{key}/commit`);
    expect(commit.status).toBe(200);
    c.check(await api(`/api/records/${id}/draft/files`, { token: t }), 'get', `${D}/files`);
    c.check(await api(`/api/records/${id}/draft/files/dir/data.txt`, { token: t }), 'get', `${D}/files/{key}`);
    c.check(await api(`/api/records/${id}/draft/files/missing.txt`, { token: t }), 'get', `${D}/files/{key}`);
    c.check(
      await api(`/api/records/${id}/draft/files/dir/data.txt`, { method: 'PUT', token: t, body: { metadata: { a: 1 } } }),
      'put',
      `${D}/files/{key}`,
    );
    const ranged = await api(`/api/records/${id}/draft/files/dir/data.txt/content`, { token: t, headers: { range: 'bytes=0-4' } });
    c.check(ranged, 'get', `${D}/files/{key}/content`);
    expect(ranged.status).toBe(206);
    expect(ranged.text).toBe('hello');
    c.check(
      await api(`/api/records/${id}/draft/files/dir/data.txt/content`, { token: t, headers: { range: 'bytes=100-' } }),
      'get',
      `${D}/files/{key}/content`,
    );
    c.check(await api(`/api/records/${id}/draft/files-archive`, { token: t }), 'get', `${D}/files-archive`);

    c.check(await api(`/api/records/${id}/draft`, { token: t }), 'get', D);
    c.check(await api(`/api/records/${id}/draft`, { token: t, method: 'PUT', body: { ...body, metadata: { title: 'x' } } }), 'put', D);
    c.check(await api(`/api/records/${id}/draft`, { token: t, method: 'PUT', body, headers: { 'if-match': '"999"' } }), 'put', D);
    c.check(await api(`/api/records/${id}`), 'get', '/api/records/{id}');
    const failed = await api(`/api/records/${id}/draft/actions/publish`, { method: 'POST', token: t });
    c.check(failed, 'post', `${D}/actions/{action}`);
    expect(failed.status).toBe(400);
    c.check(await api(`/api/records/${id}/draft`, { token: t, method: 'PUT', body }), 'put', D);
    c.check(await api(`/api/records/${id}/draft/pids/doi`, { method: 'POST', token: t }), 'post', `${D}/pids/{scheme}`);
    // No GET on the DOI reservation path (issue 18, item 9): 405, whoever asks.
    expect((await api(`/api/records/${id}/draft/pids/doi`)).status).toBe(405);
    const published = await api(`/api/records/${id}/draft/actions/publish`, { method: 'POST', token: t });
    c.check(published, 'post', `${D}/actions/{action}`);
    expect(published.status).toBe(202);

    const R = '/api/records/{id}';
    c.check(await api(`/api/records/${id}`), 'get', R);
    c.check(await api(`/api/records/${published.body.parent.id}`), 'get', R);
    c.check(await api('/api/records/zzzzz-zzzzz'), 'get', R);
    c.check(await api(`/api/records/${id}/files`), 'get', `${R}/files`);
    c.check(await api(`/api/records/${id}/files/dir/data.txt`), 'get', `${R}/files/{key}`);
    c.check(await api(`/api/records/${id}/files/dir/data.txt/content`), 'get', `${R}/files/{key}/content`);
    c.check(await api(`/api/records/${id}/files-archive`), 'get', `${R}/files-archive`);
    c.check(await api(`/api/records/${id}/versions`), 'get', `${R}/versions`);
    c.check(await api(`/api/records/${id}/versions/latest`), 'get', `${R}/versions/latest`);
    c.check(await api(`/api/records?q=${encodeURIComponent(`id:${id}`)}`), 'get', '/api/records');
    c.check(await api('/api/records?access_status=open&resource_types=image&size=2'), 'get', '/api/records');
    c.check(await api('/api/records?publication_date=not-a-date'), 'get', '/api/records');
    c.check(await api('/api/user/records', { token: t }), 'get', '/api/user/records');
    c.check(await api('/api/user/records'), 'get', '/api/user/records');
    c.check(await api('/api/communities/some-community/records'), 'get', '/api/communities/{id}/records');

    const next = await api(`/api/records/${id}/versions`, { method: 'POST', token: t });
    c.check(next, 'post', `${R}/versions`);
    expect(next.status).toBe(201);
    const imported = await api(`/api/records/${next.body.id}/draft/actions/files-import`, { method: 'POST', token: t });
    c.check(imported, 'post', `${D}/actions/{action}`);
    expect(imported.status).toBe(201);
    c.check(await api(`/api/records/${next.body.id}/draft/files`, { token: t, method: 'DELETE' }), 'delete', `${D}/files`);
    c.check(await api(`/api/records/${next.body.id}/draft`, { token: t, method: 'DELETE' }), 'delete', D);
    c.check(await api(`/api/records/${id}/draft`, { token: t, method: 'POST' }), 'post', D);
  });
});
