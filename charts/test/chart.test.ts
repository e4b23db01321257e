/**
 * charts/rdm, checked offline: helm lint --strict and helm template with three value sets, every
 * rendered object validated against the Kubernetes API schemas (kubernetes-models, and strictly
 * against the vendored schemas of Kubernetes 1.29 and 1.31 by kubernetes-validate), and the
 * policies that matter asserted on the output. Run: `make chart-check`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CHART,
  prepareTools,
  CUSTOM_KINDS,
  type Manifest,
  type Peer,
  SERVED_1_29_TO_1_31,
  type ValueSet,
  admits,
  matches,
  podTemplates,
  render,
  renderText,
  runHelm,
  validate,
  validateForKubernetes,
  valueArgs,
} from './render.js';

// Tools first, asynchronously (see prepareTools), before any describe renders.
beforeAll(prepareTools, 600_000);

// The service registry (proto/services.json) is the one list of deployables: the chart must match it.
const REGISTRY = JSON.parse(readFileSync(join(CHART, '../../proto/services.json'), 'utf8')) as {
  services: { name: string }[];
  gateway: { name: string };
};
const SERVICES = [...REGISTRY.services.map((s) => s.name), REGISTRY.gateway.name].sort();
// The gateway and web (landing pages) have no database: no migration Job.
const MIGRATED = SERVICES.filter((s) => s !== 'gateway' && s !== 'web');

const SETS: ValueSet[] = [
  { name: 'default (kind, in-cluster infrastructure)', files: [], set: [] },
  { name: 'production (external infrastructure, TLS, 3 replicas)', files: ['ci/production-values.yaml'], set: [] },
  {
    name: 'in-cluster OpenSearch, local storage on PVCs',
    files: [],
    set: ['opensearch.enabled=true', 'search.engine=opensearch', 'storage.engine=local', 'storage.local.persistence=true'],
  },
];

const byKind = (objs: Manifest[], kind: string) => objs.filter((o) => o.kind === kind);
const containersOf = (spec: Manifest): Manifest[] => [...(spec.initContainers ?? []), ...spec.containers];

describe.each(SETS)('charts/rdm with $name', (values) => {
  let objs: Manifest[];
  beforeAll(() => {
    objs = render(values);
  });

  it('passes helm lint --strict', () => {
    expect(runHelm(['lint', '--strict', CHART, ...valueArgs(values)])).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  it('renders only objects that validate against the Kubernetes API schemas', () => {
    expect(objs.length).toBeGreaterThan(30);
    const problems = objs.map((o) => [`${o.kind}/${o.metadata?.name}`, validate(o)]).filter(([, p]) => p !== null);
    expect(problems).toEqual([]);
  });

  it.each(['1.29.0', '1.31.0'])('validates strictly against the API schemas of Kubernetes %s (kubernetes-validate)', (version) => {
    const r = validateForKubernetes(renderText(values), version);
    expect(r.errors).toEqual([]);
    // A WARN is an object without a schema in that version: only the custom resources may have none.
    const unexpected = r.warnings.filter(
      (w) =>
        ![...CUSTOM_KINDS].some((k) => w.includes(`kind ${k.split('/').pop()} with api version ${k.split('/').slice(0, -1).join('/')}`)),
    );
    expect(unexpected).toEqual([]);
    expect(r.exitCode).toBe(0);
  });

  it('uses only API versions served by Kubernetes 1.29 and 1.31; custom resources only when asked for', () => {
    for (const o of objs) expect(`${o.kind} ${o.apiVersion}`).toBe(`${o.kind} ${SERVED_1_29_TO_1_31[o.kind]}`);
    const custom = objs.filter((o) => CUSTOM_KINDS.has(`${o.apiVersion}/${o.kind}`));
    expect(custom.length).toBe(values.files.includes('ci/production-values.yaml') ? 1 : 0);
  });

  it('lets a terminating pod keep accepting while it leaves the endpoints, inside its grace period', () => {
    const config = byKind(objs, 'ConfigMap').find((o) => o.metadata.name === 'rdm-config');
    const drainMs = Number(config?.data?.SHUTDOWN_DRAIN_DELAY_MS);
    expect(drainMs).toBeGreaterThanOrEqual(1000);
    for (const d of byKind(objs, 'Deployment')) {
      // The drain delay, then up to SHUTDOWN_TIMEOUT_MS (10 s) of draining, before the kubelet's SIGKILL.
      expect(d.spec.template.spec.terminationGracePeriodSeconds * 1000, d.metadata.name).toBeGreaterThan(drainMs + 10_000);
    }
  });

  it('gives an in-cluster PostgreSQL room for every service pool and the migration Jobs', () => {
    const pg = byKind(objs, 'StatefulSet').find((o) => o.metadata.name === 'rdm-postgresql');
    if (!pg) return; // external database (production values)
    const args: string[] = pg.spec.template.spec.containers[0].args ?? [];
    const max = Number(args.join(' ').match(/max_connections=(\d+)/)?.[1]);
    const config = byKind(objs, 'ConfigMap').find((o) => o.metadata.name === 'rdm-config');
    const pool = Number(config?.data?.DATABASE_POOL_MAX);
    const pods = byKind(objs, 'Deployment').reduce((n, d) => n + (d.spec.replicas ?? 1), 0);
    expect(pool).toBeGreaterThan(0);
    // Every replica's pool at once, plus one migration Job per migrated service (pool ≥ 2 each) and headroom.
    expect(max).toBeGreaterThanOrEqual(pods * pool + MIGRATED.length * 2 + 20);
  });

  it('has one Deployment per service with /readyz (the gateway: /healthz) and /healthz probes, resources and a read-only, non-root container', () => {
    const deployments = byKind(objs, 'Deployment');
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(SERVICES.map((s) => `rdm-${s}`));
    for (const d of deployments) {
      const pod = d.spec.template.spec;
      const [c] = pod.containers;
      expect(pod.securityContext.runAsNonRoot, d.metadata.name).toBe(true);
      expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
      expect(c.securityContext).toMatchObject({ runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
      expect(c.securityContext.capabilities.drop).toEqual(['ALL']);
      // The gateway (the edge) stays routable through an outage and answers 503 + Retry-After itself.
      const readiness = d.metadata.name === 'rdm-gateway' ? '/healthz' : '/readyz';
      expect(c.readinessProbe.httpGet, d.metadata.name).toEqual({ path: readiness, port: 'http' });
      expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(c.resources.requests.cpu && c.resources.requests.memory && c.resources.limits.memory).toBeTruthy();
      const svc = d.metadata.name.replace(/^rdm-/, '');
      expect(c.args).toEqual([`dist/${svc}/main.js`]);
      expect(pod.automountServiceAccountToken).toBe(false);
    }
  });

  it('runs no container as root, and gives every container resources and every server probes', () => {
    for (const { obj, spec } of podTemplates(objs)) {
      const podNonRoot = spec.securityContext?.runAsNonRoot === true && spec.securityContext?.runAsUser > 0;
      for (const c of containersOf(spec)) {
        const where = `${obj.kind}/${obj.metadata.name}/${c.name}`;
        expect(podNonRoot || (c.securityContext?.runAsNonRoot === true && c.securityContext?.runAsUser > 0), where).toBe(true);
        expect(c.securityContext?.runAsUser ?? 1, where).not.toBe(0);
        expect(c.securityContext?.allowPrivilegeEscalation, where).toBe(false);
        expect(c.resources?.requests?.memory && c.resources?.limits?.memory, where).toBeTruthy();
      }
      if (obj.kind !== 'Job') for (const c of spec.containers) expect(c.readinessProbe && c.livenessProbe, obj.metadata.name).toBeTruthy();
    }
  });

  it('pins every image (a tag, never latest)', () => {
    const images = podTemplates(objs).flatMap(({ spec }) => containersOf(spec).map((c) => c.image as string));
    expect(images.length).toBeGreaterThan(7);
    for (const image of images) expect(image).toMatch(/^[^:]+(:\d+)?\/?[^:]*:(?!latest$)[\w][\w.-]*$/);
  });

  it('routes /api of the ingress to the gateway Service', () => {
    const [ing] = byKind(objs, 'Ingress');
    const path = ing.spec.rules[0].http.paths.find((p: Manifest) => p.path === '/api');
    expect(path.pathType).toBe('Prefix');
    const gw = byKind(objs, 'Service').find((s) => s.metadata.name === path.backend.service.name);
    expect(gw?.spec.selector['app.kubernetes.io/name']).toBe('gateway');
    expect(gw?.spec.ports.map((p: Manifest) => p.name)).toContain(path.backend.service.port.name);
    const gwDeploy = byKind(objs, 'Deployment').find((d) => d.metadata.name === 'rdm-gateway');
    expect(matches({ matchLabels: gw?.spec.selector }, gwDeploy?.spec.template.metadata.labels)).toBe(true);
    expect(Boolean(ing.spec.tls)).toBe(values.files.includes('ci/production-values.yaml'));
  });

  it("routes the gateway's routes outside /api (OAI-PMH /oai2d, the sitemaps, the landing pages) through the ingress too", () => {
    const [ing] = byKind(objs, 'Ingress');
    const paths = ing.spec.rules[0].http.paths as Manifest[];
    const route = (p: string) => paths.find((x) => x.path === p);
    expect(route('/oai2d')?.pathType).toBe('Exact');
    expect(route('/sitemap.xml')?.pathType).toBe('Exact');
    expect(route('/sitemaps')?.pathType).toBe('Prefix');
    // The landing pages (web service, behind the gateway) that the API's `*_html` links name.
    for (const p of ['/records', '/communities', '/search', '/doi', '/static']) expect(route(p)?.pathType, p).toBe('Prefix');
    for (const p of paths) expect(p.backend.service.name).toBe(route('/api')?.backend.service.name);
  });

  it('migrates every service with a database in a hook Job before its pods (after the in-cluster database exists)', () => {
    const jobs = byKind(objs, 'Job');
    const inCluster = !values.files.includes('ci/production-values.yaml');
    expect(jobs.map((j) => j.metadata.name).sort()).toEqual(MIGRATED.map((s) => `rdm-${s}-migrate`));
    for (const j of jobs) {
      const svc = j.metadata.name.replace(/^rdm-|-migrate$/g, '');
      expect(j.metadata.annotations['helm.sh/hook']).toBe(inCluster ? 'post-install,pre-upgrade' : 'pre-install,pre-upgrade');
      expect(j.spec.template.spec.containers[0].args).toEqual([`dist/${svc}/main.js`, 'migrate']);
      expect(Boolean(j.spec.template.spec.initContainers)).toBe(inCluster);
    }
    // What the Jobs read exists before them: the ConfigMap (and the chart's Secret) are hooks of a lower weight.
    for (const o of [...byKind(objs, 'ConfigMap'), ...byKind(objs, 'Secret').filter((s) => s.metadata.name === 'rdm-secrets')]) {
      expect(o.metadata.annotations['helm.sh/hook']).toBe('pre-install,pre-upgrade');
      expect(Number(o.metadata.annotations['helm.sh/hook-weight'])).toBeLessThan(0);
    }
  });

  it('takes every secret value from values (or generates it) or the existing Secret, never inline in a pod', () => {
    const existing = values.files.includes('ci/production-values.yaml') ? 'rdm-production' : undefined;
    const secrets = byKind(objs, 'Secret');
    const names = new Set(secrets.map((s) => s.metadata.name));
    if (existing) {
      expect(names.has('rdm-secrets')).toBe(false);
      expect(secrets).toEqual([]);
    }
    const valuesText = readFileSync(join(CHART, 'values.yaml'), 'utf8') + values.set.join('\n');
    for (const s of secrets) {
      expect(s.data).toBeUndefined();
      for (const [k, v] of Object.entries(s.stringData as Record<string, string>)) {
        // Every value is a values.yaml value (the database URL is assembled from postgresql.*; the
        // identity secret and the webhooks' key, left empty in values.yaml, are generated: 48 random characters).
        if (k === 'DATABASE_URL') expect(v).toBe('postgres://rdm:rdm-dev-password@rdm-postgresql:5432/rdm');
        else if (k === 'IDENTITY_SECRET' || k === 'WEBHOOKS_SECRET_KEY') expect(v).toMatch(/^[A-Za-z0-9]{48}$/);
        else expect(valuesText, k).toContain(v);
      }
    }
    for (const { obj, spec } of podTemplates(objs)) {
      for (const c of containersOf(spec)) {
        for (const e of c.env ?? []) {
          if (/SECRET|PASSWORD|ACCESS_KEY|DATABASE_URL/.test(e.name)) expect(e.value, `${obj.metadata.name} ${e.name}`).toBeUndefined();
          const ref = e.valueFrom?.secretKeyRef?.name;
          if (ref && obj.kind !== 'StatefulSet') expect(ref).toBe(existing ?? 'rdm-secrets');
          if (ref) expect(existing === ref || names.has(ref), ref).toBe(true);
        }
      }
    }
  });

  it('lets NetworkPolicies admit gateway → services, services → infrastructure, and nothing else', () => {
    const policies = byKind(objs, 'NetworkPolicy');
    const ns = (name: string) => ({ 'kubernetes.io/metadata.name': name });
    const pods: Record<string, Peer> = Object.fromEntries(
      podTemplates(objs).map(({ obj, labels }) => [obj.metadata.name, { namespace: ns('rdm'), labels }]),
    );
    const stranger = { namespace: ns('rdm'), labels: { app: 'debug-shell' } };
    const otherNs = { namespace: ns('tenant-b'), labels: pods['rdm-users'].labels };
    const ingressCtl = { namespace: ns('ingress-nginx'), labels: { 'app.kubernetes.io/name': 'ingress-nginx' } };
    expect(admits(policies, ingressCtl, pods['rdm-gateway'], 'http')).toBe(true);
    expect(admits(policies, stranger, pods['rdm-gateway'], 'http')).toBe(false);
    for (const s of SERVICES.filter((n) => n !== 'gateway')) {
      expect(admits(policies, pods['rdm-gateway'], pods[`rdm-${s}`], 'http'), `gateway → ${s}`).toBe(true);
      expect(admits(policies, pods['rdm-records'], pods[`rdm-${s}`], 'http'), `records → ${s}`).toBe(true);
      expect(admits(policies, ingressCtl, pods[`rdm-${s}`], 'http'), `ingress → ${s}`).toBe(false);
      expect(admits(policies, stranger, pods[`rdm-${s}`], 'http'), `stranger → ${s}`).toBe(false);
      expect(admits(policies, otherNs, pods[`rdm-${s}`], 'http'), `other namespace → ${s}`).toBe(false);
      expect(admits(policies, pods['rdm-users-migrate'], pods[`rdm-${s}`], 'http'), `migration → ${s}`).toBe(false);
      if (pods['rdm-postgresql'])
        expect(admits(policies, pods['rdm-postgresql'], pods[`rdm-${s}`], 'http'), `postgresql → ${s}`).toBe(false);
    }
    const infra: [string, number][] = [
      ['rdm-postgresql', 5432],
      ['rdm-nats', 4222],
      ['rdm-opensearch', 9200],
    ];
    for (const [name, port] of infra.filter(([n]) => pods[n])) {
      expect(admits(policies, pods['rdm-users'], pods[name], port), `users → ${name}`).toBe(true);
      expect(admits(policies, pods['rdm-users-migrate'], pods[name], port), `migration → ${name}`).toBe(true);
      expect(admits(policies, stranger, pods[name], port), `stranger → ${name}`).toBe(false);
      expect(admits(policies, ingressCtl, pods[name], port), `ingress → ${name}`).toBe(false);
    }
    if (pods['rdm-minio']) {
      expect(admits(policies, pods['rdm-files'], pods['rdm-minio'], 9000)).toBe(true);
      expect(admits(policies, pods['rdm-communities'], pods['rdm-minio'], 9000)).toBe(true);
      expect(admits(policies, pods['rdm-gateway'], pods['rdm-minio'], 9000)).toBe(false);
      expect(admits(policies, pods['rdm-users'], pods['rdm-minio'], 9000)).toBe(false);
    }
    // Every pod of the release is isolated (selected by at least one policy).
    for (const [name, pod] of Object.entries(pods))
      expect(
        policies.some((p) => matches(p.spec.podSelector, pod.labels)),
        name,
      ).toBe(true);
  });

  it('mounts a writable /tmp (and /data for local storage) on every service, nothing else writable', () => {
    for (const d of byKind(objs, 'Deployment')) {
      const mounts = d.spec.template.spec.containers[0].volumeMounts.map((m: Manifest) => m.mountPath);
      const svc = d.metadata.name.replace(/^rdm-/, '');
      const local = values.set.includes('storage.engine=local') && ['files', 'communities'].includes(svc);
      expect(mounts).toEqual(local ? ['/tmp', `/data/${svc}`] : ['/tmp']);
    }
  });
});

describe('charts/rdm identity secret', () => {
  const secretOf = (set: string[]) => {
    const objs = render({ name: 'identity', files: [], set });
    const secret = objs.find((o) => o.kind === 'Secret' && o.metadata.name === 'rdm-secrets');
    return secret?.stringData?.IDENTITY_SECRET as string | undefined;
  };
  it('generates a random secret when none is given (never the public development default)', () => {
    const a = secretOf([]);
    const b = secretOf([]);
    expect(a).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(b).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(a).not.toBe(b);
  });
  it('uses the given secret', () => {
    expect(secretOf(['secrets.identitySecret=a-secret-of-sufficient-length-0123456789'])).toBe('a-secret-of-sufficient-length-0123456789');
  });
});

describe('charts/rdm values.schema.json', () => {
  const fails = (set: string[]) => () => runHelm(['template', 'rdm', CHART, ...set.flatMap((s) => ['--set', s])]);
  it.each([
    ['a latest tag', ['image.tag=latest']],
    ['an unknown search engine', ['search.engine=solr']],
    ['an unknown key', ['ingress.hostname=x']],
    ['an unknown service', ['services.billing.replicas=1']],
    ['a short identity secret', ['secrets.identitySecret=short']],
    ['the public development identity secret', ['secrets.identitySecret=dev-identity-secret-change-me']],
    ['a non-URL NATS address', ['nats.enabled=false', 'nats.url=localhost:4222']],
  ])('refuses %s', (_what, set) => {
    expect(fails(set)).toThrow(/values don't meet the specifications of the schema/);
  });

  it('refuses local storage with several replicas, and external infrastructure without its address', () => {
    expect(fails(['storage.engine=local', 'services.files.replicas=2'])).toThrow(/storage.engine=local keeps data on one pod/);
    expect(fails(['nats.enabled=false'])).toThrow(/nats.url is required/);
    expect(fails(['postgresql.enabled=false'])).toThrow(/secrets.databaseUrl is required/);
    expect(fails(['minio.enabled=false'])).toThrow(/storage.s3.endpoint is required/);
    expect(fails(['doi.provider=datacite', 'secrets.datacitePassword=pw'])).toThrow(/doi.datacite.username is required/);
    expect(fails(['doi.provider=datacite', 'doi.datacite.username=AB.CD'])).toThrow(/secrets.datacitePassword is required/);
    expect(fails(['doi.provider=crossref'])).toThrow(/values don't meet the specifications of the schema/);
  });

  it('gives the DataCite settings to records only, its password from the Secret', () => {
    const objs = render({
      name: 'datacite',
      files: [],
      set: ['doi.provider=datacite', 'doi.datacite.username=AB.CD', 'secrets.datacitePassword=pw'],
    });
    const config = objs.find((o) => o.kind === 'ConfigMap')?.data ?? {};
    expect(config).toMatchObject({ DOI_PROVIDER: 'datacite', DATACITE_USERNAME: 'AB.CD', DATACITE_URL: 'https://api.test.datacite.org' });
    expect(JSON.stringify(config)).not.toContain('pw');
    for (const { obj, spec } of podTemplates(objs)) {
      const env = containersOf(spec).flatMap((c) => c.env ?? []);
      const password = env.find((e: Manifest) => e.name === 'DATACITE_PASSWORD');
      if (obj.metadata.labels?.['app.kubernetes.io/name'] === 'records' && obj.kind === 'Deployment') {
        expect(password?.valueFrom?.secretKeyRef?.key).toBe('DATACITE_PASSWORD');
      } else if (obj.metadata.labels?.['app.kubernetes.io/name'] !== 'records') {
        expect(password, `${obj.kind}/${obj.metadata.name}`).toBeUndefined();
      }
    }
  });
});

describe('charts/rdm client address', () => {
  /** The gateway's TRUST* variables with `set`; no other pod gets any. */
  function trust(set: string[]): Record<string, string> {
    const out: Record<string, string> = {};
    for (const { obj, spec } of podTemplates(render({ name: 'trust', files: [], set }))) {
      const env = containersOf(spec)
        .flatMap((c) => c.env ?? [])
        .filter((e: Manifest) => /^TRUST/.test(e.name));
      if (obj.metadata.labels?.['app.kubernetes.io/name'] !== 'gateway') expect(env, `${obj.kind}/${obj.metadata.name}`).toEqual([]);
      else for (const e of env) out[e.name] = e.value;
    }
    return out;
  }

  it('makes the ingress controller the one trusted hop of the gateway (the client address is what it appended)', () => {
    expect(trust([])).toEqual({ TRUST_PROXY_HOPS: '1' });
    expect(trust(['ingress.trustedHops=2'])).toEqual({ TRUST_PROXY_HOPS: '2' });
    // No ingress: nothing in front is trusted.
    expect(trust(['ingress.enabled=false'])).toEqual({ TRUST_PROXY_HOPS: '0' });
    // A list of trusted networks instead (the gateway refuses both at once).
    expect(trust(['services.gateway.env.TRUSTED_PROXIES=10.0.0.0/8'])).toEqual({ TRUSTED_PROXIES: '10.0.0.0/8' });
  });
});

describe('charts/rdm and the service registry', () => {
  it('deploys exactly the services of proto/services.json', () => {
    const values = runHelm(['show', 'values', CHART]);
    const after = values.slice(values.indexOf('\nservices:\n') + '\nservices:\n'.length);
    const block = after.slice(0, after.search(/^\S/m) === -1 ? undefined : after.search(/^\S/m));
    const names = [...block.matchAll(/^ {2}([a-z]+):$/gm)].map((m) => m[1]);
    expect(names.sort()).toEqual(SERVICES);
  });
});

describe('the per-version validator itself', () => {
  it('refuses an unknown field and flags an API version the Kubernetes version no longer serves', () => {
    const bad = [
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n  selector: {matchLabels: {a: b}}',
      '  template:\n    metadata: {labels: {a: b}}\n    spec: {containers: [{name: c, image: "i:1", bogusField: 1}]}',
      '---\napiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: y}\nspec: {minAvailable: 1}\n',
    ].join('\n');
    const r = validateForKubernetes(bad, '1.29.0');
    expect(r.exitCode).not.toBe(0);
    expect(r.errors.join('\n')).toMatch(/bogusField/);
    expect(r.warnings.join('\n')).toMatch(/PodDisruptionBudget with api version policy\/v1beta1/);
  });
});

describe('charts/rdm images and mail', () => {
  const recordsEnv = (objs: Manifest[]): Manifest[] => {
    const records = objs.find((o) => o.kind === 'Deployment' && o.metadata.labels?.['app.kubernetes.io/name'] === 'records');
    return records?.spec.template.spec.containers[0].env ?? [];
  };

  it('uses the images built here by default, each with its pull policy, and the given ones otherwise', () => {
    const images = (objs: Manifest[]) =>
      podTemplates(objs).flatMap(({ spec }) => containersOf(spec).map((c) => `${c.image} ${c.imagePullPolicy}`));
    const local = images(render({ name: 'local', files: [], set: ['opensearch.enabled=true', 'search.engine=opensearch'] }));
    expect(new Set(local)).toEqual(
      new Set([
        'rdm:dev IfNotPresent',
        'rdm-postgres:15 IfNotPresent',
        'rdm-nats:2.9.10 IfNotPresent',
        'rdm-minio:RELEASE.2025-09-07T16-13-09Z IfNotPresent',
        'rdm-opensearch:2.19.1 IfNotPresent',
      ]),
    );
    const other = images(
      render({
        name: 'registry',
        files: [],
        set: ['image.pullPolicy=Never', 'nats.image.repository=nats', 'nats.image.tag=2.10.24', 'nats.image.pullPolicy=Always'],
      }),
    );
    expect(other).toContain('nats:2.10.24 Always');
    expect(other).toContain('rdm:dev Never');
  });

  it('gives records the development mail sink only when asked (the default values, for kind), and refuses neither', () => {
    const env = recordsEnv(render({ name: 'default', files: [], set: [] }));
    expect(env.find((e) => e.name === 'MAIL_SINK')?.value).toBe('true');
    expect(env.find((e) => e.name === 'SMTP_URL')).toBeUndefined();
    expect(() => runHelm(['template', 'rdm', CHART, '--set', 'smtp.devSink=false'])).toThrow(
      /smtp\.host is required \(records sends mail\)/,
    );
  });

  it('builds SMTP_URL from host, port and TLS, with the credentials from a Secret (never in the manifests)', () => {
    const env = recordsEnv(render({ name: 'production', files: ['ci/production-values.yaml'], set: [] }));
    expect(env.find((e) => e.name === 'MAIL_SINK')).toBeUndefined();
    expect(env.find((e) => e.name === 'SMTP_USERNAME')?.valueFrom?.secretKeyRef).toEqual({ name: 'rdm-production', key: 'SMTP_USERNAME' });
    expect(env.find((e) => e.name === 'SMTP_PASSWORD')?.valueFrom?.secretKeyRef).toEqual({ name: 'rdm-production', key: 'SMTP_PASSWORD' });
    const names = env.map((e) => e.name);
    // $(VAR) expansion needs the variables before SMTP_URL.
    expect(names.indexOf('SMTP_URL')).toBeGreaterThan(names.indexOf('SMTP_PASSWORD'));
    expect(env.find((e) => e.name === 'SMTP_URL')?.value).toBe('smtps://$(SMTP_USERNAME):$(SMTP_PASSWORD)@smtp.example.org:465');
    const plain = recordsEnv(render({ name: 'starttls', files: [], set: ['smtp.host=mail.example.org', 'smtp.devSink=false'] }));
    expect(plain.find((e) => e.name === 'SMTP_URL')?.value).toBe('smtp://mail.example.org:587?requireTLS=true');
    // Only records and webhooks (a disabled subscription's owner is told) send mail.
    const senders: string[] = [];
    for (const { obj, spec } of podTemplates(render({ name: 'production', files: ['ci/production-values.yaml'], set: [] }))) {
      const app = obj.metadata.labels?.['app.kubernetes.io/name'];
      if (app === 'records' || app === 'webhooks') {
        if (obj.kind === 'Deployment') senders.push(app);
        continue;
      }
      expect(
        containersOf(spec)
          .flatMap((c) => c.env ?? [])
          .map((e: Manifest) => e.name),
      ).not.toContain('SMTP_URL');
    }
    expect(senders.sort()).toEqual(['records', 'webhooks']);
  });
});
