/**
 * scripts/test-summary.mjs, the closing summary of `make test`: suites skipped because their
 * infrastructure is missing are named and counted, and a phase `make test` did not run at all
 * (a marker) counts its tests as skipped.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const SCRIPT = join(import.meta.dirname, 'test-summary.mjs');
let dir = '';

afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A vitest JSON report of one file: `[status, describe, title]` per test. */
function report(file: string, tests: [string, string, string][]): object {
  const count = (s: string[]) => tests.filter(([st]) => s.includes(st)).length;
  return {
    numTotalTests: tests.length,
    numPassedTests: count(['passed']),
    numFailedTests: count(['failed']),
    numPendingTests: count(['skipped', 'pending']),
    numTodoTests: count(['todo']),
    success: count(['failed']) === 0,
    testResults: [
      {
        name: join(process.cwd(), file),
        status: count(['failed']) ? 'failed' : 'passed',
        assertionResults: tests.map(([status, suite, title]) => ({
          status,
          ancestorTitles: [suite],
          title,
          fullName: `${suite} ${title}`,
          failureMessages: status === 'failed' ? ['AssertionError: boom'] : [],
        })),
      },
    ],
  };
}

function summary(reports: Record<string, object>): { out: string; code: number | null } {
  dir = mkdtempSync(join(tmpdir(), 'test-summary-'));
  for (const [name, body] of Object.entries(reports)) writeFileSync(join(dir, name), JSON.stringify(body));
  const r = spawnSync(process.execPath, [SCRIPT, dir], { encoding: 'utf8' });
  return { out: r.stdout, code: r.status };
}

describe('make test summary', () => {
  it('names every skipped suite with its number of tests (an S3 suite skipped without MinIO)', () => {
    const { out, code } = summary({
      'integration.json': report('services/files/test/integration/storage.test.ts', [
        ['passed', 'ObjectStorage (local engine)', 'a'],
        ['passed', 'ObjectStorage (local engine)', 'b'],
        ['skipped', 'ObjectStorage (s3 engine)', 'a'],
        ['skipped', 'ObjectStorage (s3 engine)', 'b'],
      ]),
    });
    expect(code).toBe(0);
    expect(out).toContain(
      'skipped suites:\n  integration: services/files/test/integration/storage.test.ts > ObjectStorage (s3 engine) — 2 test(s)\n',
    );
    expect(out.trimEnd().split('\n').pop()).toBe('2 passed, 0 failed, 2 skipped');
  });

  it('counts a phase that did not run (e2e on OpenSearch without OpenSearch) as skipped, by the tests of the project it repeats', () => {
    const { out, code } = summary({
      'e2e.json': report('e2e/specs/a.test.ts', [
        ['passed', 'a', '1'],
        ['passed', 'a', '2'],
        ['passed', 'a', '3'],
      ]),
      'e2e-opensearch.skipped.json': { what: 'e2e on OpenSearch', reason: 'OpenSearch did not start', like: 'e2e' },
      'minio.skipped.json': { what: 'MinIO', reason: 'did not start (.data/minio-start.log)' },
    });
    expect(code).toBe(0);
    expect(out).toContain('NOT RUN:\n');
    expect(out).toContain('  e2e on OpenSearch: OpenSearch did not start — 3 test(s) skipped (the e2e project');
    expect(out).toContain('  MinIO: did not start (.data/minio-start.log)\n');
    expect(out.trimEnd().split('\n').pop()).toBe('3 passed, 0 failed, 3 skipped');
  });

  it('still names failures and fails', () => {
    const { out, code } = summary({
      'unit.json': report('services/x/src/a.test.ts', [
        ['failed', 's', 't'],
        ['passed', 's', 'u'],
      ]),
    });
    expect(code).toBe(1);
    expect(out).toContain('unit: services/x/src/a.test.ts > s t\n      AssertionError: boom');
    expect(out.trimEnd().split('\n').pop()).toBe('1 passed, 1 failed, 0 skipped');
  });
});
