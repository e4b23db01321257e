/**
 * A real OAI-PMH harvester against /oai2d: Python's `sickle` (pinned in
 * e2e/compat/requirements-oai.txt, installed into <repo>/.tools/oai-venv on first use and remade
 * when that file changes) harvests 10,000 records with ListRecords over HTTP, following the
 * resumption tokens, and must get every record exactly once — deleted ones as deleted headers.
 * The records are copies of one published record's search document (test/support/bulk-records.ts),
 * many sharing a datestamp, so paging must be exact across ties. When python3 or pip cannot
 * provide the venv (no network), the test fails under CI and is skipped elsewhere with the reason.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyPublishedRecord } from '../support/bulk-records.js';
import { publish } from './export-support.js';
import { type Env, startEnv } from './support.js';
import { listenBehindFront } from '@rdm/platform/testing';
import { SECRET } from './support.js';

const run = promisify(execFile);
const CI = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';
const REPO = fileURLToPath(new URL('../../../../', import.meta.url));
const REQUIREMENTS = join(REPO, 'e2e', 'compat', 'requirements-oai.txt');
const SCRIPT = join(REPO, 'e2e', 'compat', 'oai_harvest.py');
const VENV = join(REPO, '.tools', 'oai-venv');
const PYTHON = join(VENV, 'bin', 'python');
const STAMP = join(VENV, '.requirements.sha256');
const N = 10_000;

/** Make (or reuse) the venv; null when ready, else why not. */
async function ensureVenv(): Promise<string | null> {
  const want = createHash('sha256').update(readFileSync(REQUIREMENTS)).digest('hex');
  if (existsSync(PYTHON) && existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === want) return null;
  try {
    rmSync(VENV, { recursive: true, force: true });
    mkdirSync(join(REPO, '.tools'), { recursive: true });
    await run('python3', ['-m', 'venv', VENV], { timeout: 120_000 });
    await run(PYTHON, ['-m', 'pip', 'install', '--disable-pip-version-check', '-q', '-r', REQUIREMENTS], { timeout: 300_000 });
    writeFileSync(STAMP, `${want}\n`);
    return null;
  } catch (err) {
    rmSync(VENV, { recursive: true, force: true });
    const e = err as { stderr?: string; message: string };
    return `cannot install ${REQUIREMENTS}: ${(e.stderr || e.message).trim().split('\n').slice(-2).join(' | ')}`;
  }
}

describe('OAI-PMH harvest of 10,000 records by sickle', () => {
  let env: Env;
  let server: Server;
  let venvProblem: string | null = null;
  const expected: string[] = [];
  let deleted = 0;

  beforeAll(async () => {
    venvProblem = await ensureVenv();
    if (venvProblem && CI) throw new Error(venvProblem);
    env = await startEnv();
    const template = await publish(env);
    expected.push(template.pids.oai.identifier);
    const copies = await copyPublishedRecord(env.db, template.id, N - 1, {
      prefix: 'hv',
      oaiNamespace: 'harvest.example.org',
      from: new Date('2024-01-01T00:00:00Z'),
      sameSecond: 7,
      deletedEvery: 500,
    });
    expected.push(...copies.oai);
    deleted = copies.deleted;
    server = listenBehindFront(env.parts.app.callback(), SECRET);
    await new Promise<void>((r) => server.once('listening', () => r()));
  }, 420_000);
  afterAll(async () => {
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    await env?.close();
  });

  it('should give every record exactly once, deleted ones as deleted headers, within 2 minutes', async (ctx) => {
    if (venvProblem) ctx.skip();
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/oai2d`;
    const { stdout } = await run(PYTHON, [SCRIPT, url, 'oai_dc'], { timeout: 120_000, maxBuffer: 64 * 1024 * 1024 });
    const out = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(out.ok, stdout.slice(0, 500)).toBe(true);
    expect(out.records).toBe(N);
    expect(new Set(out.identifiers).size).toBe(N);
    expect([...out.identifiers].sort()).toEqual([...expected].sort());
    expect(out.deleted).toBe(deleted);
    expect(deleted).toBe(Math.floor((N - 1) / 500));
    expect(out.pages).toBe(Math.ceil(N / 100));
    expect(out.seconds).toBeLessThan(120);
    console.log(`sickle harvested ${out.records} records (${out.deleted} deleted) in ${out.pages} pages, ${out.seconds} s`);
  }, 150_000);
});
