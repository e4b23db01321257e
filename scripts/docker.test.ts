/**
 * scripts/infra/docker.sh without an engine and without root: `start` must say what to do and exit
 * non-zero, `host` must name where the project's engine would be (it starts nothing). Run as an
 * unprivileged user (`runuser -u nobody` when the tests run as root) on copies of the scripts, with
 * DOCKER_HOST and the project's socket pointing nowhere, so no real engine is asked or started.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const INFRA = join(import.meta.dirname, 'infra');
let dir = '';

afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

/** Run docker.sh <cmd> as an unprivileged user, with no engine reachable. */
function dockerSh(cmd: string): { status: number | null; stderr: string; stdout: string } {
  dir = mkdtempSync(join(tmpdir(), 'rdm-docker-test-'));
  const infra = join(dir, 'scripts', 'infra');
  mkdirSync(infra, { recursive: true });
  for (const f of ['docker.sh', 'lib.sh']) copyFileSync(join(INFRA, f), join(infra, f));
  mkdirSync(join(dir, 'data'));
  mkdirSync(join(dir, 'engine'));
  for (const d of [dir, join(dir, 'scripts'), infra]) chmodSync(d, 0o755);
  for (const d of [join(dir, 'data'), join(dir, 'engine')]) chmodSync(d, 0o777);
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    DOCKER_HOST: `unix://${join(dir, 'nowhere.sock')}`,
    RDM_DOCKER_DIR: join(dir, 'engine'),
    RDM_DATA_DIR: join(dir, 'data'),
  };
  const script = join(infra, 'docker.sh');
  const asRoot = process.getuid?.() === 0;
  const [bin, args] = asRoot
    ? ['runuser', ['-u', 'nobody', '--', 'env', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), 'bash', script, cmd]]
    : ['bash', [script, cmd]];
  const r = spawnSync(bin as string, args as string[], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stderr: r.stderr, stdout: r.stdout };
}

describe('scripts/infra/docker.sh without an engine', () => {
  it('should refuse to start one when not root, saying how to get one, with a non-zero exit', () => {
    const r = dockerSh('start');
    // /var/run/docker.sock of a system engine would be used if it answered: then there is nothing to refuse.
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/docker\.sh: error: no working Docker engine .*not root/);
    expect(r.stderr).toMatch(/set DOCKER_HOST/);
  });

  it('should print the project socket as the host to use without starting anything', () => {
    const r = dockerSh('host');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(`unix://${join(dir, 'engine', 'run', 'docker.sock')}`);
  });

  it('should say there is no engine in status, with a non-zero exit', () => {
    const r = dockerSh('status');
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^engine: none$/m);
  });
});
