/**
 * Failure modes of the container runtime of the e2e stack (E2E_RUNTIME=containers,
 * e2e/support/containers.ts), on the real engine and the images `make images` built: each fails
 * with a message naming the component and leaves no container, network or volume of the run.
 * Needs the engine (`make docker-up`) and the images (`make images`); `make test` runs this project
 * after building them. Not run with E2E_RUNTIME=processes (no engine is required then).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../scripts/up.js';
import { type ContainerStackOptions, LABEL_OWNER, listLabelled, startContainerStack } from '../support/containers.js';

const SKIP = process.env.E2E_RUNTIME === 'processes';
const PORT_BASE = Number(process.env.E2E_PORT_BASE ?? 5900) + 50;

const options = (o: Partial<ContainerStackOptions> = {}): ContainerStackOptions => ({
  portBase: PORT_BASE,
  databaseName: 'rdm_containers_check',
  searchEngine: 'postgres',
  mailDir: join(REPO_ROOT, '.data', 'containers-check-mail'),
  dataDir: join(REPO_ROOT, '.data', 'containers-check-files'),
  logDir: join(REPO_ROOT, '.data', 'containers-check-logs'),
  env: {},
  say: () => undefined,
  ...o,
});

/** What this process left on the engine (every run it starts carries its pid). */
const leftovers = () => listLabelled(LABEL_OWNER, String(process.pid));

describe.skipIf(SKIP)('e2e container runtime: failure modes', () => {
  const savedHost = process.env.DOCKER_HOST;
  beforeAll(() => {
    process.env.DOCKER_HOST ??= execFileSync('bash', [join(REPO_ROOT, 'scripts/infra/docker.sh'), 'host'], { encoding: 'utf8' }).trim();
    process.env.TESTCONTAINERS_HOST_OVERRIDE ??= '127.0.0.1';
  });
  afterEach(() => {
    if (savedHost === undefined) Reflect.deleteProperty(process.env, 'DOCKER_HOST');
    else process.env.DOCKER_HOST = savedHost;
    process.env.DOCKER_HOST ??= execFileSync('bash', [join(REPO_ROOT, 'scripts/infra/docker.sh'), 'host'], { encoding: 'utf8' }).trim();
    Reflect.deleteProperty(process.env, 'E2E_IMAGE_NATS');
  });

  it('should fail at once, naming the engine, when no engine answers', async () => {
    process.env.DOCKER_HOST = 'unix:///nonexistent/rdm-docker.sock';
    const t0 = Date.now();
    await expect(startContainerStack(options())).rejects.toThrow(
      /no Docker engine answers at unix:\/\/\/nonexistent\/rdm-docker\.sock .*make docker-up.*E2E_RUNTIME=processes/,
    );
    expect(Date.now() - t0).toBeLessThan(20_000);
  });

  it('should name a missing image and never pull it', async () => {
    process.env.E2E_IMAGE_NATS = 'rdm-nats:not-built';
    await expect(startContainerStack(options())).rejects.toThrow(
      /image\(s\) not built on this engine: nats \(rdm-nats:not-built\); run `make images`/,
    );
    expect(leftovers()).toEqual([]);
  });

  it('should name the gateway port when it is taken, and start nothing', async () => {
    const server: Server = createServer();
    await new Promise<void>((r) => server.listen(PORT_BASE, '127.0.0.1', r));
    try {
      await expect(startContainerStack(options())).rejects.toThrow(
        new RegExp(`gateway port 127\\.0\\.0\\.1:${PORT_BASE} is already in use; set E2E_PORT_BASE`),
      );
    } finally {
      server.close();
    }
    expect(leftovers()).toEqual([]);
  });

  it('should name a container that never becomes healthy, with its log, and remove the whole run', async () => {
    // PostgreSQL's entrypoint replaced by a sleep: its HEALTHCHECK (pg_isready) never passes.
    await expect(startContainerStack(options({ infraTimeoutMs: 8000, entrypoints: { postgres: ['sleep', '600'] } }))).rejects.toThrow(
      /postgres \(rdm-postgres:15\) did not become ready within 8 s/,
    );
    // NATS started meanwhile: gone too, with the network.
    expect(leftovers()).toEqual([]);
  }, 120_000);

  it('should name the image and the mirror when a build cannot reach the package mirror, keep the previous image and leave no container', () => {
    const docker = (...args: string[]) => execFileSync('docker', args, { encoding: 'utf8' }).trim();
    const before = docker('image', 'inspect', '--format', '{{.Id}}', 'rdm-debian:bookworm');
    // Containers a build could leave: docker build's intermediate ones run the base image.
    const fromBase = () => docker('ps', '-aq', '--filter', 'ancestor=rdm-debian:bookworm');
    const containers = fromBase();
    const data = mkdtempSync(join(tmpdir(), 'rdm-images-fail-'));
    try {
      // A mirror that refuses connections: what a network hiccup to the package mirror looks like.
      const r = spawnSync('bash', [join(REPO_ROOT, 'scripts/images.sh'), 'base'], {
        env: { ...process.env, DEBIAN_MIRROR: 'http://127.0.0.1:9/debian', IMAGES_FORCE: '1', RDM_DATA_DIR: data },
        encoding: 'utf8',
        timeout: 300_000,
      });
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toMatch(
        /image rdm-debian:bookworm: debootstrap failed \(package mirror http:\/\/127\.0\.0\.1:9\/debian unreachable/,
      );
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
    expect(docker('image', 'inspect', '--format', '{{.Id}}', 'rdm-debian:bookworm')).toBe(before);
    expect(fromBase()).toBe(containers);
  }, 320_000);
});
