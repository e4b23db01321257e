/**
 * Offline rendering and validation of charts/rdm for the chart tests: the pinned helm and
 * kubernetes-models come from `scripts/infra/helm.sh` (installed into .tools once, then cached).
 * When to use: only from charts/test/*.test.ts.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root. */
export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
/** The umbrella chart. */
export const CHART = join(ROOT, 'charts', 'rdm');
const TOOL = join(ROOT, 'scripts', 'infra', 'helm.sh');

/** A rendered Kubernetes object (loosely typed; the tests navigate it). */
export type Manifest = Record<string, any>;

let helmBin: string | undefined;
let modulesDir: string | undefined;
let validatorBin: string | undefined;

/** The last line `scripts/infra/helm.sh <what>` prints (a path), without blocking the test worker. */
async function tool(what: string): Promise<string> {
  const { stdout } = await promisify(execFile)('bash', [TOOL, what], { encoding: 'utf8', maxBuffer: 16 << 20 });
  return stdout.trim().split('\n').pop() as string;
}

/**
 * Install (first run: downloads and builds) and locate helm, kubernetes-models and the schema
 * validator. Call it from a `beforeAll`: why asynchronously, a first install takes minutes on a
 * loaded machine, and a test worker blocked that long misses its RPC deadline with the runner.
 */
export async function prepareTools(): Promise<void> {
  helmBin ??= await tool('path');
  modulesDir ??= await tool('models');
  validatorBin ??= await tool('schemas');
}

/** Path of the pinned helm binary (installed on first use). */
export function helm(): string {
  helmBin ??= execFileSync('bash', [TOOL, 'path'], { encoding: 'utf8' }).trim().split('\n').pop() as string;
  return helmBin;
}

/** `require` resolving from the tools' node_modules (kubernetes-models, yaml). */
function toolsRequire(): NodeJS.Require {
  modulesDir ??= execFileSync('bash', [TOOL, 'models'], { encoding: 'utf8' }).trim().split('\n').pop() as string;
  return createRequire(join(modulesDir, 'package.json'));
}

/** Run helm; returns stdout, throws with stderr on failure. */
export function runHelm(args: string[]): string {
  try {
    return execFileSync(helm(), args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`helm ${args.join(' ')} failed: ${e.stderr || e.message}`);
  }
}

/** A value set: `-f` files (relative to the chart) and `--set` pairs. */
export interface ValueSet {
  name: string;
  files: string[];
  set: string[];
}

/** helm flags of a value set. */
export function valueArgs(v: ValueSet): string[] {
  return [...v.files.flatMap((f) => ['-f', join(CHART, f)]), ...v.set.flatMap((s) => ['--set', s])];
}

/** `helm template` of the chart with a value set, as helm prints it (multi-document YAML). */
export function renderText(v: ValueSet, release = 'rdm'): string {
  return runHelm(['template', release, CHART, '--namespace', 'rdm', ...valueArgs(v)]);
}

/** `helm template` of the chart with a value set, parsed into objects (empty documents dropped). */
export function render(v: ValueSet, release = 'rdm'): Manifest[] {
  const out = renderText(v, release);
  const YAML = toolsRequire()('yaml') as {
    parseAllDocuments(src: string, o: object): { errors: { message: string }[]; toJSON(): unknown }[];
  };
  return YAML.parseAllDocuments(out, { uniqueKeys: true }).flatMap((d) => {
    if (d.errors.length) throw new Error(`unparsable YAML from helm: ${d.errors[0]?.message}`);
    const obj = d.toJSON() as Manifest | null;
    return obj ? [obj] : [];
  });
}

/** Kinds that are custom resources: no schema in kubernetes-models, checked by the tests instead. */
export const CUSTOM_KINDS = new Set(['monitoring.coreos.com/v1/ServiceMonitor']);

/**
 * Validate one object against the Kubernetes OpenAPI schema shipped in kubernetes-models.
 * Returns null when valid, else the validation message.
 */
export function validate(obj: Manifest): string | null {
  const [group, version] = String(obj.apiVersion).includes('/') ? String(obj.apiVersion).split('/') : ['', obj.apiVersion];
  if (CUSTOM_KINDS.has(`${obj.apiVersion}/${obj.kind}`)) return null;
  const path = group ? `kubernetes-models/${group}/${version}/${obj.kind}` : `kubernetes-models/${version}/${obj.kind}`;
  let Model: new (o: Manifest) => { validate(): void };
  try {
    Model = (toolsRequire()(path) as Record<string, typeof Model>)[obj.kind];
  } catch {
    return `no schema for ${obj.apiVersion} ${obj.kind}`;
  }
  try {
    new Model(obj).validate();
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/** What kubernetes-validate said of a multi-document manifest for one Kubernetes version. */
export interface VersionedValidation {
  exitCode: number;
  /** `ERROR` lines: objects that do not validate (strict: unknown fields too). */
  errors: string[];
  /** `WARN` lines: objects with no schema in that version (removed API versions, custom resources). */
  warnings: string[];
}

/**
 * Validate manifests strictly against the JSON schemas of one Kubernetes version (e.g. `1.29.0`)
 * vendored by kubernetes-validate (installed by `scripts/infra/helm.sh schemas`; offline once cached).
 */
export function validateForKubernetes(yamlText: string, version: string): VersionedValidation {
  validatorBin ??= execFileSync('bash', [TOOL, 'schemas'], { encoding: 'utf8' }).trim().split('\n').pop() as string;
  const dir = mkdtempSync(join(tmpdir(), 'rdm-k8s-'));
  try {
    const file = join(dir, 'manifests.yaml');
    writeFileSync(file, yamlText);
    const r = spawnSync(validatorBin, ['--strict', '--quiet', '-k', version, file], { encoding: 'utf8', maxBuffer: 64 << 20 });
    if (r.error) throw r.error;
    const lines = `${r.stdout}\n${r.stderr}`.split('\n').map((l) => l.replace(file, '<manifests>'));
    return {
      exitCode: r.status ?? -1,
      errors: lines.filter((l) => l.startsWith('ERROR')),
      warnings: lines.filter((l) => l.startsWith('WARN')),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * API versions served by both Kubernetes 1.29 and 1.31 (none of these is deprecated or removed
 * in that range), for the kinds the chart renders.
 */
export const SERVED_1_29_TO_1_31: Readonly<Record<string, string>> = {
  ConfigMap: 'v1',
  Secret: 'v1',
  Service: 'v1',
  PersistentVolumeClaim: 'v1',
  Deployment: 'apps/v1',
  StatefulSet: 'apps/v1',
  Job: 'batch/v1',
  PodDisruptionBudget: 'policy/v1',
  HorizontalPodAutoscaler: 'autoscaling/v2',
  Ingress: 'networking.k8s.io/v1',
  NetworkPolicy: 'networking.k8s.io/v1',
  ServiceMonitor: 'monitoring.coreos.com/v1',
};

/** Pod templates of workloads: [workload, pod spec, pod labels]. */
export function podTemplates(objs: Manifest[]): { obj: Manifest; spec: Manifest; labels: Record<string, string> }[] {
  return objs
    .filter((o) => ['Deployment', 'StatefulSet', 'Job'].includes(o.kind))
    .map((o) => ({ obj: o, spec: o.spec.template.spec, labels: o.spec.template.metadata?.labels ?? {} }));
}

/** Label selector match (matchLabels and In/NotIn/Exists/DoesNotExist expressions). */
export function matches(selector: Manifest | undefined, labels: Record<string, string>): boolean {
  if (!selector) return true;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = e.key in labels;
    if (e.operator === 'In' && !(has && e.values.includes(labels[e.key]))) return false;
    if (e.operator === 'NotIn' && has && e.values.includes(labels[e.key])) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

/** A pod as seen by NetworkPolicy evaluation. */
export interface Peer {
  namespace: Record<string, string>;
  labels: Record<string, string>;
}

/**
 * Whether NetworkPolicies admit a connection from `from` to pod `to` (same namespace `rdm` unless
 * `from.namespace` says otherwise) on the named container port: ingress isolation semantics
 * (a pod selected by any Ingress policy accepts only what one of them allows).
 */
export function admits(policies: Manifest[], from: Peer, to: Peer, port: string | number): boolean {
  const selecting = policies.filter(
    (p) => matches(p.spec.podSelector, to.labels) && (p.spec.policyTypes ?? ['Ingress']).includes('Ingress'),
  );
  if (selecting.length === 0) return true;
  const sameNs = from.namespace['kubernetes.io/metadata.name'] === 'rdm';
  return selecting.some((p) =>
    (p.spec.ingress ?? []).some((rule: Manifest) => {
      const portOk = !rule.ports || rule.ports.some((pp: Manifest) => pp.port === port);
      const peerOk =
        !rule.from ||
        rule.from.some((peer: Manifest) => {
          if (peer.namespaceSelector && peer.podSelector)
            return matches(peer.namespaceSelector, from.namespace) && matches(peer.podSelector, from.labels);
          if (peer.namespaceSelector) return matches(peer.namespaceSelector, from.namespace);
          if (peer.podSelector) return sameNs && matches(peer.podSelector, from.labels);
          return false;
        });
      return portOk && peerOk;
    }),
  );
}
