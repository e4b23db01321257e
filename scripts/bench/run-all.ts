/**
 * Runs every `scripts/bench/*.bench.ts` in name order, each as its own process
 * (`tsx <file>`, cwd = repo root), and prints a summary. Used by `make bench`.
 *
 * A bench is a standalone script: it finds (or starts) what it measures, prints its own
 * results, ends with a `=== <name> bench summary ===` block, and exits non-zero when it fails.
 * Here each bench's output is passed through live; its summary block (the lines from that
 * header to the end) is printed again, all together, at the end, with the 1-minute load average
 * at its start and end (the machine may be shared); JSON lines are left out of the reprint.
 * Ctrl-C stops the running bench (which stops what it started) and skips the rest.
 *
 * Bounded time: a bench still running after BENCH_TIMEOUT_SECONDS (900; a bench that needs longer
 * says so with `@bench-timeout-seconds <n>` in its header, which BENCH_TIMEOUT_SECONDS overrides)
 * gets SIGTERM (it stops the stack it started), SIGKILL for its process group 30 s later, and
 * counts as failed.
 * `BENCH_FILTER=<substring>` runs only matching files.
 * Exit code: 1 when any bench failed or none was found.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = resolve(benchDir, '..', '..');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const filter = process.env.BENCH_FILTER ?? '';
/** The time limit of one bench: BENCH_TIMEOUT_SECONDS, else its header's `@bench-timeout-seconds`, else 900 s. */
function timeoutMsOf(file: string): number {
  const declared = /@bench-timeout-seconds (\d+)/.exec(readFileSync(join(benchDir, file), 'utf8').slice(0, 4000))?.[1];
  return Math.max(30, Number(process.env.BENCH_TIMEOUT_SECONDS ?? declared ?? 900) || 900) * 1000;
}
const load = () => loadavg()[0].toFixed(2);

const files = readdirSync(benchDir)
  .filter((f) => f.endsWith('.bench.ts') && f.includes(filter))
  .sort();

if (files.length === 0) {
  console.error(`no scripts/bench/*.bench.ts${filter ? ` matching '${filter}'` : ''} found`);
  process.exit(1);
}

/** Signal a child's process group (it was started detached), falling back to the child. */
function signal(pid: number | undefined, sig: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, sig);
  } catch {
    try {
      process.kill(pid, sig);
    } catch {
      /* gone */
    }
  }
}

let interrupted = false;
const results: { file: string; ok: boolean; secs: number; note: string; summary: string[]; loads: string }[] = [];
for (const file of files) {
  console.log(`\n=== bench ${file} (load ${load()}) ===`);
  const started = Date.now();
  const loadBefore = load();
  const summary: string[] = [];
  let inSummary = false;
  let timedOut = false;
  const timeoutMs = timeoutMsOf(file);
  const code = await new Promise<number>((res) => {
    const child = spawn(tsx, [join(benchDir, file)], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    createInterface({ input: child.stdout }).on('line', (line) => {
      process.stdout.write(`${line}\n`);
      if (/^=== .* summary ===$/.test(line.trim())) inSummary = true;
      else if (inSummary && !line.trimStart().startsWith('{')) summary.push(line);
    });
    const term = setTimeout(() => {
      timedOut = true;
      console.error(`run-all: ${file} still running after ${timeoutMs / 1000} s; stopping it`);
      signal(child.pid, 'SIGTERM');
      setTimeout(() => signal(child.pid, 'SIGKILL'), 30_000).unref();
    }, timeoutMs);
    const stopAll = () => {
      interrupted = true;
      signal(child.pid, 'SIGTERM');
    };
    process.once('SIGINT', stopAll);
    child.on('error', () => res(1));
    child.on('exit', (c, s) => {
      clearTimeout(term);
      process.removeListener('SIGINT', stopAll);
      res(c ?? (s ? 1 : 0));
    });
  });
  results.push({
    file,
    ok: code === 0 && !timedOut,
    secs: (Date.now() - started) / 1000,
    note: timedOut ? ' TIMEOUT' : '',
    summary,
    loads: `${loadBefore} → ${load()}`,
  });
  if (interrupted) break;
}

console.log('\n=== bench summary ===');
for (const r of results) {
  console.log(`  ${r.ok ? 'ok  ' : 'FAIL'}  ${r.file}  (${r.secs.toFixed(1)} s, load ${r.loads})${r.note}`);
  for (const line of r.summary) console.log(`        ${line.trim()}`);
}
process.exit(results.every((r) => r.ok) ? 0 : 1);
