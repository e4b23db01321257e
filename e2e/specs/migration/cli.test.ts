/**
 * The migration tool (services/migration, issue 26) against the real stack: a small HTTP server
 * answering like InvenioRDM's REST API (records, versions, files, content; a token it checks)
 * is the source; the CLI copies a parent with two versions and its files, reports a record our
 * schema rejects and goes on, copies nothing on a second run, and refuses a wrong token with a
 * clear message. The same against a real InvenioRDM: `make test-migration` (e2e/migration).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../support/client.js';
import { childEnv, readStackState } from '../../support/stack.js';
import { createUser, uniqueEmail } from '../../support/users.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..', '..');
const TOKEN = 'source-admin-token';
// Why long: each case starts the CLI twice (its schema migration, then the run) under tsx.
const SLOW = 240_000;
const md5 = (b: Buffer) => `md5:${createHash('md5').update(b).digest('hex')}`;

describe('migration CLI from an InvenioRDM-like source', () => {
  const tag = Date.now()
    .toString(36)
    .slice(-5)
    .padStart(5, '0')
    .replace(/[ilou]/g, 'x');
  const P = `${tag}-par01`;
  const V1 = `${tag}-ver01`;
  const V2 = `${tag}-ver02`;
  const BAD = `${tag}-bad01`;
  const BADP = `${tag}-badp1`;
  const bytes: Record<string, Buffer> = {
    [`${V1}/data.bin`]: Buffer.alloc(200_000, 7),
    [`${V2}/data.bin`]: Buffer.alloc(200_000, 7),
    [`${V2}/ünï – notes.txt`]: Buffer.from('second version\n'),
  };
  let server: Server;
  let base: string;
  let admin: string;
  let reportFile: string;

  const record = (id: string, parent: string, index: number, latest: boolean, over: Record<string, unknown> = {}) => ({
    id,
    created: `2020-0${index}-01T10:00:00.250000+00:00`,
    updated: `2020-0${index}-02T10:00:00.000000+00:00`,
    pids: { oai: { identifier: `oai:old:${id}`, provider: 'oai' } },
    parent: { id: parent, access: { owned_by: { user: '1' } } },
    versions: { index, is_latest: latest },
    access: { record: 'public', files: 'public', embargo: { active: false, until: null, reason: null } },
    files: { enabled: true },
    metadata: {
      resource_type: { id: 'dataset', title: { en: 'Dataset' } },
      title: `Ωmega v${index} – Zürich`,
      publication_date: '2020-01-01',
      creators: [{ person_or_org: { type: 'personal', family_name: 'Døe', given_name: 'Jürgen', name: 'Døe, Jürgen' } }],
    },
    ...over,
  });
  const records = [
    record(V1, P, 1, false),
    record(V2, P, 2, true),
    record(BAD, BADP, 1, true, { files: { enabled: false }, metadata: { title: 'no date', resource_type: { id: 'dataset' } } }),
  ];

  beforeAll(async () => {
    admin = (await createUser({ email: uniqueEmail('migration'), admin: true })).token;
    reportFile = join(await mkdtemp(join(tmpdir(), 'rdm-migration-cli-')), 'report.json');
    server = createServer((req, res) => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.headers.authorization !== `Bearer ${TOKEN}`) return send(403, { status: 403, message: 'Permission denied.' });
      const url = new URL(req.url ?? '/', base);
      const path = decodeURIComponent(url.pathname);
      if (path === '/api/records') {
        const hits = url.searchParams.get('allversions') ? records : records.filter((r) => r.versions.is_latest);
        return send(200, { hits: { hits, total: hits.length }, links: { self: `${base}${req.url}` } });
      }
      let m = /^\/api\/records\/([^/]+)\/versions$/.exec(path);
      if (m) {
        const parent = records.find((r) => r.id === m![1])?.parent.id;
        const hits = records.filter((r) => r.parent.id === parent).reverse();
        return send(200, { hits: { hits, total: hits.length }, links: {} });
      }
      m = /^\/api\/records\/([^/]+)\/files$/.exec(path);
      if (m) {
        const entries = Object.entries(bytes)
          .filter(([k]) => k.startsWith(`${m![1]}/`))
          .map(([k, b]) => {
            const key = k.slice(m![1]!.length + 1);
            return {
              key,
              checksum: md5(b),
              size: b.length,
              links: { content: `${base}/api/records/${m![1]}/files/${encodeURIComponent(key)}/content` },
            };
          });
        return send(200, { enabled: true, entries });
      }
      m = /^\/api\/records\/([^/]+)\/files\/(.+)\/content$/.exec(path);
      if (m && bytes[`${m[1]}/${m[2]}`]) {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        return res.end(bytes[`${m[1]}/${m[2]}`]);
      }
      send(404, { status: 404, message: 'Not found.' });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server?.close();
  });

  async function migrate(token = TOKEN): Promise<{ code: number; stderr: string }> {
    const state = readStackState();
    const files = state.services.files!;
    const env = {
      ...childEnv(),
      NODE_OPTIONS: undefined,
      DATABASE_URL: state.databaseUrl,
      NATS_URL: state.natsUrl,
      IDENTITY_SECRET: files.spec.env.IDENTITY_SECRET!,
      FILES_URL: `http://127.0.0.1:${files.spec.port}`,
      MIGRATION_SOURCE_RATE: '0',
      LOG_LEVEL: 'warn',
    };
    const tsx = join(ROOT, 'node_modules', '.bin', 'tsx');
    const cwd = join(ROOT, 'services', 'migration');
    await run(tsx, ['src/main.ts', 'migrate'], { cwd, env });
    return run(tsx, ['src/main.ts', 'run', '--url', base, '--token', token, '--report', reportFile], { cwd, env })
      .then((r) => ({ code: 0, stderr: r.stderr }))
      .catch((err: { code?: number; stderr?: string }) => ({ code: err.code ?? -1, stderr: err.stderr ?? '' }));
  }

  it(
    'should copy the versions with their files, report the rejected record and go on',
    async () => {
      const { code, stderr } = await migrate();
      expect(code, stderr).toBe(1);
      expect(stderr).toMatch(/\[records\] 2\/3 copied=1 /);
      const report = JSON.parse(await readFile(reportFile, 'utf8'));
      expect(report.records).toEqual({ copied: 1, unchanged: 0, skipped: 0, failed: 1 });
      expect(report.files).toMatchObject({ copied: 3, checksum_mismatches: 0, bytes: 400_000 + 'second version\n'.length });
      expect(report.failures).toEqual([{ id: BADP, reason: expect.stringContaining('versions.0.metadata.publication_date') }]);
      await api(`/api/records/${BAD}`, { token: admin }).then((r) => expect(r.status).toBe(404));

      const v1 = (await api(`/api/records/${V1}`)).body;
      expect(v1).toMatchObject({
        id: V1,
        parent: { id: P },
        versions: { index: 1, is_latest: false },
        created: '2020-01-01T10:00:00.250000+00:00',
      });
      expect(v1.metadata).toMatchObject({ title: 'Ωmega v1 – Zürich', resource_types: [{ id: 'dataset' }] });
      const v2 = (await api(`/api/records/${V2}`)).body;
      expect(v2.versions).toMatchObject({ index: 2, is_latest: true });
      const listed = (await api(`/api/records/${V2}/files`)).body;
      expect(listed.entries.map((e: { key: string; checksum: string }) => [e.key, e.checksum]).sort()).toEqual([
        ['data.bin', md5(bytes[`${V2}/data.bin`]!)],
        ['ünï – notes.txt', md5(bytes[`${V2}/ünï – notes.txt`]!)],
      ]);
      const content = await api(`/api/records/${V2}/files/${encodeURIComponent('ünï – notes.txt')}/content`);
      expect(content.text).toBe('second version\n');
    },
    SLOW,
  );

  it(
    'should copy nothing on a second run',
    async () => {
      const { stderr } = await migrate();
      const report = JSON.parse(await readFile(reportFile, 'utf8'));
      expect(report.records, stderr).toMatchObject({ copied: 0, unchanged: 1, failed: 1 });
      expect(report.files.copied).toBe(0);
    },
    SLOW,
  );

  it(
    'should refuse a wrong token with a clear message and exit status 2',
    async () => {
      const { code, stderr } = await migrate('wrong');
      expect(code).toBe(2);
      expect(stderr).toContain('The source refused the token (HTTP 403');
    },
    SLOW,
  );
});
