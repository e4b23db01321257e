// Prints the plain closing line `N passed, N failed, N skipped` over every vitest JSON report in
// the given folder (one per project), so CI can read the totals of the whole `make test`; above
// it, each failed test with the first line of its failure, so the tail of a CI log names them,
// and every skipped suite by name with its number of tests, so nothing that did not run goes
// unnoticed (an S3 or OpenSearch suite whose server is down is skipped outside CI, not dropped).
//
// Besides `<project>.json` reports, the folder may hold `<name>.skipped.json` markers written by
// `make test` for what it did not run at all: `{"what": "...", "reason": "...", "like": "e2e"}`.
// A marker with `like` counts the tests of that project's report as skipped (e2e-opensearch runs
// the e2e project again); every marker is named under "not run".
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? '.data/test-results';
let passed = 0;
let failed = 0;
let skipped = 0;
let files = 0;
const failures = [];
/** `project: file > outermost describe` → skipped tests there. */
const skippedSuites = new Map();
/** Tests per project report, for markers that stand for a project run again. */
const totals = new Map();
const names = readdirSync(dir).sort();
for (const name of names.filter((f) => f.endsWith('.json') && !f.endsWith('.skipped.json'))) {
  const project = name.replace(/\.json$/, '');
  const r = JSON.parse(readFileSync(join(dir, name), 'utf8'));
  files += 1;
  totals.set(project, r.numTotalTests ?? 0);
  passed += r.numPassedTests ?? 0;
  failed += r.numFailedTests ?? 0;
  // A file that failed to load has no failed test but must still count as a failure.
  if (r.success === false && !r.numFailedTests) failed += Math.max(1, r.numFailedTestSuites ?? 0);
  skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  for (const file of r.testResults ?? []) {
    const where = file.name?.replace(`${process.cwd()}/`, '') ?? '?';
    const bad = (file.assertionResults ?? []).filter((a) => a.status === 'failed');
    for (const a of bad) {
      const why = (a.failureMessages?.[0] ?? '').split('\n').slice(0, 4).join(' ').replace(/\s+/g, ' ').slice(0, 300);
      failures.push(`  ${project}: ${where} > ${a.fullName}\n      ${why}`);
    }
    if (bad.length === 0 && file.status === 'failed') {
      failures.push(`  ${project}: ${where} (did not load: ${(file.message ?? '').split('\n')[0].slice(0, 300)})`);
    }
    for (const a of file.assertionResults ?? []) {
      if (!['skipped', 'pending', 'todo', 'disabled'].includes(a.status)) continue;
      const key = `${project}: ${where}${a.ancestorTitles?.length ? ` > ${a.ancestorTitles[0]}` : ''}`;
      skippedSuites.set(key, (skippedSuites.get(key) ?? 0) + 1);
    }
  }
}
const notRun = [];
for (const name of names.filter((f) => f.endsWith('.skipped.json'))) {
  const m = JSON.parse(readFileSync(join(dir, name), 'utf8'));
  let line = `  ${m.what ?? name}: ${m.reason ?? 'not run'}`;
  if (m.like) {
    // The same tests as the `like` project's run; at least one if that report is missing.
    const n = Math.max(1, totals.get(m.like) ?? 0);
    skipped += n;
    line += ` — ${n} test(s) skipped (the ${m.like} project's tests)`;
  }
  notRun.push(line);
}
if (files === 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
if (failures.length > 0) console.log(`failed tests:\n${failures.join('\n')}`);
if (skippedSuites.size > 0) {
  console.log(`skipped suites:\n${[...skippedSuites].map(([k, n]) => `  ${k} — ${n} test(s)`).join('\n')}`);
}
if (notRun.length > 0) console.log(`NOT RUN:\n${notRun.join('\n')}`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);
