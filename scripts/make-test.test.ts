/**
 * The `make test` target's own logic, run for real on the repository's Makefile with everything
 * it calls replaced by stand-ins (ROOT and INFRA overridden on make's command line): a MinIO or
 * OpenSearch that does not start is counted and named as skipped outside CI and fails the run
 * under CI; the e2e run on OpenSearch is not attempted without OpenSearch and is counted; at the
 * end the run asks each server script to stop what THIS run started (`stop-run <its run id>`, the
 * id it gave the starts), also when the run fails. With the default E2E_RUNTIME=containers the
 * images are built (scripts/images.sh, a stand-in here) and the `containers` project runs before
 * the e2e phases; a failed image build fails the run; E2E_RUNTIME=processes builds none.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '..');
let root = '';

afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

function script(path: string, body: string): void {
  writeFileSync(path, `#!/usr/bin/env bash\n${body}\n`);
  chmodSync(path, 0o755);
}

/**
 * A stand-in checkout: infra scripts that log their calls (MinIO/OpenSearch start fails when
 * FAKE_<NAME>_DOWN is set), tools that succeed, and a vitest that writes a one-test JSON report
 * per project (plus two skipped S3 tests in integration when FAKE_MINIO_DOWN is set, as the files
 * suites declare them).
 */
function fakeCheckout(): string {
  root = mkdtempSync(join(tmpdir(), 'make-test-'));
  const infra = join(root, 'infra');
  const bin = join(root, 'node_modules', '.bin');
  mkdirSync(infra, { recursive: true });
  mkdirSync(bin, { recursive: true });
  mkdirSync(join(root, 'scripts'));
  mkdirSync(join(root, '.data'));
  copyFileSync(join(REPO, 'scripts', 'test-summary.mjs'), join(root, 'scripts', 'test-summary.mjs'));
  script(
    join(root, 'scripts', 'images.sh'),
    `echo "images $*" >>"${root}/calls.log"
if [ -n "\${FAKE_IMAGES_FAIL:-}" ]; then echo "images.sh: error: image rdm-debian:bookworm: debootstrap failed (fake)" >&2; exit 1; fi
exit 0`,
  );
  // The target calls `$(MAKE) -s typecheck` from ROOT: the same Makefile there.
  symlinkSync(join(REPO, 'Makefile'), join(root, 'Makefile'));
  writeFileSync(join(root, 'package.json'), '{}');
  writeFileSync(join(root, 'pnpm-lock.yaml'), '');
  writeFileSync(join(root, 'node_modules', '.rdm-deps-stamp'), '');
  for (const name of ['postgres', 'nats', 'xmllint', 'chromium', 'iiif-validator', 'helm']) script(join(infra, `${name}.sh`), 'exit 0');
  for (const [name, down] of [
    ['minio', 'FAKE_MINIO_DOWN'],
    ['opensearch', 'FAKE_OPENSEARCH_DOWN'],
  ]) {
    script(
      join(infra, `${name}.sh`),
      `echo "${name} $1 \${2:-run=\${INFRA_RUN_ID:-}}" >>"${root}/calls.log"
if [ "$1" = start ] && [ -n "\${${down}:-}" ]; then echo "${name}: could not start (fake)" >&2; exit 1; fi
exit 0`,
    );
  }
  for (const tool of ['pnpm', 'tsc', 'biome']) script(join(bin, tool), 'exit 0');
  script(
    join(bin, 'vitest'),
    `proj=""; out=""
for a in "$@"; do case "$a" in --outputFile.json=*) out="\${a#--outputFile.json=}" ;; esac; done
while [ $# -gt 0 ]; do [ "$1" = --project ] && proj="$2"; shift; done
echo "vitest $proj SEARCH_ENGINE=$SEARCH_ENGINE" >>"${root}/calls.log"
skipped=""; ns=0
if [ "$proj" = integration ] && [ -n "\${FAKE_MINIO_DOWN:-}" ]; then
  ns=2; skipped=',{"status":"skipped","ancestorTitles":["ObjectStorage (s3 engine)"],"title":"a"},{"status":"skipped","ancestorTitles":["ObjectStorage (s3 engine)"],"title":"b"}'
fi
printf '{"numTotalTests":%s,"numPassedTests":1,"numFailedTests":0,"numPendingTests":%s,"numTodoTests":0,"success":true,"testResults":[{"name":"%s/%s.test.ts","status":"passed","assertionResults":[{"status":"passed","ancestorTitles":["s"],"title":"t"}%s]}]}' $((ns + 1)) $ns "$PWD" "$proj" "$skipped" >"$out"`,
  );
  return root;
}

function makeTest(env: Record<string, string>): { code: number | null; out: string; calls: string[] } {
  const r = fakeCheckout();
  const res = spawnSync('make', ['-s', 'test', `ROOT=${r}`, `INFRA=${join(r, 'infra')}`], {
    cwd: r,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...env },
    timeout: 60_000,
  });
  const calls = readFileSync(join(r, 'calls.log'), 'utf8').trim().split('\n');
  return { code: res.status, out: `${res.stdout}\n${res.stderr}`, calls };
}

/** The run id the starts were given, and that every stop-run call names it. */
function stopsWhatItStarted(calls: string[]): void {
  const starts = calls.filter((c) => / start run=/.test(c));
  expect(starts.map((c) => c.split(' ')[0]).sort()).toEqual(['minio', 'opensearch']);
  const id = starts[0].split('run=')[1];
  expect(id).toMatch(/^make-test-\d+-\d+$/);
  expect(starts[1].split('run=')[1]).toBe(id);
  expect(calls.filter((c) => c.includes(' stop-run ')).sort()).toEqual([`minio stop-run ${id}`, `opensearch stop-run ${id}`]);
  expect(calls.some((c) => / stop( |$)/.test(c))).toBe(false);
}

describe('make test (stand-ins for every tool)', () => {
  it('everything up: every phase runs, and the run stops only what it started (stop-run with its id)', () => {
    const { code, out, calls } = makeTest({});
    expect(code, out).toBe(0);
    expect(calls).toContain('images all');
    expect(calls.filter((c) => c.startsWith('vitest'))).toEqual([
      'vitest unit SEARCH_ENGINE=postgres',
      'vitest charts SEARCH_ENGINE=postgres',
      'vitest integration SEARCH_ENGINE=postgres',
      'vitest faults SEARCH_ENGINE=postgres',
      'vitest containers SEARCH_ENGINE=postgres',
      'vitest e2e SEARCH_ENGINE=postgres',
      'vitest e2e SEARCH_ENGINE=opensearch',
    ]);
    // The images are built before the integration phase starts (never competing with it).
    expect(calls.indexOf('images all')).toBeLessThan(calls.indexOf('vitest integration SEARCH_ENGINE=postgres'));
    expect(out).toMatch(/images +PASS/);
    stopsWhatItStarted(calls);
    expect(out).toContain('7 passed, 0 failed, 0 skipped');
  });

  it('E2E_RUNTIME=processes: no image is built and no container project runs', () => {
    const { code, out, calls } = makeTest({ E2E_RUNTIME: 'processes' });
    expect(code, out).toBe(0);
    expect(calls.filter((c) => c.startsWith('images'))).toEqual([]);
    expect(calls).not.toContain('vitest containers SEARCH_ENGINE=postgres');
    expect(out).toContain('6 passed, 0 failed, 0 skipped');
  });

  it('a failed image build fails the run, naming it (and what it started is still stopped)', () => {
    const { code, out, calls } = makeTest({ FAKE_IMAGES_FAIL: '1' });
    expect(code, out).toBe(2);
    expect(out).toMatch(/images +FAIL/);
    expect(out).toContain('error: make images failed');
    expect(out).toContain('image rdm-debian:bookworm: debootstrap failed (fake)');
    expect(out).toContain('make test: FAILED');
    stopsWhatItStarted(calls);
  });

  it('an unknown E2E_RUNTIME is refused before anything runs', () => {
    const r = fakeCheckout();
    const res = spawnSync('make', ['-s', 'test', `ROOT=${r}`, `INFRA=${join(r, 'infra')}`, 'E2E_RUNTIME=vm'], {
      cwd: r,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' },
      timeout: 60_000,
    });
    expect(res.status).toBe(2);
    expect(res.stderr).toContain('E2E_RUNTIME=vm: expected containers or processes');
  });

  it('outside CI, MinIO and OpenSearch down: their suites and the e2e run on OpenSearch are counted and named as skipped', () => {
    const { code, out, calls } = makeTest({ FAKE_MINIO_DOWN: '1', FAKE_OPENSEARCH_DOWN: '1' });
    expect(code, out).toBe(0);
    expect(out).toContain('!!! MinIO did not start: the S3 suites of files SKIPPED');
    expect(out).toContain('!!! OpenSearch did not start');
    expect(calls).not.toContain('vitest e2e SEARCH_ENGINE=opensearch');
    expect(out).toMatch(/minio +SKIPPED \(did not start\)/);
    expect(out).toMatch(/e2e-opensearch +SKIPPED \(OpenSearch did not start\)/);
    expect(out).toContain('integration: integration.test.ts > ObjectStorage (s3 engine) — 2 test(s)');
    expect(out).toContain('  e2e on OpenSearch: not run: OpenSearch did not start — 1 test(s) skipped (the e2e project');
    expect(out).toContain('  MinIO: did not start (.data/minio-start.log): the S3 suites of files skipped');
    expect(out).toContain('6 passed, 0 failed, 3 skipped');
    stopsWhatItStarted(calls);
  });

  it('under CI a server that does not start fails the run (and what it started is still stopped)', () => {
    const { code, out, calls } = makeTest({ CI: 'true', FAKE_OPENSEARCH_DOWN: '1' });
    expect(code, out).toBe(2); // make's status when a recipe fails (the recipe exits 1)
    expect(out).toContain('!!! OpenSearch did not start: under CI this fails the run');
    expect(out).toMatch(/opensearch +FAIL \(did not start; CI\)/);
    expect(out).toMatch(/e2e-opensearch +FAIL \(OpenSearch did not start\)/);
    expect(out).toContain('make test: FAILED');
    stopsWhatItStarted(calls);
  });

  it('CI=false is not CI', () => {
    const { code, out } = makeTest({ CI: 'false', FAKE_MINIO_DOWN: '1' });
    expect(code, out).toBe(0);
    expect(out).toMatch(/minio +SKIPPED/);
  });
});
