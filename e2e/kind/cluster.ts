/**
 * The kind cluster of `make kind-up` as the kind trials see it: `kubectl` with the project's
 * kubeconfig (scripts/kind/env.sh), users made by the users CLI inside its pod, port-forwards to
 * in-cluster PostgreSQL and NATS for the checks, and HTTP through the ingress — the ingress host
 * (`rdm.localtest.me`, public DNS unreachable here) resolved to 127.0.0.1 for this process only.
 *
 * When to use: from e2e/kind specs (`make test-kind`), after scripts/kind/up.sh.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { lookup as dnsLookup } from 'node:dns';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Agent, setGlobalDispatcher } from 'undici';
import type { User } from '../faults/support/saga.js';
import type { PgPool } from '../faults/support/stack.js';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const KIND_NAMESPACE = process.env.KIND_NAMESPACE ?? 'rdm';
export const KIND_HOST = process.env.KIND_HOST ?? 'rdm.localtest.me';
/** The API through the ingress. */
export const BASE = `http://${KIND_HOST}`;

/** Route this process's HTTP for the ingress host to 127.0.0.1 (kind maps the node's port 80 there). */
export function pinIngressHost(): void {
  const lookup = ((host: string, opts: any, cb: any) => {
    if (host !== KIND_HOST) return dnsLookup(host, opts, cb);
    if (opts?.all) return cb(null, [{ address: '127.0.0.1', family: 4 }]);
    return cb(null, '127.0.0.1', 4);
  }) as never;
  setGlobalDispatcher(new Agent({ connect: { lookup }, keepAliveTimeout: 4_000 }));
}

/** `kubectl …` against the cluster (namespace not implied); stdout. */
export async function kubectl(args: string[], timeoutMs = 300_000): Promise<string> {
  const { stdout } = await promisify(execFile)(
    'bash',
    ['-c', 'source scripts/kind/env.sh >/dev/null && kubectl "$@"', 'kubectl', ...args],
    { cwd: REPO_ROOT, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
  );
  return stdout;
}

/** `kubectl -n <namespace> …`. */
export function kns(args: string[], timeoutMs?: number): Promise<string> {
  return kubectl(['-n', KIND_NAMESPACE, ...args], timeoutMs);
}

/** True when the release's namespace exists (scripts/kind/up.sh ran). */
export async function clusterUp(): Promise<boolean> {
  try {
    await kns(['get', 'deploy', 'rdm-gateway', '-o', 'name'], 30_000);
    return true;
  } catch {
    return false;
  }
}

/** A user made with the users CLI in the users pod (as scripts/kind/smoke.sh does). */
export async function clusterUser(prefix: string): Promise<User> {
  const email = `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}@kind.test`;
  const out = await kns(['exec', 'deploy/rdm-users', '--', 'node', 'dist/users/cli.js', 'create-user', '--email', email]);
  const last = JSON.parse(out.trim().split('\n').pop() ?? '{}') as Partial<User>;
  if (!last.id || !last.token) throw new Error(`users CLI printed no token: ${out}`);
  return { id: last.id, token: last.token };
}

/** A running `kubectl port-forward` and the local port it listens on. */
export interface PortForward {
  port: number;
  close(): void;
}

/** `kubectl port-forward <target> 0:<remotePort>`; resolves once it listens. */
export async function portForward(target: string, remotePort: number): Promise<PortForward> {
  const child: ChildProcess = spawn(
    'bash',
    [
      '-c',
      'source scripts/kind/env.sh >/dev/null && exec "$KUBECTL_BIN" "$@"',
      'kubectl',
      '-n',
      KIND_NAMESPACE,
      'port-forward',
      target,
      `0:${remotePort}`,
    ],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`port-forward ${target}: no port within 30 s: ${out}`)), 30_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = out.match(/Forwarding from 127\.0\.0\.1:(\d+)/);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`port-forward ${target} exited ${code}: ${out}`));
    });
  });
  return { port, close: () => child.kill('SIGTERM') };
}

/** A pool on the in-cluster database through a port-forward (the release's DATABASE_URL, host rewritten). */
export async function clusterPg(pf: PortForward): Promise<PgPool> {
  const secret = (await kns(['get', 'secret', '-o', 'jsonpath={range .items[*]}{.data.DATABASE_URL}{"\\n"}{end}']))
    .split('\n')
    .find(Boolean);
  if (!secret) throw new Error('no DATABASE_URL in the release secrets');
  const url = new URL(Buffer.from(secret, 'base64').toString('utf8'));
  url.hostname = '127.0.0.1';
  url.port = String(pf.port);
  const pg = createRequire(join(REPO_ROOT, 'services', '_platform', 'package.json'))('pg') as {
    Pool: new (o: object) => PgPool & { on(event: 'error', fn: (err: Error) => void): unknown };
  };
  const pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
  pool.on('error', () => {});
  return pool;
}

/** Messages in a JetStream stream, from NATS's monitoring port through a port-forward. */
export async function streamMessages(pf: PortForward, name: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${pf.port}/jsz?streams=true`, { signal: AbortSignal.timeout(5000) });
  const jsz = (await res.json()) as { account_details?: { stream_detail?: { name: string; state: { messages: number } }[] }[] };
  for (const acc of jsz.account_details ?? []) for (const s of acc.stream_detail ?? []) if (s.name === name) return s.state.messages;
  return 0;
}
