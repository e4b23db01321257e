/**
 * The container runtime of the e2e stack (`E2E_RUNTIME=containers`, the default of `make test`):
 * PostgreSQL, NATS, MinIO, OpenSearch (with SEARCH_ENGINE=opensearch) and every service run from
 * the images `make images` builds here (scripts/images.sh), started through testcontainers for
 * Node on one private network.
 *
 * - Engine: `DOCKER_HOST` (set by the global setup from `scripts/infra/docker.sh host`). None
 *   answering: the run fails at once, naming the engine address (`make docker-up`).
 * - Images: local tags only (`rdm-postgres:15` …, `E2E_IMAGE_<COMPONENT>` overrides one); each is
 *   checked before anything starts and a missing one fails the run (`make images`): nothing is
 *   ever pulled (no registry is reachable here).
 * - Ryuk is disabled (TESTCONTAINERS_RYUK_DISABLED=true): its image (testcontainers/ryuk) lives on
 *   Docker Hub, which no machine here reaches, and building it is not needed because the cleanup
 *   is ours: every container and the network carry the labels `org.rdm.e2e.run=<run id>` and
 *   `org.rdm.e2e.root=<checkout>`; the teardown removes everything with the run's label (pass or
 *   fail), SIGINT/SIGTERM/exit handlers do the same synchronously, and the next run in the same
 *   checkout removes whatever a killed run left (label `org.rdm.e2e.owner`: its pid is gone).
 * - Ready means: PostgreSQL's HEALTHCHECK (pg_isready), NATS's "Server is ready", MinIO's
 *   /minio/health/ready, OpenSearch's cluster health yellow, every service's /readyz. A component
 *   that is not ready in time fails the run with its name, image, timeout and the end of its log.
 * - Every service runs in the network namespace of a holder container (`<run>-<svc>`: its DNS name,
 *   address and published port; the service itself is `<run>-<svc>-app`), so a stopped service
 *   refuses connections at once, as a stopped process does.
 * - The gateway is published on 127.0.0.1:<E2E_PORT_BASE> (so PUBLIC_BASE_URL is known before the
 *   services start); the other services and the infrastructure on ephemeral 127.0.0.1 ports (the
 *   users CLI of the specs reaches PostgreSQL there). Records' development mail sink writes to a
 *   bind-mounted folder (E2E_MAIL_SINK_DIR); files and logos to bind-mounted .data/e2e-files, as
 *   on processes (E2E_FILES_STORAGE=s3: a MinIO container and FILES_STORAGE=s3 instead; some specs
 *   use multipart parts below S3's 5 MiB minimum, so local is the default).
 * - Service logs are copied to .data/e2e-logs/<svc>.log at teardown and on a failed start.
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { E2E_VOCABULARY_IMPORT_DIR } from './import-dir.js';
import { GATEWAY, REPO_ROOT, SERVICES, type ServiceSpec, isAlive, waitHttpOk } from '../../scripts/up.js';

const run = promisify(execFile);

/** Local image tags (scripts/images.sh); E2E_IMAGE_<NAME> overrides one. */
export const IMAGES = {
  postgres: 'rdm-postgres:15',
  nats: 'rdm-nats:2.9.10',
  minio: 'rdm-minio:RELEASE.2025-09-07T16-13-09Z',
  opensearch: 'rdm-opensearch:2.19.1',
  service: 'rdm:dev',
} as const;
export type Component = keyof typeof IMAGES;

export const imageOf = (c: Component, env: NodeJS.ProcessEnv = process.env): string => env[`E2E_IMAGE_${c.toUpperCase()}`] || IMAGES[c];

/** Options of startContainerStack. */
export interface ContainerStackOptions {
  portBase: number;
  databaseName: string;
  searchEngine: string;
  /** Host folder for records' mail sink (.eml files). */
  mailDir: string;
  /** Host folder for the files and communities local storage (`<dataDir>/files`, `/communities`). */
  dataDir: string;
  /**
   * `local` (default, as the process runtime: the specs' multipart part sizes are below S3's 5 MiB
   * minimum) or `s3` (MinIO container; FILES_STORAGE=s3).
   */
  filesStorage?: 'local' | 's3';
  logDir: string;
  /** Service environment from the global setup (secrets, rate limits, index prefix …). */
  env: Record<string, string>;
  say: (line: string) => void;
  /** Readiness timeout of each service (default 120 s). */
  readyTimeoutMs?: number;
  /** Readiness timeout of each infrastructure container (default: 60 s, OpenSearch 240 s). */
  infraTimeoutMs?: number;
  /** Test hook (fault trials): replace a component's entrypoint, e.g. one that never gets healthy. */
  entrypoints?: Partial<Record<Component, string[]>>;
}

/** One service of the stack as stack.ts sees it. */
export interface ContainerService {
  spec: ServiceSpec;
  pid: null;
  container: string;
}

/** A started container stack. */
export interface ContainerStack {
  runId: string;
  baseUrl: string;
  /** postgres://… of the e2e database, reachable from this machine (the users CLI). */
  databaseUrl: string;
  natsUrl: string;
  /** This machine's address on the run's network (its gateway): where a container reaches a server of the specs (webhook receivers). */
  hostAddress: string;
  services: Record<string, ContainerService>;
  /** Copy logs, remove every container and the network of the run; idempotent. */
  stop(): Promise<void>;
}

const LABEL_RUN = 'org.rdm.e2e.run';
const LABEL_ROOT = 'org.rdm.e2e.root';
/** pid of the process that started the run (its global setup). */
export const LABEL_OWNER = 'org.rdm.e2e.owner';
const PG_USER = 'rdm';
const PG_PASSWORD = 'rdm';
const MINIO_USER = 'rdmminio';
const MINIO_PASSWORD = 'rdmminiosecret';

const docker = async (args: string[], timeoutMs = 60_000): Promise<string> =>
  (await run('docker', args, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, env: process.env })).stdout.trim();

/** Fail fast, naming the engine, when no Docker engine answers at DOCKER_HOST. */
export async function checkEngine(): Promise<string> {
  const host = process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
  try {
    return await docker(['version', '--format', '{{.Server.Version}}'], 15_000);
  } catch (err) {
    const e = err as { stderr?: string; message: string; code?: string };
    const why = e.code === 'ENOENT' ? 'the docker CLI is not installed' : (e.stderr?.trim().split('\n').pop() ?? e.message);
    throw new Error(
      `e2e (E2E_RUNTIME=containers): no Docker engine answers at ${host} (${why}); start one with \`make docker-up\` (installs docker.io when root) or run the suite on processes with E2E_RUNTIME=processes`,
    );
  }
}

/** Fail, naming the image, when one is not built on this engine (never pulled). */
export async function checkImages(components: Component[]): Promise<void> {
  const missing: string[] = [];
  await Promise.all(
    components.map(async (c) => {
      try {
        await docker(['image', 'inspect', '--format', '{{.Id}}', imageOf(c)], 15_000);
      } catch {
        missing.push(`${c} (${imageOf(c)})`);
      }
    }),
  );
  if (missing.length) {
    throw new Error(
      `e2e (E2E_RUNTIME=containers): image(s) not built on this engine: ${missing.sort().join(', ')}; run \`make images\` (images are built here, never pulled)`,
    );
  }
}

/** Synchronously remove every container, network and volume labelled with `label=value`. */
export function removeLabelled(label: string, value: string): void {
  const filter = `label=${label}=${value}`;
  const list = (args: string[]): string[] => {
    try {
      return execFileSync('docker', args, { encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'ignore'] })
        .split('\n')
        .map((s) => s.trim())
        .filter(Boolean);
    } catch {
      return [];
    }
  };
  const rm = (args: string[]): void => {
    try {
      execFileSync('docker', args, { timeout: 60_000, stdio: 'ignore' });
    } catch {
      /* already gone */
    }
  };
  const containers = list(['ps', '-aq', '--filter', filter]);
  if (containers.length) rm(['rm', '-f', '-v', ...containers]);
  const networks = list(['network', 'ls', '-q', '--filter', filter]);
  if (networks.length) rm(['network', 'rm', ...networks]);
  const volumes = list(['volume', 'ls', '-q', '--filter', filter]);
  if (volumes.length) rm(['volume', 'rm', '-f', ...volumes]);
}

/** Containers, networks and volumes labelled with `label=value`, as `kind id owner-pid` lines. */
export function listLabelled(label: string, value: string): { kind: 'container' | 'network' | 'volume'; id: string; owner: number }[] {
  const filter = `label=${label}=${value}`;
  const out: { kind: 'container' | 'network' | 'volume'; id: string; owner: number }[] = [];
  const kinds = [
    ['container', ['ps', '-a', '--filter', filter, '--format', `{{.ID}} {{.Label "${LABEL_OWNER}"}}`]],
    ['network', ['network', 'ls', '--filter', filter, '--format', `{{.ID}} {{.Label "${LABEL_OWNER}"}}`]],
    ['volume', ['volume', 'ls', '--filter', filter, '--format', `{{.Name}} {{.Label "${LABEL_OWNER}"}}`]],
  ] as const;
  for (const [kind, args] of kinds) {
    const text = execFileSync('docker', [...args], { encoding: 'utf8', timeout: 30_000 });
    for (const line of text.split('\n').filter(Boolean)) {
      const [id = '', owner = ''] = line.trim().split(/\s+/);
      out.push({ kind, id, owner: Number(owner) || 0 });
    }
  }
  return out;
}

/**
 * What earlier runs of this checkout left behind (their process was killed): removed before
 * starting. Only runs whose owner process is gone: a live run (another vitest) is never touched.
 */
export function removeLeftovers(say: (l: string) => void): void {
  let found: ReturnType<typeof listLabelled>;
  try {
    found = listLabelled(LABEL_ROOT, REPO_ROOT);
  } catch {
    return;
  }
  const dead = [...new Set(found.filter((f) => !f.owner || !isAlive(f.owner)).map((f) => f.owner))];
  if (!dead.length) return;
  say(`removing what earlier e2e runs of this checkout left behind (${found.filter((f) => dead.includes(f.owner)).length} object(s))`);
  for (const owner of dead) removeLabelled(LABEL_OWNER, String(owner));
}

/** True when something accepts TCP on 127.0.0.1:port (the e2e set-up's port checks). */
export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect({ host: '127.0.0.1', port });
    sock.setTimeout(1000, () => {
      sock.destroy();
      resolve(false);
    });
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}

/** Start the whole stack in containers; on any failure everything of the run is removed first. */
export async function startContainerStack(o: ContainerStackOptions): Promise<ContainerStack> {
  // Ryuk's image cannot be pulled here; our own labels + teardown clean up (header).
  process.env.TESTCONTAINERS_RYUK_DISABLED = 'true';
  const { GenericContainer, Wait } = await import('testcontainers');
  type Started = Awaited<ReturnType<InstanceType<typeof GenericContainer>['start']>>;

  const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const prefix = `rdm-e2e-${runId}`;
  const labels = { [LABEL_RUN]: runId, [LABEL_ROOT]: REPO_ROOT, [LABEL_OWNER]: String(process.pid) };
  const name = (c: string): string => `${prefix}-${c}`;
  const opensearch = o.searchEngine === 'opensearch';
  if (o.searchEngine !== 'postgres' && !opensearch) {
    throw new Error(
      `e2e (E2E_RUNTIME=containers): SEARCH_ENGINE=${o.searchEngine} is not supported in containers (postgres, opensearch); use E2E_RUNTIME=processes`,
    );
  }
  const s3 = o.filesStorage === 's3';
  const components: Component[] = [
    'postgres',
    'nats',
    'service',
    ...(s3 ? (['minio'] as const) : []),
    ...(opensearch ? (['opensearch'] as const) : []),
  ];
  const gatewayPort = o.portBase;
  const infraTimeout = o.infraTimeoutMs ?? 60_000;
  const readyTimeout = o.readyTimeoutMs ?? 120_000;
  const started = new Map<string, Started>();
  let stopped = false;

  // Logs stream into <logDir>/<name>.log from each container's start; a service restarted by a
  // spec (stack.ts) logs on after its stream ended, so its whole log is copied again at the end.
  const copyLogs = async (): Promise<void> => {
    await Promise.all(
      [...SERVICES, GATEWAY].map(async (n) => {
        try {
          const { stdout, stderr } = await run('docker', ['logs', name(`${n}-app`)], { maxBuffer: 64 * 1024 * 1024, timeout: 5_000 });
          writeFileSync(join(o.logDir, `${n}.log`), stdout + stderr);
        } catch {
          /* not started, gone, or too slow: the streamed log stays */
        }
      }),
    );
  };
  const stop = async (): Promise<void> => {
    if (stopped) return;
    // Bounded: vitest gives a teardown about 10 s before it exits anyway (the exit handler below
    // then removes what is left).
    await Promise.race([copyLogs().catch(() => undefined), new Promise((r) => setTimeout(r, 6_000))]);
    removeLabelled(LABEL_RUN, runId);
    stopped = true;
  };
  // Ctrl-C, kill or an exit without teardown (vitest exits when its close times out): remove the
  // run's containers synchronously. Idempotent.
  const onSignal = (sig: NodeJS.Signals): void => {
    removeLabelled(LABEL_RUN, runId);
    stopped = true;
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    process.kill(process.pid, sig);
  };
  const onExit = (): void => {
    if (!stopped) removeLabelled(LABEL_RUN, runId);
  };
  // First in line: vitest's own SIGINT handler ends the process.
  process.prependListener('SIGINT', onSignal);
  process.prependListener('SIGTERM', onSignal);
  process.on('exit', onExit);
  const detach = (): void => {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    process.removeListener('exit', onExit);
  };

  /** Log tail of a component for an error message. */
  const tail = async (n: string): Promise<string> => {
    await new Promise((r) => setTimeout(r, 500)); // let the log stream flush
    try {
      const lines = readFileSync(join(o.logDir, `${n}.log`), 'utf8')
        .trimEnd()
        .split('\n')
        .slice(-25);
      return lines.join('').trim() ? `\n--- last lines of ${n} (${join(o.logDir, `${n}.log`)}) ---\n${lines.join('\n')}` : '';
    } catch {
      return '';
    }
  };

  const startOne = async (
    n: string,
    image: string,
    setup: (c: InstanceType<typeof GenericContainer>) => InstanceType<typeof GenericContainer>,
    timeoutMs: number,
    network: string = prefix,
    containerName: string = name(n),
  ): Promise<Started> => {
    const t0 = Date.now();
    mkdirSync(o.logDir, { recursive: true });
    const logFile = join(o.logDir, `${n}.log`);
    let c = new GenericContainer(image)
      .withName(containerName)
      .withNetworkMode(network)
      .withLabels(labels)
      .withStartupTimeout(timeoutMs)
      // Its output from the first line on (testcontainers removes a container that failed to start).
      .withLogConsumer((stream) => stream.pipe(createWriteStream(logFile)));
    c = setup(c);
    const entry = o.entrypoints?.[n as Component];
    if (entry) c = c.withEntrypoint(entry);
    try {
      const s = await c.start();
      started.set(n, s);
      o.say(`${n}: ready in ${((Date.now() - t0) / 1000).toFixed(1)} s (${image})`);
      return s;
    } catch (err) {
      started.set(n, undefined as unknown as Started); // its logs are copied at stop
      const msg = (err as Error).message.split('\n')[0];
      throw new Error(
        `e2e (E2E_RUNTIME=containers): ${n} (${image}) did not become ready within ${timeoutMs / 1000} s: ${msg}${await tail(n)}`,
      );
    }
  };

  try {
    await checkEngine();
    removeLeftovers(o.say);
    await checkImages(components);
    if (await portOpen(gatewayPort)) {
      throw new Error(
        `e2e (E2E_RUNTIME=containers): gateway port 127.0.0.1:${gatewayPort} is already in use; set E2E_PORT_BASE to another range`,
      );
    }
    await docker(['network', 'create', ...Object.entries(labels).flatMap(([k, v]) => ['--label', `${k}=${v}`]), prefix]);
    // The bridge's gateway is this machine: a spec's server listening there is reachable from the
    // containers (webhook deliveries), and nothing else of the machine is added to what they reach.
    const hostAddress = await docker(['network', 'inspect', prefix, '--format', '{{range .IPAM.Config}}{{.Gateway}}{{end}}']);

    const t0 = Date.now();
    const [pg, nats, , search] = await Promise.all([
      startOne(
        'postgres',
        imageOf('postgres'),
        (c) =>
          c
            .withEnvironment({ POSTGRES_USER: PG_USER, POSTGRES_PASSWORD: PG_PASSWORD, POSTGRES_DB: o.databaseName })
            .withExposedPorts(5432)
            .withTmpFs({ '/var/lib/postgresql/data': 'rw,size=2g,uid=999,gid=999,mode=0700' })
            .withWaitStrategy(Wait.forHealthCheck()),
        infraTimeout,
      ),
      startOne(
        'nats',
        imageOf('nats'),
        (c) => c.withExposedPorts(4222).withWaitStrategy(Wait.forLogMessage(/Server is ready/)),
        infraTimeout,
      ),
      s3
        ? startOne(
            'minio',
            imageOf('minio'),
            (c) =>
              c
                .withEnvironment({ MINIO_ROOT_USER: MINIO_USER, MINIO_ROOT_PASSWORD: MINIO_PASSWORD })
                .withExposedPorts(9000)
                .withWaitStrategy(Wait.forHttp('/minio/health/ready', 9000).forStatusCode(200)),
            infraTimeout,
          )
        : Promise.resolve(null),
      opensearch
        ? startOne(
            'opensearch',
            imageOf('opensearch'),
            (c) =>
              c
                .withExposedPorts(9200)
                .withWaitStrategy(Wait.forHttp('/_cluster/health?wait_for_status=yellow&timeout=1s', 9200).forStatusCode(200)),
            o.infraTimeoutMs ?? 240_000,
          )
        : Promise.resolve(null),
    ]);
    o.say(`infrastructure ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    const inNet = (svc: string): string => `http://${name(svc)}:8080`;
    const env: Record<string, string> = {
      ...o.env,
      DATABASE_URL: `postgres://${PG_USER}:${PG_PASSWORD}@${name('postgres')}:5432/${o.databaseName}`,
      NATS_URL: `nats://${name('nats')}:4222`,
      PUBLIC_BASE_URL: `http://127.0.0.1:${gatewayPort}`,
      HOST: '0.0.0.0',
      PORT: '8080',
      ...(s3
        ? {
            FILES_STORAGE: 's3',
            S3_ENDPOINT: `http://${name('minio')}:9000`,
            S3_ACCESS_KEY: MINIO_USER,
            S3_SECRET_KEY: MINIO_PASSWORD,
            S3_BUCKET: 'rdm-e2e',
          }
        : { FILES_STORAGE: 'local', FILES_STORAGE_PATH: '/data/files', COMMUNITIES_STORAGE_PATH: '/data/communities' }),
      ...(opensearch ? { SEARCH_ENGINE: 'opensearch', SEARCH_URL: `http://${name('opensearch')}:9200` } : {}),
    };
    for (const svc of [...SERVICES, GATEWAY]) env[`${svc.toUpperCase()}_URL`] = inNet(svc);
    // Webhook deliveries may reach the specs' receivers on the host address only (and loopback, as given).
    env.WEBHOOKS_ALLOWED_CIDRS = [o.env.WEBHOOKS_ALLOWED_CIDRS, `${hostAddress}/32`].filter(Boolean).join(',');
    const image = imageOf('service');

    // Migrations in registry order, one short-lived container each.
    for (const svc of SERVICES) {
      const t = Date.now();
      const n = `migrate-${svc}`;
      await startOne(
        n,
        image,
        (c) =>
          c
            .withEnvironment(env)
            .withCommand([`dist/${svc}/main.js`, 'migrate'])
            .withWaitStrategy(Wait.forOneShotStartup()),
        180_000,
      );
      o.say(`${svc}: migrate ok (${((Date.now() - t) / 1000).toFixed(1)} s)`);
    }

    // Host folders the services (uid 65532) write to: they outlive a container's stop and start.
    for (const dir of [o.mailDir, join(o.dataDir, 'files'), join(o.dataDir, 'communities')]) {
      mkdirSync(dir, { recursive: true });
      chmodSync(dir, 0o777);
    }
    // Each service runs in the network namespace of a holder container that owns its name, address
    // and published port, so that a stopped service (stack.ts stopService: `docker stop` of the
    // service's own container) refuses connections at once, as a stopped process does. Without
    // the holder its name would vanish from the network's DNS and the gateway's lookup would wait
    // ~10 s for the (unreachable) upstream resolvers before answering 503.
    const holder = (svc: string, hostPort?: number) =>
      startOne(
        `${svc}-net`,
        image,
        (c) =>
          c
            .withEntrypoint(['/bin/sh', '-c', 'echo holder ready; exec sleep infinity'])
            .withExposedPorts(hostPort ? { container: 8080, host: hostPort } : 8080)
            .withWaitStrategy(Wait.forLogMessage(/holder ready/)),
        infraTimeout,
        prefix,
        name(svc),
      );
    const readyCheck = `node -e "require('http').get('http://127.0.0.1:8080/readyz',(r)=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1))"`;
    mkdirSync(E2E_VOCABULARY_IMPORT_DIR, { recursive: true });
    const serviceContainer = (svc: string, net: Started) =>
      startOne(
        svc,
        image,
        (c) => {
          let x = c
            .withEnvironment(svc === 'records' ? { ...env, MAIL_SINK: 'true', MAIL_SINK_DIR: '/mail', MAIL_SINK_PORT: '2525' } : env)
            .withCommand([`dist/${svc}/main.js`])
            .withTmpFs({ '/tmp': 'rw' })
            .withWaitStrategy(Wait.forSuccessfulCommand(readyCheck));
          if (svc === 'records') x = x.withBindMounts([{ source: o.mailDir, target: '/mail', mode: 'rw' }]);
          if (svc === 'files' || svc === 'communities') {
            x = x.withBindMounts([{ source: join(o.dataDir, svc), target: `/data/${svc}`, mode: 'rw' }]);
          }
          if (svc === 'vocabularies') {
            // Import sources named through the jobs API: the folder the specs write dumps into, read-only.
            x = x
              .withEnvironment({ ...env, VOCABULARIES_IMPORT_DIR: '/imports' })
              .withBindMounts([{ source: E2E_VOCABULARY_IMPORT_DIR, target: '/imports', mode: 'ro' }]);
          }
          return x;
        },
        readyTimeout,
        `container:${net.getId()}`,
        name(`${svc}-app`),
      );
    const all: string[] = [...SERVICES, GATEWAY];
    const holders = await Promise.all(all.map((svc) => holder(svc, svc === GATEWAY ? gatewayPort : undefined)));
    const holderOf = (svc: string): Started => holders[all.indexOf(svc)] as Started;
    const backends = await Promise.all(SERVICES.map((svc) => serviceContainer(svc, holderOf(svc))));
    const gw = await serviceContainer(GATEWAY, holderOf(GATEWAY));

    const host = (s: Started, port: number): string =>
      `${s.getHost() === 'localhost' ? '127.0.0.1' : s.getHost()}:${s.getMappedPort(port)}`;
    const databaseUrl = `postgres://${PG_USER}:${PG_PASSWORD}@${host(pg, 5432)}/${o.databaseName}`;
    const natsUrl = `nats://${host(nats, 4222)}`;
    // What runs on this machine against the stack (the users CLI of the specs) uses mapped ports.
    // Search too: the CLI indexes the users it writes inline (read-your-writes); with the engine's
    // in-network name, unresolvable here, that write failed and a search right after a create
    // depended on the indexer having caught up (users.test on OpenSearch, failing by timing).
    const hostEnv: Record<string, string> = {
      ...env,
      DATABASE_URL: databaseUrl,
      NATS_URL: natsUrl,
      ...(search ? { SEARCH_URL: `http://${host(search, 9200)}` } : {}),
    };
    const services: Record<string, ContainerService> = {};
    [...SERVICES, GATEWAY].forEach((svc, i) => {
      const s = svc === GATEWAY ? gw : (backends[i] as Started);
      const port = holderOf(svc).getMappedPort(8080);
      services[svc] = {
        pid: null,
        container: s.getId(),
        spec: {
          name: svc,
          cwd: REPO_ROOT,
          command: 'docker',
          args: ['start', s.getId()],
          env: hostEnv,
          port,
          readyUrl: `http://127.0.0.1:${port}/readyz`,
          logFile: join(o.logDir, `${svc}.log`),
        },
      };
    });
    const baseUrl = `http://127.0.0.1:${gatewayPort}`;
    await waitHttpOk(`${baseUrl}/readyz`, readyTimeout);
    return {
      runId,
      baseUrl,
      databaseUrl,
      natsUrl,
      hostAddress,
      services,
      stop: async () => {
        await stop();
        detach();
      },
    };
  } catch (err) {
    await stop();
    detach();
    throw err;
  }
}
