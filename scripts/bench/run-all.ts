/**
 * Runs every `scripts/bench/*.bench.ts` in name order, each as its own process
 * (`tsx <file>`, cwd = repo root), and prints a summary. Used by `make bench`.
 *
 * A bench is a standalone script: it finds (or starts) what it measures, prints its own
 * results and exits non-zero when it fails. `BENCH_FILTER=<substring>` runs only matching files.
 * Exit code: 1 when any bench failed or none was found.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = resolve(benchDir, '..', '..');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const filter = process.env.BENCH_FILTER ?? '';

const files = readdirSync(benchDir)
  .filter((f) => f.endsWith('.bench.ts') && f.includes(filter))
  .sort();

if (files.length === 0) {
  console.error(`no scripts/bench/*.bench.ts${filter ? ` matching '${filter}'` : ''} found`);
  process.exit(1);
}

const results: { file: string; ok: boolean; secs: number }[] = [];
for (const file of files) {
  console.log(`\n=== bench ${file} ===`);
  const started = Date.now();
  const code = await new Promise<number>((res) => {
    const child = spawn(tsx, [join(benchDir, file)], { cwd: root, stdio: 'inherit' });
    child.on('error', () => res(1));
    child.on('exit', (c, s) => res(c ?? (s ? 1 : 0)));
  });
  results.push({ file, ok: code === 0, secs: (Date.now() - started) / 1000 });
}

console.log('\n=== bench summary ===');
for (const r of results) console.log(`  ${r.ok ? 'ok  ' : 'FAIL'}  ${r.file}  (${r.secs.toFixed(1)} s)`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
