/**
 * Local stack supervisor: migrates every service that exists, then runs each service and the
 * gateway as child processes, and stops them all on Ctrl-C / SIGTERM.
 *
 * Use it through `make up` (which also starts Postgres and NATS) or directly:
 *   pnpm exec tsx scripts/up.ts [--migrate-only] [--no-migrate] [--no-restart] [--only=users,records]
 *
 * - Services, in order: users vocabularies records files requests communities web webhooks, then the gateway.
 *   A service is skipped (with a note) while `services/<svc>/src/main.ts` does not exist yet.
 * - Migrations run one at a time: `tsx src/main.ts migrate` with cwd `services/<svc>`; a failing
 *   migration aborts the start. A service whose package.json has a `fixtures` script (e.g. the
 *   vocabularies loader) gets that script run after all migrations, in the same order.
 * - Runtime (`StackOptions.runtime`): `dist` runs the production build,
 *   `node dist/<svc>/main.js` with NODE_ENV=production (what the image and
 *   the Kubernetes Deployment run; `scripts/build.ts` makes it). `tsx` runs
 *   `node --import tsx src/main.ts` (same as `tsx src/main.ts`, but one process per service, so
 *   the pid we signal is the server itself). The CLI (`make up`) uses `dist` and rebuilds the
 *   services whose sources are newer than their build; `DEV=1` (or `--dev`) uses tsx with
 *   `--watch` (a service restarts when one of its files changes). Library callers (e2e) default
 *   to tsx. Each child runs in its own process group; its output
 *   is prefixed with a coloured `[svc]` tag (or appended to a log file, see `StackOptions.logDir`).
 * - Crash policy of the CLI: a child that exits unexpectedly is restarted with exponential
 *   backoff (1 s, 2 s, 4 s … 30 s max; reset after 60 s of uptime); after 5 crashes in a row,
 *   each within 60 s of its start, it is left down and the others keep running. `--no-restart`
 *   (and the e2e stack) only report the death.
 * - Ctrl-C / SIGTERM: SIGTERM to the gateway and every service, SIGKILL to whatever is still
 *   alive after 10 s. A second Ctrl-C kills at once.
 * - Environment: defaults below < the caller's environment < `StackOptions.env`; PORT is per
 *   service (`<SVC>_PORT` in the environment overrides it, a global PORT is ignored). Every child
 *   also gets `<SVC>_URL=http://127.0.0.1:<port>` for each service and `GATEWAY_URL` (the
 *   caller's values win); PUBLIC_BASE_URL defaults to the gateway's URL.
 *
 * e2e reuses `startStack()` (see e2e/support/global-setup.ts) with other ports and a log dir.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BACKEND_SERVICES, GATEWAY_SERVICE, DEFAULT_PORTS as REGISTRY_PORTS } from '../proto/gen/registry.js';

/** Repository root (this file lives in `<root>/scripts`). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Backend services in migration and start order; the gateway starts after them (proto/services.json). */
export const SERVICES = BACKEND_SERVICES;

/** Name of the edge service that starts last and decides "stack ready". */
export const GATEWAY = GATEWAY_SERVICE.name;

/** Default ports (proto/services.json, the service registry). */
export const DEFAULT_PORTS: Readonly<Record<string, number>> = Object.freeze({ ...REGISTRY_PORTS });

/** Environment defaults for a one-machine stack; the caller's environment wins over them. */
export const DEFAULT_ENV: Readonly<Record<string, string>> = Object.freeze({
  DATABASE_URL: 'postgres://rdm:rdm@127.0.0.1:5432/rdm',
  NATS_URL: 'nats://127.0.0.1:4222',
  PUBLIC_BASE_URL: 'http://127.0.0.1:5000',
  IDENTITY_SECRET: 'dev-identity-secret-change-me',
  // Records' development mail sink (.eml files under .data/mail): asked for explicitly, because
  // records refuses to start with neither SMTP_URL nor MAIL_SINK=true. SMTP_URL wins when set.
  MAIL_SINK: 'true',
});

/** The random identity secret of the stack under `root` (`.data/identity-secret`, made once, mode 600). */
export function stackIdentitySecret(root: string): string {
  const file = join(root, '.data', 'identity-secret');
  if (existsSync(file)) {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept.length >= 32) return kept;
  }
  mkdirSync(dirname(file), { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/** How to start the stack. */
export interface StackOptions {
  /** Repository root; default `RDM_STACK_ROOT` from the environment, else REPO_ROOT. */
  root?: string;
  /** Port per service name; missing ones come from `<SVC>_PORT` or DEFAULT_PORTS. */
  ports?: Partial<Record<string, number>>;
  /** Variables that win over both the defaults and the caller's environment. */
  env?: Record<string, string>;
  /** Base environment (default `process.env`). */
  baseEnv?: NodeJS.ProcessEnv;
  /** Run migrations (and fixtures scripts) first; default true. */
  migrate?: boolean;
  /** Restart crashed children with backoff; default true. */
  restart?: boolean;
  /** Append each child's output to `<logDir>/<svc>.log` instead of prefixing it on our stdout. */
  logDir?: string;
  /** Restrict to these service names (the gateway included only if named). */
  only?: string[];
  /** How long to wait for /readyz of services and gateway; default 120 s. */
  readyTimeoutMs?: number;
  /** Where supervisor messages go; default console.error. */
  say?: (line: string) => void;
  /** Throw (after stopping everything) when a child is not ready in time; default false = warn. */
  strict?: boolean;
  /** `tsx` (sources, default) or `dist` (the production build in `<root>/dist`, see header). */
  runtime?: 'tsx' | 'dist';
  /** With the tsx runtime: restart a service when its sources change (`node --watch`). */
  watch?: boolean;
  /** Extra node options per service, before the script (e.g. `--cpu-prof`, which NODE_OPTIONS refuses). */
  nodeArgs?: (name: string) => string[];
}

/** Everything needed to (re)start one child; serialisable, so e2e can restart a service. */
export interface ServiceSpec {
  name: string;
  cwd: string;
  command: string;
  args: string[];
  /** Variables set on top of the starting process's environment. */
  env: Record<string, string>;
  port: number;
  readyUrl: string;
  logFile?: string;
}

/** A running stack. */
export interface Stack {
  specs: ServiceSpec[];
  /** Gateway URL (`http://127.0.0.1:<port>`), or null when there is no gateway yet. */
  baseUrl: string | null;
  /** Current pid per service (null when down). */
  pids(): Record<string, number | null>;
  /** SIGTERM everything, SIGKILL after 10 s; resolves when all are gone. */
  stop(): Promise<void>;
  /** Names of services that were skipped because they do not exist yet. */
  skipped: string[];
  /** True when every child (gateway included) answered /readyz 200 in time. */
  ready: boolean;
}

const COLORS = [36, 33, 35, 32, 34, 91, 96, 93];
const KILL_AFTER_MS = 10_000;

/** True when `services/<name>/src/main.ts` exists. */
export function serviceExists(name: string, root = REPO_ROOT): boolean {
  return existsSync(join(root, 'services', name, 'src', 'main.ts'));
}

/** `file://` URL of tsx's loader, resolved from the repository root. */
export function tsxLoaderUrl(root = REPO_ROOT): string {
  const req = createRequire(join(root, 'package.json'));
  return pathToFileURL(req.resolve('tsx')).href;
}

/** The environment variable name for a service: `files` → `FILES`. */
function envName(name: string): string {
  return name.toUpperCase().replace(/[^A-Z0-9]/g, '_');
}

/** Resolve ports, env and commands for every service that exists (gateway last). */
export function planStack(opts: StackOptions = {}): { specs: ServiceSpec[]; skipped: string[] } {
  const baseEnv = opts.baseEnv ?? process.env;
  // RDM_STACK_ROOT runs the services of another checkout (used to test this supervisor).
  const root = opts.root ?? baseEnv.RDM_STACK_ROOT ?? REPO_ROOT;
  const all = [...SERVICES, GATEWAY];
  const wanted = opts.only ? all.filter((n) => opts.only?.includes(n)) : all;
  const portOf = (n: string): number => {
    const explicit = opts.ports?.[n];
    if (explicit) return explicit;
    const fromEnv = Number(baseEnv[`${envName(n)}_PORT`]);
    return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : (DEFAULT_PORTS[n] as number);
  };
  const urls: Record<string, string> = {};
  for (const n of all) urls[`${envName(n)}_URL`] = `http://127.0.0.1:${portOf(n)}`;
  // PUBLIC_BASE_URL follows the gateway port unless the caller sets it.
  const shared: Record<string, string> = { ...DEFAULT_ENV, PUBLIC_BASE_URL: `http://127.0.0.1:${portOf(GATEWAY)}`, ...urls };
  for (const [k, v] of Object.entries(baseEnv)) if (v !== undefined && k in shared) shared[k] = v;
  Object.assign(shared, opts.env ?? {});
  // Why: the default secret is public and production builds refuse it (platform config.ts); a
  // stack nobody gave a secret gets its own random one, kept under .data for its restarts.
  if (shared.IDENTITY_SECRET === DEFAULT_ENV.IDENTITY_SECRET) shared.IDENTITY_SECRET = stackIdentitySecret(root);
  const runtime = opts.runtime ?? 'tsx';
  const loader = runtime === 'tsx' ? tsxLoaderUrl(root) : '';
  if (runtime === 'dist') shared.NODE_ENV = baseEnv.NODE_ENV ?? 'production';
  const specs: ServiceSpec[] = [];
  const skipped: string[] = [];
  for (const name of wanted) {
    if (!serviceExists(name, root)) {
      skipped.push(name);
      continue;
    }
    const port = portOf(name);
    const extra = opts.nodeArgs?.(name) ?? [];
    const args =
      runtime === 'dist'
        ? [...extra, join(root, 'dist', name, 'main.js')] // stacks mapped when logged (platform stack-map.ts)
        : ['--enable-source-maps', ...extra, ...(opts.watch ? ['--watch'] : []), '--import', loader, 'src/main.ts'];
    specs.push({
      name,
      cwd: join(root, 'services', name),
      command: process.execPath,
      args,
      env: { ...shared, ...(runtime === 'dist' ? distStorageEnv(name, root, baseEnv) : {}), PORT: String(port) },
      port,
      readyUrl: `http://127.0.0.1:${port}/readyz`,
      logFile: opts.logDir ? join(opts.logDir, `${name}.log`) : undefined,
    });
  }
  return { specs, skipped };
}

/**
 * Storage roots the services default to relative to their source file (`<root>/.data/<svc>`);
 * a bundle lives elsewhere, so the dist runtime passes them explicitly (the caller's win).
 */
function distStorageEnv(name: string, root: string, baseEnv: NodeJS.ProcessEnv): Record<string, string> {
  const key = name === 'files' ? 'FILES_STORAGE_PATH' : name === 'communities' ? 'COMMUNITIES_STORAGE_PATH' : undefined;
  if (!key || baseEnv[key]) return {};
  return { [key]: join(root, '.data', name) };
}

/** Coloured `[name]` tag padded to the longest service name. */
function tag(name: string): string {
  const width = Math.max(...[...SERVICES, GATEWAY].map((n) => n.length)) + 2;
  const text = `[${name}]`.padEnd(width);
  const idx = [...SERVICES, GATEWAY].indexOf(name as never);
  const color = COLORS[(idx < 0 ? name.length : idx) % COLORS.length];
  const useColor = process.env.FORCE_COLOR ? process.env.FORCE_COLOR !== '0' : process.stdout.isTTY && !process.env.NO_COLOR;
  return useColor ? `\x1b[${color}m${text}\x1b[0m` : text;
}

/** Pipe a child's stdout/stderr to ours, each line prefixed by its tag. */
function prefixOutput(child: ChildProcess, name: string): void {
  const t = tag(name);
  if (child.stdout) createInterface({ input: child.stdout }).on('line', (l) => process.stdout.write(`${t} ${l}\n`));
  if (child.stderr) createInterface({ input: child.stderr }).on('line', (l) => process.stderr.write(`${t} ${l}\n`));
}

/**
 * Spawn one child in its own process group. With `spec.logFile` its output is appended to that
 * file (the child then outlives us if need be, e.g. e2e's restarted services); otherwise prefixed.
 */
export function spawnService(
  spec: ServiceSpec,
  extraArgs: string[] = [],
  baseEnv: NodeJS.ProcessEnv = process.env,
  track = true,
): ChildProcess {
  let stdio: ('ignore' | 'pipe' | number)[] = ['ignore', 'pipe', 'pipe'];
  let fd: number | undefined;
  if (spec.logFile) {
    mkdirSync(dirname(spec.logFile), { recursive: true });
    fd = openSync(spec.logFile, 'a');
    stdio = ['ignore', fd, fd];
  }
  const env = { ...baseEnv, ...spec.env };
  const child = spawn(spec.command, [...spec.args, ...extraArgs], { cwd: spec.cwd, env, stdio, detached: true });
  if (fd !== undefined) closeSync(fd);
  else prefixOutput(child, spec.name);
  if (track) {
    tracked.add(child);
    child.once('exit', () => tracked.delete(child));
  }
  return child;
}

/** Children that die with this process (see `killTrackedOnExit`). */
const tracked = new Set<ChildProcess>();
let exitHookInstalled = false;

/** SIGKILL every tracked child's group when this process exits without stopping them first. */
export function killTrackedOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const c of tracked) if (c.pid && isAlive(c.pid)) signalGroup(c.pid, 'SIGKILL');
  });
}

/** Resolve when GET `url` answers 200, reject after `timeoutMs`. `alive()` false aborts early. */
export async function waitHttpOk(url: string, timeoutMs: number, alive: () => boolean = () => true): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (!alive()) throw new Error(`${url}: process exited before it was ready`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer().catch(() => undefined);
      if (res.status === 200) return;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(250);
  }
  throw new Error(`${url} not ready after ${Math.round(timeoutMs / 1000)} s (${last})`);
}

/** Promise-based sleep. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** True when a process with this pid exists (and is not a zombie we could reap). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/** Signal a child's whole process group (falls back to the pid alone). */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
  }
}

/** SIGTERM a process group, SIGKILL it after `graceMs`; resolves once the leader is gone. */
export async function terminate(pid: number, graceMs = KILL_AFTER_MS): Promise<void> {
  if (!isAlive(pid)) return;
  signalGroup(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await sleep(100);
  if (isAlive(pid)) {
    signalGroup(pid, 'SIGKILL');
    while (isAlive(pid)) await sleep(50);
  }
  // The group may hold grandchildren that ignored SIGTERM.
  signalGroup(pid, 'SIGKILL');
}

/** Run `src/main.ts migrate` for each spec in order; throws on the first failure. */
export async function runMigrations(
  specs: ServiceSpec[],
  say: (l: string) => void,
  baseEnv: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  for (const spec of specs) {
    if (spec.name === GATEWAY) continue; // no database
    // Why: under --watch node never exits after the command; a migration must run once.
    const once = { ...spec, args: spec.args.filter((a) => a !== '--watch') };
    await runOnce(once, ['migrate'], `${spec.name}: migrate`, say, baseEnv);
  }
  for (const spec of specs) {
    const script = packageScript(spec.cwd, 'fixtures');
    if (!script) continue;
    await runOnce({ ...spec, command: '/bin/sh', args: ['-c', script] }, [], `${spec.name}: fixtures (${script})`, say, {
      ...baseEnv,
      PATH: `${join(REPO_ROOT, 'node_modules', '.bin')}:${baseEnv.PATH ?? ''}`,
    });
  }
}

/** A script from `<dir>/package.json`, or undefined. */
function packageScript(dir: string, name: string): string | undefined {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    return pkg.scripts?.[name];
  } catch {
    return undefined;
  }
}

const MIGRATE_TIMEOUT_MS = 180_000;

/** Run a one-shot child to completion; throws when it fails or runs too long. */
async function runOnce(
  spec: ServiceSpec,
  extraArgs: string[],
  what: string,
  say: (l: string) => void,
  baseEnv: NodeJS.ProcessEnv,
): Promise<void> {
  const started = Date.now();
  const child = spawnService(spec, extraArgs, baseEnv);
  const timer = setTimeout(() => {
    say(`${what}: still running after ${MIGRATE_TIMEOUT_MS / 1000} s; killing it`);
    if (child.pid) signalGroup(child.pid, 'SIGKILL');
  }, MIGRATE_TIMEOUT_MS);
  const code = await new Promise<number | string>((res) => {
    child.on('error', (e) => res(e.message));
    child.on('exit', (c, s) => res(c ?? s ?? 'unknown'));
  });
  clearTimeout(timer);
  if (code !== 0) {
    const where = spec.logFile ? ` (see ${spec.logFile})` : '';
    throw new Error(`${what} failed: exit ${code}${where}`);
  }
  say(`${what}: ok (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

/** Start (migrate, spawn, supervise) the stack; resolves once everything answered /readyz. */
export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const say = opts.say ?? ((l: string) => console.error(l));
  const baseEnv = opts.baseEnv ?? process.env;
  const restart = opts.restart ?? true;
  const readyTimeoutMs = opts.readyTimeoutMs ?? 120_000;
  const { specs, skipped } = planStack(opts);
  for (const name of skipped) say(`note: ${name}: services/${name}/src/main.ts does not exist yet; skipped`);
  if (opts.logDir) mkdirSync(opts.logDir, { recursive: true });

  if (opts.migrate ?? true) await runMigrations(specs, say, baseEnv);

  const children = new Map<string, ChildProcess | null>();
  let stopping = false;

  const launch = (spec: ServiceSpec, crashes = 0): void => {
    const startedAt = Date.now();
    const child = spawnService(spec, [], baseEnv);
    children.set(spec.name, child);
    child.on('error', (e) => say(`${spec.name}: could not start: ${e.message}`));
    child.on('exit', (code, signal) => {
      if (children.get(spec.name) === child) children.set(spec.name, null);
      if (stopping) return;
      const upMs = Date.now() - startedAt;
      const streak = upMs > 60_000 ? 1 : crashes + 1;
      say(`${spec.name}: exited (${signal ?? `code ${code}`}) after ${(upMs / 1000).toFixed(1)} s`);
      if (!restart) return;
      if (streak >= 5) {
        say(`${spec.name}: crashed ${streak} times in a row; leaving it down (the rest keep running)`);
        return;
      }
      const delay = Math.min(30_000, 1000 * 2 ** (streak - 1));
      say(`${spec.name}: restarting in ${delay / 1000} s`);
      // Not unref'd: a pending restart keeps the supervisor alive even if nothing else runs.
      setTimeout(() => {
        if (!stopping) launch(spec, streak);
      }, delay);
    });
  };

  const stop = async (): Promise<void> => {
    stopping = true;
    const running = [...children.entries()].filter(([, c]) => c?.pid && isAlive(c.pid));
    // Gateway first: it stops taking requests before the services behind it go away.
    const gw = running.find(([n]) => n === GATEWAY);
    if (gw?.[1]?.pid) signalGroup(gw[1].pid, 'SIGTERM');
    await Promise.all(running.map(([, c]) => terminate(c?.pid as number)));
  };

  // Last-resort cleanup if our process exits without stop() (uncaught error, process.exit).
  killTrackedOnExit();

  const backends = specs.filter((s) => s.name !== GATEWAY);
  const gateway = specs.find((s) => s.name === GATEWAY);
  for (const spec of backends) launch(spec);
  const aliveFn = (name: string) => () => restart || children.get(name) != null;
  const problems: string[] = [];
  const results = await Promise.allSettled(backends.map((s) => waitHttpOk(s.readyUrl, readyTimeoutMs, aliveFn(s.name))));
  results.forEach((r, i) => {
    if (r.status === 'rejected') problems.push(`${backends[i]?.name}: ${(r.reason as Error).message}`);
  });
  if (gateway && !(opts.strict && problems.length)) {
    launch(gateway);
    try {
      await waitHttpOk(gateway.readyUrl, readyTimeoutMs, aliveFn(GATEWAY));
    } catch (err) {
      problems.push(`${GATEWAY}: ${(err as Error).message}`);
    }
  }
  if (problems.length && opts.strict) {
    await stop();
    const where = opts.logDir ? ` (logs: ${opts.logDir})` : '';
    throw new Error(`stack not ready${where}:\n  ${problems.join('\n  ')}`);
  }
  for (const p of problems) say(`warning: ${p}`);

  return {
    specs,
    skipped,
    ready: problems.length === 0,
    baseUrl: gateway ? `http://127.0.0.1:${gateway.port}` : null,
    pids: () => Object.fromEntries(specs.map((s) => [s.name, children.get(s.name)?.pid ?? null])),
    stop,
  };
}

/** CLI entry point (`pnpm exec tsx scripts/up.ts`). */
async function main(argv: string[]): Promise<void> {
  const flag = (f: string) => argv.includes(f);
  const only = argv
    .find((a) => a.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',')
    .filter(Boolean);
  const say = (l: string) => process.stderr.write(`${tag('up')} ${l}\n`);
  const dev = flag('--dev') || ['1', 'true', 'yes'].includes(process.env.DEV ?? '');
  const runtime = dev ? 'tsx' : 'dist';
  if (!dev) {
    // Rebuild only the services whose sources are newer than their dist/<svc>/main.js.
    const { BUILD_SERVICES, buildService, isStale } = await import('./build.js');
    for (const svc of BUILD_SERVICES.filter((n) => serviceExists(n) && (!only || only.includes(n)) && isStale(n))) {
      const started = Date.now();
      await buildService(svc, join(REPO_ROOT, 'dist'));
      say(`${svc}: built dist/${svc} (${Date.now() - started} ms)`);
    }
  }
  if (flag('--migrate-only')) {
    const { specs, skipped } = planStack({ only, runtime });
    for (const name of skipped) say(`note: ${name}: services/${name}/src/main.ts does not exist yet; skipped`);
    await runMigrations(specs, say);
    return;
  }
  let stack: Stack | undefined;
  let firstSignalAt = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    // A signal within 1 s of the first is the same Ctrl-C relayed by a wrapper (pnpm, tsx).
    if (firstSignalAt && Date.now() - firstSignalAt < 1000) return;
    const again = firstSignalAt !== 0;
    firstSignalAt = Date.now();
    if (again || !stack) {
      say(again ? `${sig} again: killing everything` : `${sig}: stopping`);
      process.exit(130); // the 'exit' hook SIGKILLs the children
    }
    say(`${sig}: stopping (SIGKILL after ${KILL_AFTER_MS / 1000} s)`);
    void stack.stop().then(() => process.exit(0));
  };
  for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(s, onSignal);
  killTrackedOnExit(); // also covers a Ctrl-C during migrations
  say(
    dev ? 'DEV: running the TypeScript sources through tsx, restarting on change' : 'running the production build (dist/); DEV=1 for tsx',
  );
  stack = await startStack({ only, migrate: !flag('--no-migrate'), restart: !flag('--no-restart'), say, runtime, watch: dev });
  if (stack.baseUrl && stack.ready) {
    console.log(`stack ready: ${stack.baseUrl}`);
  } else if (stack.baseUrl) {
    say(`gateway started but not ready yet (see warnings above); still running: ${stack.baseUrl}`);
  } else {
    say(
      `no gateway yet (services/gateway/src/main.ts missing); services up: ${stack.specs.map((s) => `${s.name}:${s.port}`).join(' ') || 'none'}`,
    );
    if (stack.specs.length === 0) {
      say('nothing to run');
      process.exit(0);
    }
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((err: Error) => {
    process.stderr.write(`up: ${err.message}\n`);
    process.exit(1);
  });
}
