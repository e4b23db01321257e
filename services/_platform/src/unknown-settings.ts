/**
 * Unknown settings: environment variables that look like settings of this project but that no
 * service reads, reported once at start (a warning, never a refusal), so a misspelt or retired
 * variable (`OAI_ADMIN_EMIAL`, `FILES_MAX_FILE_BYTE`) does not silently leave its default in place.
 *
 * The rule, precise so that it never cries wolf about the rest of the environment (PATH, NODE_*,
 * OTEL_*, HTTP_PROXY, NATS_* of the nats CLI, the E2E_*, BENCH_* of the tests):
 * - only names in the project's own families are looked at: `RDM_`, one per service (`RECORDS_`,
 *   `FILES_`, …, and `COMMUNITY_`), and the prefixes only this project uses (`SETTING_FAMILIES`);
 * - a name is known when some service declares it (`DECLARED_SETTINGS`, generated from every
 *   service's `configProperties` by `pnpm gen:contracts`: services share one environment in
 *   `make up`, e2e and the chart, so a setting of records is no surprise to files), when a tool
 *   of the project reads or sets it outside the loader (`TOOL_SETTINGS`: `make up`'s
 *   `<SVC>_PORT` and `GATEWAY_URL`…), or when it is a well-known variable of other software in one
 *   of the families (`FOREIGN_SETTINGS`: `REQUESTS_CA_BUNDLE` of Python's requests);
 * - each service reports only the families it is concerned with, so a shared environment shows a
 *   typo once per service that could have meant it: `RDM_` every service; a service's own prefix
 *   that service; any other family the services declaring a setting in it (all when none does);
 * - link variables a container runtime injects (`<NAME>_SERVICE_HOST`, `<NAME>_PORT_5000_TCP…`,
 *   `<NAME>_PORT=tcp://…`) are not settings and are skipped.
 * A close declared name is suggested (edit distance, at most 2, or 3 for long names).
 *
 * When to use: every service's start (`serviceMain`, the gateway's main) calls
 * `reportUnknownSettings` right after its configuration loaded. Not for commands (`migrate`,
 * `reindex`): the serving start reports it, once.
 */
import { GATEWAY_SERVICE, SERVICE_REGISTRY } from '../../../proto/gen/registry.js';
import { DECLARED_SETTINGS } from '../../../proto/gen/settings.js';
import type { Logger } from './logger.js';

/** Variables the project's tools read or set outside any service's configuration (never reported). */
export const TOOL_SETTINGS: Readonly<Record<string, string>> = {
  RDM_EVENTS_DIR: 'every service (platform events.ts): folder of the event schemas',
  RDM_STACK_ROOT: 'scripts/up.ts: the checkout whose services `make up` runs',
  RDM_DATA_DIR: 'scripts/infra: data folder of the local servers',
  RDM_TOOLS_DIR: 'scripts/infra: folder of the downloaded tools',
  RDM_CPU_PROF_DIR: 'scripts/bench: where CPU profiles are written',
  GATEWAY_URL: "scripts/up.ts: given to every child beside the gateway's <SVC>_URL settings",
  ...Object.fromEntries(
    [...SERVICE_REGISTRY, GATEWAY_SERVICE].map((s) => [`${s.name.toUpperCase()}_PORT`, `scripts/up.ts: port of ${s.name} in \`make up\``]),
  ),
};

/** Well-known variables of other software that share one of the families (never reported). */
export const FOREIGN_SETTINGS: readonly string[] = [
  // Python's requests library (the machine's CA bundle, often set system-wide).
  'REQUESTS_CA_BUNDLE',
];

/** Services whose own prefix is a family (`<NAME>_`), and the extra one of communities. */
const SERVICE_FAMILIES: Readonly<Record<string, string>> = {
  GATEWAY_: 'gateway',
  USERS_: 'users',
  VOCABULARIES_: 'vocabularies',
  RECORDS_: 'records',
  FILES_: 'files',
  REQUESTS_: 'requests',
  COMMUNITIES_: 'communities',
  COMMUNITY_: 'communities',
};

/**
 * Prefixes of the project's settings that common tools do not use (checked longest first). Not
 * listed on purpose: `NODE_`, `OTEL_` (standard OpenTelemetry variables), `HTTP_` (`HTTP_PROXY`),
 * `NATS_` (the nats CLI), `DATABASE_`, `LOG_`, `PUBLIC_`, `BODY_`, `MAIL_` and the like.
 */
export const SETTING_FAMILIES: readonly string[] = [
  'RDM_',
  ...Object.keys(SERVICE_FAMILIES),
  'OAI_',
  'DOI_',
  'DATACITE_',
  'SITEMAP_',
  'SEARCH_',
  'S3_',
  'RATE_LIMIT_',
  'UPSTREAM_',
  'TOKEN_CACHE_',
  'CORS_',
  'ABUSE_',
  'EMBARGO_',
  'ENTRY_CACHE_',
  'EARLY_ANSWER_',
  'READY_UPSTREAMS',
];

/** One unknown variable, with the declared name it probably meant. */
export interface UnknownSetting {
  name: string;
  /** A declared name close to `name`, and the services that declare it. */
  suggestion?: { name: string; services: readonly string[] };
}

const LINK_VARIABLE = /_SERVICE_(HOST|PORT)(_|$)|_PORT_\d+_(TCP|UDP|SCTP)(_|$)/;

/** Levenshtein distance (small strings only). */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

function suggest(name: string, declared: Readonly<Record<string, readonly string[]>>): UnknownSetting['suggestion'] {
  const limit = name.length >= 10 ? 3 : 2;
  let best: { name: string; d: number } | undefined;
  for (const candidate of Object.keys(declared).sort()) {
    const d = distance(name, candidate);
    if (d <= limit && (!best || d < best.d)) best = { name: candidate, d };
  }
  return best ? { name: best.name, services: declared[best.name] } : undefined;
}

/** The services that report an unknown name of `family`. */
function owners(family: string, declared: Readonly<Record<string, readonly string[]>>): readonly string[] | 'all' {
  if (family === 'RDM_') return 'all';
  const own = SERVICE_FAMILIES[family];
  if (own) return [own];
  const services = new Set(
    Object.entries(declared)
      .filter(([name]) => name.startsWith(family))
      .flatMap(([, s]) => s),
  );
  return services.size ? [...services] : 'all';
}

/**
 * The variables of `env` that `service` reports as unknown (see the file header), sorted by name.
 * `declared` defaults to the generated registry of every service's settings.
 */
export function unknownSettings(
  service: string,
  env: Readonly<Record<string, string | undefined>>,
  declared: Readonly<Record<string, readonly string[]>> = DECLARED_SETTINGS,
): UnknownSetting[] {
  const families = [...SETTING_FAMILIES].sort((a, b) => b.length - a.length);
  const out: UnknownSetting[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || name in declared || name in TOOL_SETTINGS || FOREIGN_SETTINGS.includes(name)) continue;
    const family = families.find((f) => name.startsWith(f));
    if (!family) continue;
    if (LINK_VARIABLE.test(name) || (name.endsWith('_PORT') && /^(tcp|udp|sctp):\/\//.test(value))) continue;
    const who = owners(family, declared);
    if (who !== 'all' && !who.includes(service)) continue;
    const suggestion = suggest(name, declared);
    out.push({ name, ...(suggestion ? { suggestion } : {}) });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** Log one warning naming every unknown setting `service` sees in `env` (nothing when there is none); returns them. */
export function reportUnknownSettings(
  service: string,
  env: Readonly<Record<string, string | undefined>>,
  logger: Pick<Logger, 'warn'>,
  declared?: Readonly<Record<string, readonly string[]>>,
): UnknownSetting[] {
  const unknown = unknownSettings(service, env, declared);
  if (unknown.length === 0) return unknown;
  const described = unknown.map((u) =>
    u.suggestion ? `${u.name} (did you mean ${u.suggestion.name}, a setting of ${u.suggestion.services.join(', ')}?)` : u.name,
  );
  logger.warn(
    {
      unknownSettings: unknown.map((u) => u.name),
      suggestions: Object.fromEntries(unknown.filter((u) => u.suggestion).map((u) => [u.name, u.suggestion?.name])),
    },
    `unknown settings in the environment, ignored (no service of this project reads them): ${described.join('; ')}`,
  );
  return unknown;
}
