/**
 * Control of the e2e stack from inside a test: stop, start or restart one service (e.g. "a
 * stopped service answers 503 through the gateway"), read its URL.
 *
 * The global setup (global-setup.ts) starts the stack and writes every child's pid and start
 * command to `.data/e2e-stack.json`; these helpers act on that file, so they work from any
 * vitest worker without an HTTP control plane. A service started here is detached and logs to
 * the same file as before (`.data/e2e-logs/<svc>.log`); the teardown stops it by the pid recorded
 * here. Use only in specs that need it, and restore what you stop (`afterAll(() =>
 * startService(name))`); never call these when `canControlServices()` is false (the stack was
 * given through E2E_BASE_URL and is not ours).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, type ServiceSpec, isAlive, spawnService, terminate, waitHttpOk } from '../../scripts/up.js';

/** Where the global setup records the stack it started. */
export const STACK_STATE_FILE = process.env.E2E_STACK_STATE ?? join(REPO_ROOT, '.data', 'e2e-stack.json');

/** One managed child in the state file. */
export interface ManagedService {
  spec: ServiceSpec;
  pid: number | null;
  /** E2E_RUNTIME=containers: the service's container id (stopped/started with docker). */
  container?: string;
}

/** Contents of `.data/e2e-stack.json`. */
export interface StackState {
  version: 1;
  /** pid of the vitest process whose global setup owns this stack. */
  owner: number;
  baseUrl: string;
  databaseUrl: string;
  natsUrl: string;
  /** pid of the private nats-server started for this run, if any. */
  natsPid: number | null;
  /** How the stack runs (E2E_RUNTIME); absent = processes. */
  runtime?: 'processes' | 'containers';
  services: Record<string, ManagedService>;
}

/** Read the state file; throws when the stack is not managed by the e2e global setup. */
export function readStackState(file = STACK_STATE_FILE): StackState {
  if (!existsSync(file)) {
    throw new Error(`${file} not found: the e2e stack is not managed by this run (E2E_BASE_URL given?)`);
  }
  return JSON.parse(readFileSync(file, 'utf8')) as StackState;
}

/** Write the state file atomically. */
export function writeStackState(state: StackState, file = STACK_STATE_FILE): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(tmp, file);
}

/** True when this run started the stack itself, so services can be stopped and started. */
export function canControlServices(): boolean {
  try {
    const s = readStackState();
    return isAlive(s.owner);
  } catch {
    return false;
  }
}

function managed(state: StackState, name: string): ManagedService {
  const svc = state.services[name];
  if (!svc) throw new Error(`unknown e2e service '${name}' (known: ${Object.keys(state.services).join(', ')})`);
  return svc;
}

/** Direct URL of a service (bypassing the gateway), e.g. `http://127.0.0.1:5903`. */
export function serviceUrl(name: string): string {
  return `http://127.0.0.1:${managed(readStackState(), name).spec.port}`;
}

/** True when the service's process is alive. */
export function isServiceRunning(name: string): boolean {
  const { pid, container } = managed(readStackState(), name);
  if (container) return dockerCli(['inspect', '--format', '{{.State.Running}}', container]) === 'true';
  return pid !== null && isAlive(pid);
}

/** Stop one service: SIGTERM, SIGKILL after `graceMs` (10 s); resolves once it is gone. */
export async function stopService(name: string, graceMs = 10_000): Promise<void> {
  const state = readStackState();
  const svc = managed(state, name);
  if (svc.container) {
    dockerCli(['stop', '--time', String(Math.ceil(graceMs / 1000)), svc.container]);
    return;
  }
  if (svc.pid !== null) await terminate(svc.pid, graceMs);
  svc.pid = null;
  writeStackState(state);
}

/** Start one service again (no-op when running) and wait until its /readyz answers 200. */
export async function startService(name: string, timeoutMs = 60_000): Promise<void> {
  const state = readStackState();
  const svc = managed(state, name);
  if (svc.container) {
    // Its address and published port belong to its holder container (containers.ts): unchanged.
    if (dockerCli(['inspect', '--format', '{{.State.Running}}', svc.container]) !== 'true') dockerCli(['start', svc.container]);
    await waitHttpOk(svc.spec.readyUrl, timeoutMs).catch((err: Error) => {
      throw new Error(`${name} (container ${svc.container?.slice(0, 12)}): ${err.message}`);
    });
    return;
  }
  if (svc.pid !== null && isAlive(svc.pid)) return;
  const child = spawnService(svc.spec, [], childEnv(), false);
  child.unref(); // outlives this worker; the global teardown stops it by pid
  if (!child.pid) throw new Error(`could not start ${name}`);
  svc.pid = child.pid;
  writeStackState(state);
  const pid = child.pid;
  await waitHttpOk(svc.spec.readyUrl, timeoutMs, () => isAlive(pid)).catch((err: Error) => {
    throw new Error(`${name}: ${err.message} (log: ${svc.spec.logFile ?? 'stdout'})`);
  });
}

/** Stop then start one service. */
export async function restartService(name: string): Promise<void> {
  await stopService(name);
  await startService(name);
}

/** Our environment minus vitest's own variables, which do not belong in a service. */
export function childEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (!k.startsWith('VITEST') && k !== 'TEST') out[k] = v;
  return out;
}

/** Run the docker CLI (E2E_RUNTIME=containers), DOCKER_HOST as the global setup set it. */
function dockerCli(args: string[]): string {
  return execFileSync('docker', args, { encoding: 'utf8', timeout: 60_000 }).trim();
}
