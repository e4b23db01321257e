/**
 * The image's commands work, checked without a container engine: the production build is made
 * the way the Dockerfile's build stage makes it (into a temporary /app outside the repository, so
 * nothing resolves from the workspace's node_modules), then every migration Job and every
 * Deployment of the rendered chart is run with its own args and the environment Kubernetes would
 * give it (Dockerfile ENV, then the ConfigMap of `envFrom`, then `env` with Secret references
 * resolved from the rendered Secret). Only what cannot exist on this machine is mapped, and the
 * mapping is listed below: in-cluster host names (in env and args) → 127.0.0.1 ports, the database URL → a fresh
 * local database, `/app` and `/data` → the temporary directories, one port per pod, HOST →
 * 127.0.0.1. Each Job must exit 0 and each Deployment must answer its readiness probe with 200.
 *
 * Needs PostgreSQL (scripts/infra/postgres.sh) and nats-server (a private one is spawned).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL, spawnNatsServer, uniqueId } from '../../../services/_platform/src/testing/index.js';
import { type Manifest, ROOT, render } from '../render.js';

// pg is a dependency of the platform, not of the repository root.
const pg = createRequire(join(ROOT, 'services/_platform/package.json'))('pg') as typeof import('pg');

// Local storage: MinIO is not needed for the check, and the chart supports one replica with it.
const VALUES = { name: 'default, local storage', files: [], set: ['storage.engine=local'] };
const RELEASE = 'rdm';

/** ENV of the Dockerfile's runtime stage (the last `ENV` instruction, with its continuation lines). */
function dockerfileEnv(): Record<string, string> {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n\s*/g, ' ');
  const runtime = text.slice(text.lastIndexOf('\nFROM '));
  const line = runtime.split('\n').find((l) => l.startsWith('ENV '));
  if (!line) throw new Error('no ENV in the Dockerfile runtime stage');
  return Object.fromEntries(
    [...line.slice(4).matchAll(/([A-Z0-9_]+)=("[^"]*"|\S+)/g)].map((m) => [m[1], String(m[2]).replace(/^"|"$/g, '')]),
  );
}

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => done(port));
    });
  });
}

interface Pod {
  name: string;
  container: Manifest;
}

const objs = render(VALUES, RELEASE);
const configMaps = new Map(objs.filter((o) => o.kind === 'ConfigMap').map((o) => [o.metadata.name, o.data ?? {}]));
const secrets = new Map(
  objs
    .filter((o) => o.kind === 'Secret')
    .map((o) => [
      o.metadata.name,
      {
        ...(o.stringData ?? {}),
        ...Object.fromEntries(Object.entries(o.data ?? {}).map(([k, v]) => [k, Buffer.from(String(v), 'base64').toString()])),
      },
    ]),
);
const deployments: Pod[] = objs
  .filter((o) => o.kind === 'Deployment' && o.metadata.labels?.['app.kubernetes.io/component'] === 'service')
  .map((o) => ({ name: o.metadata.labels['app.kubernetes.io/name'], container: o.spec.template.spec.containers[0] }));
const jobs = objs
  .filter((o) => o.kind === 'Job' && o.metadata.labels?.['app.kubernetes.io/component'] === 'migration')
  .map((o) => ({ name: o.metadata.labels['app.kubernetes.io/name'], spec: o.spec.template.spec as Manifest }));

/** The environment Kubernetes gives a container: image ENV < envFrom ConfigMaps < env. */
function kubernetesEnv(container: Manifest): Record<string, string> {
  const env: Record<string, string> = { ...dockerfileEnv() };
  for (const from of container.envFrom ?? []) {
    if (from.configMapRef) Object.assign(env, configMaps.get(from.configMapRef.name) ?? {});
    if (from.secretRef) Object.assign(env, secrets.get(from.secretRef.name) ?? {});
  }
  for (const e of container.env ?? []) {
    if ('value' in e) env[e.name] = String(e.value);
    else if (e.valueFrom?.secretKeyRef) {
      const { name, key, optional } = e.valueFrom.secretKeyRef;
      const v = secrets.get(name)?.[key];
      if (v === undefined && !optional) throw new Error(`${container.name}: secret ${name}/${key} is not rendered`);
      if (v !== undefined) env[e.name] = v;
    } else if (e.valueFrom?.configMapKeyRef)
      env[e.name] = configMaps.get(e.valueFrom.configMapKeyRef.name)?.[e.valueFrom.configMapKeyRef.key];
  }
  return env;
}

describe('the image commands of charts/rdm, run from a production build outside the repository', () => {
  const work = mkdtempSync(join(tmpdir(), 'rdm-image-'));
  const app = join(work, 'app');
  const data = join(work, 'data');
  const nats = spawnNatsServer({ port: 20000 + Math.floor(Math.random() * 20000) });
  const database = `rdm_image_${uniqueId()}`;
  const ports = new Map<string, number>();
  const children: ChildProcess[] = [];
  const logs = new Map<string, string>();
  let hostMap: [RegExp, string][] = [];

  /** The one mapping from the cluster to this machine (see the header). */
  function onThisMachine(pod: string, env: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = { PATH: process.env.PATH ?? '' };
    for (const [k, v] of Object.entries(env)) {
      let value = v.replaceAll('/app/', `${app}/`).replace(/^\/data\//, `${data}/`);
      for (const [re, to] of hostMap) value = value.replace(re, to);
      out[k] = value;
    }
    const dbUrl = new URL(TEST_DATABASE_URL);
    dbUrl.pathname = `/${database}`;
    out.DATABASE_URL = dbUrl.toString();
    out.HOST = '127.0.0.1';
    out.PORT = String(ports.get(pod));
    return out;
  }

  function run(pod: string, podArgs: string[], env: Record<string, string>): ChildProcess {
    const args = podArgs.map((a) => hostMap.reduce((v, [re, to]) => v.replace(re, to), a));
    const child = spawn(process.execPath, args, { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (d: Buffer) => logs.set(pod, ((logs.get(pod) ?? '') + d.toString()).slice(-6000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    return child;
  }

  beforeAll(async () => {
    // The Dockerfile's build stage, outside the repository.
    execFileSync(join(ROOT, 'node_modules/.bin/tsx'), ['scripts/build.ts', `--out=${join(app, 'dist')}`], { cwd: ROOT, stdio: 'pipe' });
    cpSync(join(ROOT, 'scripts/wait-for.mjs'), join(app, 'dist/wait-for.js'));
    cpSync(join(ROOT, 'proto'), join(app, 'proto'), { recursive: true });
    await nats.start();
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();
    for (const d of deployments) ports.set(d.name, await freePort());
    for (const j of jobs) if (!ports.has(j.name)) ports.set(j.name, await freePort());
    const pgUrl = new URL(TEST_DATABASE_URL);
    hostMap = [
      [new RegExp(`${RELEASE}-postgresql:5432`, 'g'), `${pgUrl.hostname}:${pgUrl.port || 5432}`],
      [new RegExp(`${RELEASE}-nats:4222`, 'g'), `127.0.0.1:${nats.port}`],
      ...deployments.map(
        (d) => [new RegExp(`http://${RELEASE}-${d.name}:80`, 'g'), `http://127.0.0.1:${ports.get(d.name)}`] as [RegExp, string],
      ),
    ];
  }, 300_000);

  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await nats.stop();
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
    rmSync(work, { recursive: true, force: true });
  });

  it('renders a Deployment per service and a migration Job per service with a database', () => {
    expect(deployments.map((d) => d.name).sort()).toEqual([
      'communities',
      'files',
      'gateway',
      'records',
      'requests',
      'users',
      'vocabularies',
      'web',
      'webhooks',
    ]);
    // Every service but the web pages (no database) has its migration Job.
    expect(jobs.length).toBe(7);
  });

  it('runs every migration Job (its init container, then its container) to exit code 0', async () => {
    for (const job of jobs) {
      for (const c of [...(job.spec.initContainers ?? []), ...job.spec.containers]) {
        const child = run(`${job.name}-migrate`, c.args, onThisMachine(job.name, kubernetesEnv(c)));
        // A Job's activeDeadlineSeconds is the cluster's bound; here 60 s per container is plenty.
        const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
        const code = await new Promise<number | null>((done) => child.once('exit', done));
        clearTimeout(timer);
        expect({ job: job.name, container: c.name, code, log: code === 0 ? '' : logs.get(`${job.name}-migrate`) }).toEqual({
          job: job.name,
          container: c.name,
          code: 0,
          log: '',
        });
      }
    }
  }, 240_000);

  it('starts every Deployment with its args and environment, and each answers its readiness probe with 200', async () => {
    for (const d of deployments) children.push(run(d.name, d.container.args, onThisMachine(d.name, kubernetesEnv(d.container))));
    const deadline = Date.now() + 90_000;
    const status = new Map<string, number | string>();
    for (const d of deployments) {
      const path = d.container.readinessProbe?.httpGet?.path;
      expect(path, `${d.name} has an HTTP readiness probe`).toBeTruthy();
      for (;;) {
        try {
          const r = await fetch(`http://127.0.0.1:${ports.get(d.name)}${path}`, { signal: AbortSignal.timeout(3000) });
          status.set(d.name, r.status);
          if (r.status === 200) break;
        } catch (err) {
          status.set(d.name, (err as Error).message);
        }
        if (Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    const notReady = deployments
      .filter((d) => status.get(d.name) !== 200)
      .map((d) => ({ pod: d.name, last: status.get(d.name), log: logs.get(d.name) }));
    expect(notReady).toEqual([]);
  }, 180_000);
});
