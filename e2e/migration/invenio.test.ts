/**
 * `make test-migration` (issue 26): the migration from a REAL InvenioRDM 14 (the reference of
 * ../shared/invenio-reference, started with its up.sh) into the e2e stack. Seeds the source
 * through its REST API with a small corpus made for it — a record with 3 versions and files
 * (one of a few MB), a restricted record, an embargoed one, non-ASCII metadata — runs
 * `services/migration` (its CLI, as `make migrate-from-invenio` does), then compares every
 * version, file checksum and access setting between the two APIs field by field, downloads the
 * large file back and checks its md5, and runs again: nothing is copied twice. Locally it is
 * skipped with a warning when the reference is not reachable; under CI it fails loudly.
 *
 * Not covered yet (not migrated yet): communities, users, tombstones, requests.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../support/client.js';
import { childEnv, readStackState } from '../support/stack.js';
import { createUser, uniqueEmail } from '../support/users.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const CI = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';
const ENV_FILE = join(process.env.INVENIO_REF_HOME ?? join(homedir(), '.cache', 'invenio-reference'), 'invenio-reference.env');

/** BASE_URL and tokens of the reference (its env file), or why it is not usable. */
function reference(): { base: string; admin: string; owner: string } | string {
  if (!existsSync(ENV_FILE)) return `${ENV_FILE} not found: start the reference with ../shared/invenio-reference/up.sh`;
  const vars = Object.fromEntries(
    readFileSync(ENV_FILE, 'utf8')
      .split('\n')
      .map((l) => /^(?:export\s+)?([A-Z_]+)=["']?(.*?)["']?$/.exec(l.trim()))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1], m[2]]),
  );
  if (!vars.BASE_URL || !vars.TOKEN_ADMIN || !vars.TOKEN_OWNER) return `${ENV_FILE} lacks BASE_URL/TOKEN_ADMIN/TOKEN_OWNER`;
  return { base: vars.BASE_URL.replace(/\/$/, ''), admin: vars.TOKEN_ADMIN, owner: vars.TOKEN_OWNER };
}

const ref = reference();
let reachable = typeof ref !== 'string';
if (typeof ref !== 'string') {
  reachable = await fetch(`${ref.base}/api/records?size=1`, { signal: AbortSignal.timeout(10_000) })
    .then((r) => r.ok)
    .catch(() => false);
}
const why = typeof ref === 'string' ? ref : `InvenioRDM reference not answering at ${ref.base}`;
if (!reachable && CI) throw new Error(`make test-migration: ${why} (under CI the migration test needs it)`);
if (!reachable) console.warn(`[test-migration] skipped: ${why}`);

/** A call to the source. */
async function src(path: string, token: string, o: { method?: string; json?: unknown; raw?: Buffer } = {}) {
  const R = ref as Exclude<typeof ref, string>;
  const res = await fetch(`${R.base}${path}`, {
    method: o.method ?? (o.json !== undefined || o.raw ? 'POST' : 'GET'),
    headers: {
      authorization: `Bearer ${token}`,
      ...(o.json !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(o.raw ? { 'content-type': 'application/octet-stream' } : {}),
    },
    body: o.raw ?? (o.json !== undefined ? JSON.stringify(o.json) : undefined),
  });
  const text = await res.text();
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: res.status, body };
}

const md5 = (b: Buffer) => `md5:${createHash('md5').update(b).digest('hex')}`;
const ms = (iso: string) => new Date(iso).getTime();

describe.skipIf(!reachable)('migration from a real InvenioRDM', () => {
  const R = ref as Exclude<typeof ref, string>;
  const marker = `mig${Date.now().toString(36)}`;
  const big = Buffer.alloc(3 * 1024 * 1024 + 17);
  for (let i = 0; i < big.length; i++) big[i] = (i * 31 + (i >> 10)) & 0xff;
  const corpus: { family: string[]; restricted: string; embargoed: string } = { family: [], restricted: '', embargoed: '' };
  let admin: string;
  let reportFile: string;

  const metadata = (title: string) => ({
    resource_type: { id: 'dataset' },
    title,
    publication_date: '2021-03-04',
    creators: [{ person_or_org: { type: 'personal', family_name: 'Døe', given_name: 'Jürgen' } }],
    description: '<p>Ünïcödé — ñ, 中文, Ελληνικά</p>',
  });

  async function ok(p: Promise<{ status: number; body: any }>, status: number) {
    const r = await p;
    if (r.status !== status) throw new Error(`source answered ${r.status}, expected ${status}: ${JSON.stringify(r.body).slice(0, 500)}`);
    return r.body;
  }

  async function upload(id: string, key: string, bytes: Buffer) {
    await ok(src(`/api/records/${id}/draft/files`, R.owner, { json: [{ key }] }), 201);
    await ok(src(`/api/records/${id}/draft/files/${encodeURIComponent(key)}/content`, R.owner, { method: 'PUT', raw: bytes }), 200);
    await ok(src(`/api/records/${id}/draft/files/${encodeURIComponent(key)}/commit`, R.owner, { method: 'POST', json: {} }), 200);
  }

  async function migrate(...extra: string[]) {
    const state = readStackState();
    const files = state.services.files!;
    const env = {
      ...childEnv(),
      NODE_OPTIONS: undefined,
      DATABASE_URL: state.databaseUrl,
      NATS_URL: state.natsUrl,
      IDENTITY_SECRET: files.spec.env.IDENTITY_SECRET!,
      FILES_URL: `http://127.0.0.1:${files.spec.port}`,
      MIGRATION_SOURCE_RATE: '20',
      LOG_LEVEL: 'warn',
    };
    const tsx = join(ROOT, 'node_modules', '.bin', 'tsx');
    const cwd = join(ROOT, 'services', 'migration');
    await run(tsx, ['src/main.ts', 'migrate'], { cwd, env });
    const out = await run(tsx, ['src/main.ts', 'run', '--url', R.base, '--token', R.admin, '--report', reportFile, ...extra], {
      cwd,
      env,
      maxBuffer: 64 * 1024 * 1024,
    }).catch((err: { code?: number; stderr?: string }) => {
      // Exit 1: some record of the source failed (reported); ours are checked below.
      if (err.code === 1) return { stderr: err.stderr ?? '' };
      throw err;
    });
    return { stderr: out.stderr, report: JSON.parse(await readFile(reportFile, 'utf8')) };
  }

  beforeAll(async () => {
    reportFile = join(await mkdtemp(join(tmpdir(), 'rdm-migration-')), 'report.json');
    admin = (await createUser({ email: uniqueEmail('migration-admin'), admin: true })).token;
    // A record with 3 versions and files (one of a few MB).
    let draft = await ok(
      src('/api/records', R.owner, { json: { metadata: metadata(`${marker} Ωmega v1`), files: { enabled: true } } }),
      201,
    );
    await upload(draft.id, 'big.bin', big);
    await upload(draft.id, 'notes – ü.txt', Buffer.from('first version\n'));
    let rec = await ok(src(`/api/records/${draft.id}/draft/actions/publish`, R.owner, { method: 'POST', json: {} }), 202);
    corpus.family.push(rec.id);
    for (const n of [2, 3]) {
      draft = await ok(src(`/api/records/${rec.id}/versions`, R.owner, { method: 'POST', json: {} }), 201);
      await ok(
        src(`/api/records/${draft.id}/draft`, R.owner, { method: 'PUT', json: { ...draft, metadata: metadata(`${marker} Ωmega v${n}`) } }),
        200,
      );
      await ok(src(`/api/records/${draft.id}/draft/actions/files-import`, R.owner, { method: 'POST', json: {} }), 201);
      await upload(draft.id, `v${n}.txt`, Buffer.from(`version ${n}\n`));
      rec = await ok(src(`/api/records/${draft.id}/draft/actions/publish`, R.owner, { method: 'POST', json: {} }), 202);
      corpus.family.push(rec.id);
    }
    // A restricted, metadata-only record; an embargoed one.
    const restricted = await ok(
      src('/api/records', R.owner, {
        json: {
          metadata: metadata(`${marker} restricted`),
          files: { enabled: false },
          access: { record: 'restricted', files: 'restricted' },
        },
      }),
      201,
    );
    corpus.restricted = (
      await ok(src(`/api/records/${restricted.id}/draft/actions/publish`, R.owner, { method: 'POST', json: {} }), 202)
    ).id;
    const embargoed = await ok(
      src('/api/records', R.owner, {
        json: {
          metadata: metadata(`${marker} embargoed`),
          files: { enabled: false },
          access: { record: 'public', files: 'restricted', embargo: { active: true, until: '2031-02-03', reason: 'Patent pending' } },
        },
      }),
      201,
    );
    corpus.embargoed = (await ok(src(`/api/records/${embargoed.id}/draft/actions/publish`, R.owner, { method: 'POST', json: {} }), 202)).id;
  });

  afterAll(() => undefined);

  it('should migrate every version, file and access setting as the source has them', async () => {
    const { report, stderr } = await migrate();
    expect(stderr).toMatch(/\[records\] \d+\/\d+ copied=/);
    expect(report.files.checksum_mismatches).toBe(0);
    const ours = [...corpus.family, corpus.restricted, corpus.embargoed];
    for (const id of ours) {
      const s = await ok(src(`/api/records/${id}`, R.admin), 200);
      const t = await api(`/api/records/${id}`, { token: admin });
      expect(t.status, `${id} on the target`).toBe(200);
      const d = t.body;
      expect(d.id).toBe(s.id);
      expect(d.parent.id).toBe(s.parent.id);
      expect(d.versions.index).toBe(s.versions.index);
      expect(ms(d.created)).toBe(Math.floor(ms(s.created)));
      expect(d.metadata.title).toBe(s.metadata.title);
      expect(d.metadata.publication_date).toBe(s.metadata.publication_date);
      expect(d.metadata.description).toBe(s.metadata.description);
      expect(d.metadata.creators[0].person_or_org).toMatchObject({ family_name: 'Døe', given_name: 'Jürgen' });
      expect(d.metadata.resource_types?.[0]?.id ?? d.metadata.resource_type?.id).toBe(s.metadata.resource_type.id);
      expect({ record: d.access.record, files: d.access.files }).toEqual({ record: s.access.record, files: s.access.files });
      expect(d.access.embargo.active).toBe(s.access.embargo.active);
      expect(d.access.embargo.until ?? null).toBe(s.access.embargo.until ?? null);
      expect(d.files.enabled).toBe(s.files.enabled);
      if (s.files.enabled) {
        const sf = await ok(src(`/api/records/${id}/files`, R.admin), 200);
        const tf = (await api(`/api/records/${id}/files`, { token: admin })).body;
        const sum = (es: any[]) => es.map((e) => [e.key, e.checksum, e.size]).sort();
        expect(sum(tf.entries)).toEqual(sum(sf.entries));
      }
    }
    // Version order and latest as at the source.
    const latest = (await api(`/api/records/${corpus.family[0]}/versions`, { token: admin })).body;
    expect(latest.hits.hits.map((h: { id: string }) => h.id).sort()).toEqual([...corpus.family].sort());
    const last = (await api(`/api/records/${corpus.family[2]}`, { token: admin })).body;
    expect(last.versions.is_latest).toBe(true);
    // The big file, downloaded back: the same bytes.
    const res = await fetch(`${process.env.E2E_BASE_URL}/api/records/${corpus.family[0]}/files/big.bin/content`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(res.status).toBe(200);
    expect(md5(Buffer.from(await res.arrayBuffer()))).toBe(md5(big));
    // The restricted record stays hidden from anonymous readers.
    expect((await api(`/api/records/${corpus.restricted}`)).status).toBe(403);
  });

  it('should copy nothing again on a second run', async () => {
    const { report } = await migrate();
    const ourParents = new Set<string>();
    for (const id of [...corpus.family, corpus.restricted, corpus.embargoed])
      ourParents.add((await ok(src(`/api/records/${id}`, R.admin), 200)).parent.id);
    expect(report.copied.filter((c: { id: string }) => ourParents.has(c.id))).toEqual([]);
    expect(report.files.copied).toBe(0);
    expect(report.records.unchanged).toBeGreaterThanOrEqual(ourParents.size);
  });

  it('should write nothing on a dry run', async () => {
    const before = (await api('/api/records?size=1', { token: admin })).body.hits.total;
    const { report } = await migrate('--dry-run');
    expect(report.dry_run).toBe(true);
    expect((await api('/api/records?size=1', { token: admin })).body.hits.total).toBe(before);
  });
});
