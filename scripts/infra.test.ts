/**
 * scripts/infra (lib.sh, minio.sh, opensearch.sh): what `make test` relies on to stop what it
 * started and only that, and to refuse a server whose files are gone — with stand-in processes
 * (node one-liners whose command lines look like the servers'), private data folders and free
 * ports, so no real MinIO or OpenSearch is started or stopped.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const INFRA = join(import.meta.dirname, 'infra');
let data = '';
const children: ChildProcess[] = [];

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  // A stand-in started by start_bg (detached, not our child) is still running when a test failed
  // before its stop: kill it by its pid file, or it outlives the run.
  for (const name of ['minio.pid', 'opensearch.pid']) {
    const file = data ? join(data, name) : '';
    if (!file || !existsSync(file)) continue;
    const pid = Number(readFileSync(file, 'utf8'));
    if (pid > 0 && (process.platform !== 'linux' || /setInterval/.test(cmdline(pid)))) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  if (data) rmSync(data, { recursive: true, force: true });
});

/** The command line of a process ('' when it is gone), so only our own stand-ins are killed. */
function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Run an infra script (or lib.sh code) with a private data folder; status, stdout + stderr. */
function infra(args: string[], env: Record<string, string> = {}): { code: number | null; out: string } {
  const r = spawnSync('bash', args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, RDM_DATA_DIR: data, RDM_TOOLS_DIR: join(data, 'tools'), INFRA_VERBOSE: '1', ...env },
    timeout: 60_000,
  });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

/** A process whose command line contains `args` (an HTTP server answering 200 on `port` when given). */
function standIn(args: string[], port?: number): Promise<ChildProcess> {
  const code = port
    ? `require('http').createServer((q, s) => { s.setHeader('content-type', 'application/json'); s.end('{"status":"green"}'); }).listen(${port}, '127.0.0.1', () => console.log('up'))`
    : `setInterval(() => {}, 1e9); console.log('up')`;
  const c = spawn(process.execPath, ['-e', code, ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(c);
  return new Promise((resolve, reject) => {
    c.stdout?.once('data', () => resolve(c));
    c.once('exit', (code) => reject(new Error(`stand-in exited ${code}`)));
  });
}

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  return !alive(pid);
}

describe('stop what a run started, and only that', () => {
  it('start_bg records the run that started a server; stop-run stops it for that run only', async () => {
    data = mkdtempSync(join(tmpdir(), 'infra-test-'));
    // A "minio server" started as minio.sh starts one (start_bg), by run r1.
    const start = infra(
      [
        '-c',
        `source "${INFRA}/lib.sh"; start_bg "$RDM_DATA_DIR/minio.pid" "$RDM_DATA_DIR/minio.log" "${process.execPath}" -e 'setInterval(() => {}, 1e9)' minio server`,
      ],
      { INFRA_RUN_ID: 'r1' },
    );
    expect(start.code, start.out).toBe(0);
    const pid = Number(readFileSync(join(data, 'minio.pid'), 'utf8'));
    expect(readFileSync(join(data, 'minio.run'), 'utf8').trim()).toBe('r1');
    await new Promise((r) => setTimeout(r, 300));
    expect(alive(pid)).toBe(true);

    // Another run (it reused the server) leaves it running.
    const other = infra([join(INFRA, 'minio.sh'), 'stop-run', 'r2']);
    expect(other.code, other.out).toBe(0);
    expect(other.out).toContain('minio: not started by this run; left as it is');
    expect(alive(pid)).toBe(true);
    // No run id at all: nothing is stopped either.
    expect(infra([join(INFRA, 'minio.sh'), 'stop-run']).code).toBe(0);
    expect(alive(pid)).toBe(true);

    // The run that started it stops it.
    const own = infra([join(INFRA, 'minio.sh'), 'stop-run', 'r1']);
    expect(own.code, own.out).toBe(0);
    expect(own.out).toContain(`minio (pid ${pid}) stopped: this run started it`);
    expect(await gone(pid)).toBe(true);
    expect(existsSync(join(data, 'minio.pid'))).toBe(false);
    expect(existsSync(join(data, 'minio.run'))).toBe(false);
  });

  it('a server started without a run id (make minio / make opensearch) is never stopped by a run', async () => {
    data = mkdtempSync(join(tmpdir(), 'infra-test-'));
    const start = infra([
      '-c',
      `source "${INFRA}/lib.sh"; start_bg "$RDM_DATA_DIR/opensearch.pid" "$RDM_DATA_DIR/opensearch.log" "${process.execPath}" -e 'setInterval(() => {}, 1e9)' rdm.Main`,
    ]);
    expect(start.code, start.out).toBe(0);
    const pid = Number(readFileSync(join(data, 'opensearch.pid'), 'utf8'));
    expect(existsSync(join(data, 'opensearch.run'))).toBe(false);
    expect(infra([join(INFRA, 'opensearch.sh'), 'stop-run', '']).code).toBe(0);
    await new Promise((r) => setTimeout(r, 300));
    expect(alive(pid)).toBe(true);
    expect(infra([join(INFRA, 'opensearch.sh'), 'stop']).code).toBe(0); // `make stop` does
    expect(await gone(pid)).toBe(true);
  });

  it('a stale pid file naming some other process is not acted on, even with the right run id', async () => {
    data = mkdtempSync(join(tmpdir(), 'infra-test-'));
    const unrelated = await standIn(['not-a-minio']);
    writeFileSync(join(data, 'minio.pid'), `${unrelated.pid}\n`);
    writeFileSync(join(data, 'minio.run'), 'r1\n');
    expect(infra([join(INFRA, 'minio.sh'), 'stop-run', 'r1']).code).toBe(0);
    await new Promise((r) => setTimeout(r, 300));
    expect(alive(unrelated.pid as number)).toBe(true);
  });
});

describe('reuse of a server already on the port', () => {
  it('MinIO started elsewhere: reused loudly, naming its command line; refused once its data folder is gone', async () => {
    data = mkdtempSync(join(tmpdir(), 'infra-test-'));
    const port = await freePort();
    const theirs = join(data, 'other-checkout', '.data', 'minio');
    mkdirSync(theirs, { recursive: true });
    const server = await standIn([String(port), theirs], port);
    const env = { MINIO_PORT: String(port), MINIO_CONSOLE_PORT: String(await freePort()) };

    const ok = infra([join(INFRA, 'minio.sh'), 'start'], env);
    expect(ok.code, ok.out).toBe(0);
    expect(ok.out).toContain(`reusing the minio on 127.0.0.1:${port} started elsewhere (pid ${server.pid}:`);
    expect(ok.out).toContain(theirs);

    rmSync(join(data, 'other-checkout'), { recursive: true, force: true });
    const refused = infra([join(INFRA, 'minio.sh'), 'start'], env);
    expect(refused.code).toBe(1);
    expect(refused.out).toContain(
      `127.0.0.1:${port} is served by a minio (pid ${server.pid}) whose data directory ${theirs} no longer exists`,
    );
    expect(alive(server.pid as number)).toBe(true); // refused, not stopped
  });

  it('OpenSearch started elsewhere: the same, its data folder read after rdm.Main', async () => {
    data = mkdtempSync(join(tmpdir(), 'infra-test-'));
    const port = await freePort();
    const theirs = join(data, 'other-checkout', '.data', 'opensearch');
    mkdirSync(theirs, { recursive: true });
    const server = await standIn(['rdm.Main', theirs, String(port)], port);
    const env = { OPENSEARCH_PORT: String(port), OPENSEARCH_START_TIMEOUT: '10' };

    const ok = infra([join(INFRA, 'opensearch.sh'), 'start'], env);
    expect(ok.code, ok.out).toBe(0);
    expect(ok.out).toContain(`reusing the opensearch on 127.0.0.1:${port} started elsewhere (pid ${server.pid}:`);

    rmSync(join(data, 'other-checkout'), { recursive: true, force: true });
    const refused = infra([join(INFRA, 'opensearch.sh'), 'start'], env);
    expect(refused.code).toBe(1);
    expect(refused.out).toContain(`whose data directory ${theirs} no longer exists`);
  });
});
