/**
 * Compatibility with real InvenioRDM clients from PyPI (pinned in e2e/compat/requirements.txt),
 * run unmodified against the stack:
 * - the official Python client `inveniordm-py`: e2e/compat/inveniordm_py_workflow.py drives the
 *   whole submission workflow and prints a JSON summary that is asserted here;
 * - the same client and its own keep-alive `requests` session drive a community review
 *   (e2e/compat/inveniordm_py_community.py: inveniordm-py has no community API of its own);
 * - `doiggie-invenio` (pooch's InvenioRDM plugin): e2e/compat/doiggie_invenio_read.py fetches the
 *   record published by the first test and verifies the files by their `checksum`.
 * Each script's summary is also written to .data/compat/<client>.json (kept after the run).
 *
 * The client lives in a venv under `<repo>/.tools/compat-venv`, made on first use (python3 -m venv,
 * pip install -r requirements.txt) and remade when requirements.txt changes. When python3 or pip
 * cannot provide it (no network), the spec fails under CI and is skipped elsewhere with the reason.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../scripts/up.js';
import { baseUrl } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';

const run = promisify(execFile);
const CI = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';
const COMPAT_DIR = join(REPO_ROOT, 'e2e', 'compat');
const REQUIREMENTS = join(COMPAT_DIR, 'requirements.txt');
const VENV = join(REPO_ROOT, '.tools', 'compat-venv');
const VENV_PYTHON = join(VENV, 'bin', 'python');
const STAMP = join(VENV, '.requirements.sha256');

/** Make (or reuse) the venv with the pinned clients; returns null when ready, else why not. */
async function ensureVenv(): Promise<string | null> {
  const want = createHash('sha256').update(readFileSync(REQUIREMENTS)).digest('hex');
  if (existsSync(VENV_PYTHON) && existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === want) return null;
  try {
    rmSync(VENV, { recursive: true, force: true });
    mkdirSync(join(REPO_ROOT, '.tools'), { recursive: true });
    await run('python3', ['-m', 'venv', VENV], { timeout: 120_000 });
    await run(VENV_PYTHON, ['-m', 'pip', 'install', '--disable-pip-version-check', '-q', '-r', REQUIREMENTS], {
      timeout: 300_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    writeFileSync(STAMP, `${want}\n`);
    return null;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    rmSync(VENV, { recursive: true, force: true });
    return `cannot install e2e/compat/requirements.txt into ${VENV}: ${(e.stderr || e.message).trim().split('\n').slice(-3).join(' | ')}`;
  }
}

/** One file of the summary. */
interface FileSummary {
  key: string;
  size: number;
  server_checksum: string;
  listed_checksum: string;
  sent_md5: string;
  downloaded_md5: string;
  local_md5: string;
  md5_matches: boolean;
  identical_to_local_file: boolean;
}

/** What inveniordm_py_workflow.py prints. */
interface Summary {
  ok: boolean;
  failed_step?: string;
  error?: string;
  response?: { status: number; body: string };
  record: {
    id: string;
    parent_id: string;
    self_html: string;
    status: string;
    is_published: boolean;
    creator_types: string[];
    files_count: number;
  };
  files: FileSummary[];
  search: { query: string; hits: number; found: boolean };
  new_version: { id: string; status: string; index: number; files: string[]; import_files_quirk: string | null };
  versions: { total: number; ids: string[]; indexes: number[]; latest_id: string };
  edit: { id: string };
  http: string[];
}

/** What inveniordm_py_community.py prints. */
interface CommunitySummary {
  ok: boolean;
  community: { id: string; slug: string };
  invitation: { id: string; status: string };
  review: { id: string; status: string };
  record: { id: string; is_published: boolean; communities: string[] };
  timeline: [string, string][];
  http: string[];
}

/** Summary of doiggie_invenio_read.py. */
interface ReadSummary {
  ok: boolean;
  archive_url: string;
  registry: Record<string, string>;
  files: { key: string; known_hash: string; md5: string; size: number }[];
  licenses: { name: string | null; urls: string[] }[];
}

/** Run one script of e2e/compat with the venv's python; its exit code and parsed JSON summary. */
async function runScript<T>(script: string, name: string, env: Record<string, string>): Promise<{ code: number; summary: T }> {
  let stdout = '';
  let code = 0;
  try {
    ({ stdout } = await run(VENV_PYTHON, [join(COMPAT_DIR, script)], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      timeout: 120_000,
      maxBuffer: 4 * 1024 * 1024,
    }));
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; code?: number };
    stdout = e.stdout ?? '';
    code = typeof e.code === 'number' ? e.code : -1;
    if (!stdout.trim()) throw new Error(`${script} exited ${e.code} without a summary: ${e.stderr}`);
  }
  try {
    const dir = join(REPO_ROOT, '.data', 'compat');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${name}.json`), stdout);
  } catch {
    // the copy on disk is a convenience only
  }
  return { code, summary: JSON.parse(stdout) as T };
}

describe('real InvenioRDM clients (PyPI) against the stack', () => {
  let skipReason: string | null = null;
  let user: TestUser;
  let published: Summary | undefined;

  beforeAll(async () => {
    skipReason = await ensureVenv();
    if (skipReason && CI) throw new Error(skipReason);
    if (skipReason) process.stderr.write(`[compat] SKIPPED inveniordm-py: ${skipReason}\n`);
    user = await createUser({ email: uniqueEmail('compat-py'), name: 'Compat Client' });
  }, 420_000);

  it('should run the whole workflow with inveniordm-py 0.1.1, unmodified', async (ctx) => {
    if (skipReason) ctx.skip();
    const { code, summary } = await runScript<Summary>('inveniordm_py_workflow.py', 'inveniordm-py', {
      BASE_URL: baseUrl(),
      TOKEN: user.token,
    });
    published = summary;
    // The whole summary in the message: the failed step, the response and the HTTP log.
    expect(code, JSON.stringify(summary, null, 2)).toBe(0);
    expect(summary.ok).toBe(true);

    expect(summary.record).toMatchObject({ status: 'published', is_published: true, files_count: 2 });
    expect(summary.record.creator_types.sort()).toEqual(['organizational', 'personal']);

    expect(summary.files).toHaveLength(2);
    for (const f of summary.files) {
      expect(f.server_checksum, f.key).toMatch(/^md5:[0-9a-f]{32}$/);
      expect(f.md5_matches, JSON.stringify(f)).toBe(true);
      expect(f.server_checksum).toBe(f.sent_md5);
      expect(f.downloaded_md5).toBe(f.sent_md5);
    }

    expect(summary.search.found).toBe(true);

    expect(summary.new_version).toMatchObject({ status: 'published', index: 2 });
    expect(summary.new_version.files).toEqual(summary.files.map((f) => f.key).sort());

    expect(summary.versions.total).toBe(2);
    expect(summary.versions.ids.sort()).toEqual([summary.record.id, summary.new_version.id].sort());
    expect(summary.versions.indexes).toEqual([2, 1]);
    expect(summary.versions.latest_id).toBe(summary.new_version.id);
    // Every call the client made succeeded at the HTTP level except the client's own broken
    // import_files() path (none expected: InvenioRDM answers its POST …/draft with 201 too).
    expect(summary.http.filter((l) => !/-> (200|201|202|204)$/.test(l) && !/\/draft -> 404$/.test(l))).toEqual([]);
  }, 180_000);

  it('should run a community review from Python: the client plus its own keep-alive session', async (ctx) => {
    if (skipReason) ctx.skip();
    const [admin, curator] = await Promise.all([
      createUser({ email: uniqueEmail('compat-admin'), admin: true, name: 'Compat Admin' }),
      createUser({ email: uniqueEmail('compat-curator'), name: 'Compat Curator' }),
    ]);
    const { code, summary } = await runScript<CommunitySummary>('inveniordm_py_community.py', 'inveniordm-py-community', {
      BASE_URL: baseUrl(),
      ADMIN_TOKEN: admin.token,
      TOKEN: user.token,
      CURATOR_TOKEN: curator.token,
      CURATOR_ID: curator.id,
    });
    expect(code, JSON.stringify(summary, null, 2)).toBe(0);
    expect(summary.invitation.status).toBe('accepted');
    expect(summary.review.status).toBe('accepted');
    expect(summary.record).toEqual({ id: expect.any(String), is_published: true, communities: [summary.community.id] });
    expect(summary.timeline).toEqual([
      ['C', 'Please have a look'],
      ['C', 'Looks fine'],
      ['L', 'accepted'],
      ['C', 'Accepted'],
    ]);
    expect(summary.http.filter((l) => !/-> (200|201|202|204)$/.test(l))).toEqual([]);
  }, 180_000);

  it('should let doiggie-invenio + pooch fetch the published files and verify their checksums', async (ctx) => {
    if (skipReason) ctx.skip();
    if (!published?.ok) throw new Error('needs the record published by the inveniordm-py test');
    const { code, summary } = await runScript<ReadSummary>('doiggie_invenio_read.py', 'doiggie-invenio', {
      RECORD_URL: published.record.self_html,
    });
    expect(code, JSON.stringify(summary, null, 2)).toBe(0);
    expect(summary.archive_url).toBe(published.record.self_html);
    const expected = Object.fromEntries(published.files.map((f) => [f.key, f.server_checksum]));
    expect(summary.registry).toEqual(expected);
    expect(summary.files.map((f) => [f.key, f.md5])).toEqual(Object.entries(expected).sort());
    expect(summary.licenses).toHaveLength(1);
    expect(summary.licenses[0].name).toMatch(/Creative Commons Attribution 4\.0/);
    expect(summary.licenses[0].urls).toEqual([expect.stringMatching(/^https:\/\/creativecommons\.org\/licenses\/by\/4\.0/)]);
  }, 120_000);
});
