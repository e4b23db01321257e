// Prints the plain closing line `N passed, N failed, N skipped` over every vitest JSON report in
// the given folder (one per project), so CI can read the totals of the whole `make test`; above
// it, each failed test with the first line of its failure, so the tail of a CI log names them.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? '.data/test-results';
let passed = 0;
let failed = 0;
let skipped = 0;
let files = 0;
const failures = [];
for (const name of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
  const r = JSON.parse(readFileSync(join(dir, name), 'utf8'));
  files += 1;
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
      failures.push(`  ${name.replace('.json', '')}: ${where} > ${a.fullName}\n      ${why}`);
    }
    if (bad.length === 0 && file.status === 'failed') {
      failures.push(`  ${name.replace('.json', '')}: ${where} (did not load: ${(file.message ?? '').split('\n')[0].slice(0, 300)})`);
    }
  }
}
if (files === 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
if (failures.length > 0) console.log(`failed tests:\n${failures.join('\n')}`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);
