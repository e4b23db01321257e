/**
 * Production build: every service bundled with esbuild into `dist/<svc>/` as plain ESM
 * JavaScript with source maps, started with `node dist/<svc>/main.js` (logged stacks are mapped to TypeScript lazily by the
 * platform's stack-map.ts, never with --enable-source-maps: see there).
 *
 * When to use: `make build` (and `make up`, which rebuilds when a source is newer than dist),
 * and the Dockerfile's build stage. `pnpm exec tsx scripts/build.ts [--only=users,records]
 * [--out=dist] [--if-stale]`.
 *
 * Layout: `dist/<svc>/` mirrors `services/<svc>/src/`: `main.js`, `cli.js` (when present),
 * `db/migrations/*.js` (one entry per migration, loaded by `migrate()` with dynamic import),
 * every `.ts` file the code names with `new URL('./x.ts', import.meta.url)` (records' search
 * routes), and the non-TypeScript assets of `src/` (JSON schemas, vocabulary fixtures). Shared
 * code (@rdm/platform, third-party packages) goes into `dist/<svc>/chunks/`, so a migration and
 * `main.js` share one copy of each module. Everything is bundled but the native packages of
 * `NATIVE` (sharp), copied with what they load into `dist/<svc>/node_modules/`. Event schemas are found by `@rdm/contracts` walking up to `proto/events` (the image
 * copies it to `/app/proto/events`; `RDM_EVENTS_DIR` overrides); RPC request schemas are bundled
 * (generated into proto/gen/rpc-schemas.ts).
 *
 * `import.meta.url` in workspace sources is rewritten to the URL the module would have in that
 * mirror (`dist/<svc>/<path>.js`, platform modules under `dist/<svc>/_platform/`, the contracts
 * package `@rdm/contracts` (proto/) under `dist/<svc>/_contracts/`), so relative
 * lookups (`new URL('./db/migrations', import.meta.url)`, `../schema/`) keep working after
 * bundling. `createRequire(import.meta.url)('x')` becomes a bundled lazy `require('x')`.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Every deployable service (the gateway included). */
export const BUILD_SERVICES = [
  'gateway',
  'users',
  'vocabularies',
  'records',
  'files',
  'requests',
  'communities',
  'web',
  'webhooks',
] as const;

// Why: esbuild already ships with tsx (a root devDependency); resolving it through tsx avoids a
// second pinned copy in the lockfile.
// The few esbuild types used here (its .d.ts is not resolvable from the repository root).
interface OnLoadArgs {
  path: string;
}
interface Plugin {
  name: string;
  setup(build: { onLoad(o: { filter: RegExp }, cb: (a: OnLoadArgs) => { contents: string; loader: 'ts' } | undefined): void }): void;
}
interface Esbuild {
  build(
    options: Record<string, unknown> & { plugins: Plugin[]; metafile: true },
  ): Promise<{ metafile: { outputs: Record<string, unknown> } }>;
}
const esbuild = createRequire(createRequire(join(ROOT, 'package.json')).resolve('tsx'))('esbuild') as Esbuild;

/** Optional drivers of knex/pg/minio that are never loaded with our configuration. */
const NEVER_LOADED = [
  'pg-native',
  'mariadb',
  'mariadb/callback',
  'mysql',
  'mysql2',
  'sqlite3',
  'better-sqlite3',
  'oracledb',
  'tedious',
  'pg-query-stream',
  '@opentelemetry/exporter-jaeger',
  '@opentelemetry/winston-transport',
];

/**
 * Native packages never bundled: left external and copied, with the packages they load (their
 * dependencies and the installed optional ones: the platform's prebuilt binaries), into
 * `dist/<svc>/node_modules/`, for the services that depend on them. sharp (files' IIIF image
 * server) loads `@img/sharp-<platform>` and its libvips at run time.
 */
const NATIVE: Record<string, string[]> = { files: ['sharp'], records: ['citeproc'] };

/** Copy `name` (resolved from `fromDir`) and what it loads into `<outdir>/node_modules/`. */
function copyNativePackage(name: string, fromDir: string, outdir: string, seen = new Set<string>()): void {
  if (seen.has(name)) return;
  // Why not require.resolve(`${name}/package.json`): `exports` may hide it; node's lookup of the folder instead.
  let dir: string | undefined;
  for (let d = fromDir; !dir; d = dirname(d)) {
    if (existsSync(join(d, 'node_modules', name, 'package.json'))) dir = realpathSync(join(d, 'node_modules', name));
    else if (dirname(d) === d) return; // An optional dependency of another platform: not installed here.
  }
  seen.add(name);
  const pkgJson = join(dir, 'package.json');
  cpSync(dir, join(outdir, 'node_modules', name), { recursive: true, dereference: true });
  const pkg = JSON.parse(readFileSync(pkgJson, 'utf8')) as Record<string, Record<string, string> | undefined>;
  for (const dep of [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})]) {
    copyNativePackage(dep, dir, outdir, seen);
  }
}

const ROOT_PLACEHOLDER = '__RDM_DIST_ROOT__';
// Every output file (entry or chunk) starts with this line; ROOT_PLACEHOLDER is then replaced
// by the file's relative path to dist/<svc>/ (line 1 only, so source maps stay exact).
const BANNER = [
  "import { createRequire as __rdmCreateRequire } from 'node:module';",
  "import { fileURLToPath as __rdmFileURLToPath } from 'node:url';",
  'const require = __rdmCreateRequire(import.meta.url);',
  'const __filename = __rdmFileURLToPath(import.meta.url);',
  "const __dirname = __rdmFileURLToPath(new URL('.', import.meta.url));",
  `const __rdmRoot = new URL('${ROOT_PLACEHOLDER}', import.meta.url);`,
].join(' ');

/** Files under `dir` (recursively), relative to it. */
function walk(dir: string, base = dir): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    const full = join(dir, n);
    return statSync(full).isDirectory() ? walk(full, base) : [relative(base, full)];
  });
}

const isTest = (f: string) => /\.test\.[mc]?ts$/.test(f) || f.split(sep).includes('testing');

/** Entry points of one service: main, cli, migrations and `new URL('./x.ts', import.meta.url)` targets. */
export function entryPoints(svc: string, root = ROOT): string[] {
  const src = join(root, 'services', svc, 'src');
  const files = walk(src).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !isTest(f));
  const entries = new Set<string>();
  for (const f of files) {
    if (f === 'main.ts' || f === 'cli.ts' || f.startsWith(join('db', 'migrations') + sep)) entries.add(f);
    const text = readFileSync(join(src, f), 'utf8');
    for (const m of text.matchAll(/new URL\(\s*(['"])(\.{1,2}\/[^'"]+\.ts)\1\s*,\s*import\.meta\.url\s*\)/g)) {
      const target = relative(src, resolve(src, dirname(f), m[2] as string));
      if (existsSync(join(src, target))) entries.add(target);
    }
  }
  return [...entries].sort().map((f) => join(src, f));
}

/** Where a workspace source file sits in the mirror, relative to dist/<svc>/ (`.ts` → `.js`). */
function mirrorPath(file: string, svc: string, root: string): string | undefined {
  const svcSrc = join(root, 'services', svc, 'src');
  const platformSrc = join(root, 'services', '_platform', 'src');
  const contracts = join(root, 'proto');
  const rel = file.startsWith(svcSrc + sep)
    ? relative(svcSrc, file)
    : file.startsWith(platformSrc + sep)
      ? join('_platform', relative(platformSrc, file))
      : file.startsWith(contracts + sep) && !file.includes(`${sep}node_modules${sep}`)
        ? join('_contracts', relative(contracts, file))
        : undefined;
  return rel
    ?.replace(/\.[mc]?ts$/, '.js')
    .split(sep)
    .join('/');
}

/** esbuild plugin: workspace sources see their mirrored `import.meta.url` (see header). */
function mirrorUrls(svc: string, root: string): Plugin {
  return {
    name: 'rdm-mirror-urls',
    setup(build) {
      build.onLoad({ filter: /\.[mc]?ts$/ }, (args) => {
        const mirror = mirrorPath(args.path, svc, root);
        if (!mirror) return undefined;
        let text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return { contents: text, loader: 'ts' };
        text = text
          .replace(/new URL\(\s*(['"])(\.{1,2}\/[^'"]+)\.ts\1(\s*,\s*import\.meta\.url\s*\))/g, 'new URL($1$2.js$1$3')
          .replace(/createRequire\(\s*import\.meta\.url\s*\)\(/g, 'require(')
          .replaceAll('import.meta.url', `new URL(${JSON.stringify(mirror)}, __rdmRoot).href`);
        return { contents: text, loader: 'ts' };
      });
    },
  };
}

/** Replace the banner placeholder in every emitted .js file by its path to dist/<svc>/. */
function fixRoots(outdir: string): void {
  for (const f of walk(outdir).filter((p) => p.endsWith('.js'))) {
    const full = join(outdir, f);
    const text = readFileSync(full, 'utf8');
    const nl = text.indexOf('\n');
    const up = f.split(sep).length - 1;
    const rel = up === 0 ? './' : '../'.repeat(up);
    writeFileSync(full, text.slice(0, nl).replace(ROOT_PLACEHOLDER, rel) + text.slice(nl));
  }
}

/** Build one service into `<out>/<svc>/`; returns the number of output files. */
export async function buildService(svc: string, out: string, root = ROOT): Promise<number> {
  const src = join(root, 'services', svc, 'src');
  const outdir = join(out, svc);
  rmSync(outdir, { recursive: true, force: true });
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: entryPoints(svc, root),
    outbase: src,
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    sourcesContent: false,
    chunkNames: 'chunks/[name]-[hash]',
    external: [...NEVER_LOADED, ...(NATIVE[svc] ?? [])],
    banner: { js: BANNER },
    define: { 'process.env.NODE_ENV': 'process.env.NODE_ENV' },
    plugins: [mirrorUrls(svc, root)],
    logLevel: 'warning',
    metafile: true,
  });
  fixRoots(outdir);
  // Non-TypeScript assets of src/ (schemas, fixtures), at their mirrored place.
  for (const f of walk(src).filter((p) => !/\.[mc]?tsx?$/.test(p))) {
    mkdirSync(dirname(join(outdir, f)), { recursive: true });
    cpSync(join(src, f), join(outdir, f));
  }
  writeFileSync(join(outdir, 'package.json'), `${JSON.stringify({ type: 'module' })}\n`);
  for (const name of NATIVE[svc] ?? []) copyNativePackage(name, join(root, 'services', svc), outdir);
  return Object.keys(result.metafile.outputs).length;
}

/** Newest mtime (ms) of the sources a service's build depends on. */
export function newestSource(svc: string, root = ROOT): number {
  const dirs = [
    join(root, 'services', svc, 'src'),
    join(root, 'services', '_platform', 'src'),
    join(root, 'proto', 'lib'),
    join(root, 'proto', 'gen'),
  ];
  const files = [
    ...dirs.flatMap((d) => walk(d).map((f) => join(d, f))),
    join(root, 'proto', 'index.ts'),
    join(root, 'pnpm-lock.yaml'),
    fileURLToPath(import.meta.url),
  ];
  return Math.max(...files.filter(existsSync).map((f) => statSync(f).mtimeMs));
}

/** True when `<out>/<svc>/main.js` is missing or older than a source. */
export function isStale(svc: string, out = join(ROOT, 'dist'), root = ROOT): boolean {
  const main = join(out, svc, 'main.js');
  return !existsSync(main) || statSync(main).mtimeMs < newestSource(svc, root);
}

/** CLI: build the services named by `--only` (default all), into `--out` (default dist). */
async function main(argv: string[]): Promise<void> {
  const arg = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const only = arg('only')?.split(',').filter(Boolean);
  const out = resolve(ROOT, arg('out') ?? 'dist');
  const wanted = (only ?? [...BUILD_SERVICES]).filter((s) => existsSync(join(ROOT, 'services', s, 'src', 'main.ts')));
  for (const svc of wanted) {
    if (argv.includes('--if-stale') && !isStale(svc, out)) continue;
    const started = Date.now();
    const n = await buildService(svc, out);
    process.stderr.write(`build: ${svc}: ${n} files in ${relative(ROOT, join(out, svc))}/ (${Date.now() - started} ms)\n`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((err: Error) => {
    process.stderr.write(`build: ${err.message}\n`);
    process.exit(1);
  });
}
