/**
 * Benchmark: what one logged error with a stack costs a production process (issue 28), both ways
 * in one run, on the real build (`scripts/build.ts --if-stale` first):
 *
 * (a) `node --enable-source-maps` (how the image ran until now): node maps the stack itself.
 * (0) plain `node`, the stack left unmapped: the floor (the error and its stack string alone).
 * (b) plain `node` + the platform's lazy mapper (services/_platform/src/stack-map.ts, what the
 *     logger's `err` serializer calls).
 *
 * Each way is a fresh child (`--expose-gc`) that imports records' shared bundle chunk (platform,
 * knex, ajv, nats, pino…: the biggest map), measures RSS after a full GC, then makes an error
 * thrown inside that chunk (`loadConfig` refusing a value), formats its stack (b: mapped), GCs
 * and measures again; BENCH_ROUNDS (3) rounds alternate the ways. Prints the RSS added (MB,
 * decimal) and the first frame, so a reader sees both name the same TypeScript line. Asserts
 * nothing about size; exit 1 when a child fails or a way does not name a `.ts` position.
 * Ends with a `=== stack-maps bench summary ===` block.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../up.js';
import { load } from './lib/harness.js';

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
execFileSync(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'scripts', 'build.ts'), '--if-stale'], {
  cwd: REPO_ROOT,
  stdio: 'inherit',
});

const chunks = join(REPO_ROOT, 'dist', 'records', 'chunks');
const shared = readdirSync(chunks)
  .filter((f) => f.endsWith('.js') && readFileSync(join(chunks, f), 'utf8').includes('  loadConfig,\n'))
  .map((f) => join(chunks, f))[0];
if (!shared) throw new Error('no records chunk exports loadConfig: has the build changed?');
const mapKb = Math.round(readFileSync(`${shared}.map`).length / 1000);

// The lazy mapper as plain JS (the child must not load tsx: it turns node's own source maps on).
const dir = mkdtempSync(join(tmpdir(), 'bench-stack-maps-'));
// esbuild as scripts/build.ts resolves it (shipped with tsx).
const esbuild = createRequire(createRequire(join(REPO_ROOT, 'package.json')).resolve('tsx'))('esbuild') as {
  build(o: Record<string, unknown>): Promise<unknown>;
};
await esbuild.build({
  entryPoints: [join(REPO_ROOT, 'services', '_platform', 'src', 'stack-map.ts')],
  outfile: join(dir, 'stack-map.mjs'),
  bundle: true,
  format: 'esm',
  platform: 'node',
  logLevel: 'silent',
});
writeFileSync(
  join(dir, 'child.mjs'),
  `const [chunk, way] = process.argv.slice(2);
const { mapStack } = await import('./stack-map.mjs');
const mod = await import(chunk);
const rss = () => { globalThis.gc(); globalThis.gc(); return process.memoryUsage().rss; };
const before = rss();
let stack = '';
try { mod.loadConfig({ X: { type: 'integer' } }, { X: 'not a number' }); } catch (e) { stack = way === 'lazy' ? mapStack(e.stack) : e.stack; }
const after = rss();
const frame = stack.split('\\n').find((l) => l.includes(' at ')) ?? '';
process.stdout.write(JSON.stringify({ addedMb: (after - before) / 1e6, frame: frame.trim() }));
`,
);

interface Result {
  addedMb: number;
  frame: string;
}
type Way = 'raw' | 'node' | 'lazy';
const run = (way: Way): Result => {
  const flags = way === 'node' ? ['--enable-source-maps'] : [];
  const out = execFileSync(process.execPath, ['--expose-gc', ...flags, join(dir, 'child.mjs'), shared, way], { encoding: 'utf8' });
  return JSON.parse(out) as Result;
};

const loadStart = load();
const results: Record<Way, Result[]> = { raw: [], node: [], lazy: [] };
try {
  for (let r = 0; r < rounds; r++) {
    results.raw.push(run('raw'));
    results.node.push(run('node'));
    results.lazy.push(run('lazy'));
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const stats = (xs: Result[]) => {
  const v = xs.map((x) => x.addedMb).sort((a, b) => a - b);
  return `min ${v[0].toFixed(1)} / median ${v[Math.floor(v.length / 2)].toFixed(1)} / max ${v[v.length - 1].toFixed(1)} MB`;
};
let failed = false;
console.log('\n=== stack-maps bench summary ===');
console.log(`load ${loadStart} → ${load()}; ${rounds} rounds; map of the shared chunk: ${mapKb} kB`);
const LABEL: Record<Way, string> = {
  raw: 'plain node, stack unmapped',
  node: 'node --enable-source-maps',
  lazy: 'lazy mapper (stack-map.ts)',
};
for (const way of ['raw', 'node', 'lazy'] as const) {
  const label = LABEL[way];
  console.log(`${label.padEnd(28)} RSS added by one logged stack: ${stats(results[way])}`);
  console.log(`${''.padEnd(28)} first frame: ${results[way][0].frame}`);
  if (way !== 'raw' && !/\.ts:\d+:\d+\)?$/.test(results[way][0].frame)) failed = true;
}
if (failed) {
  console.log('FAILED: a way did not name a TypeScript position');
  process.exit(1);
}
