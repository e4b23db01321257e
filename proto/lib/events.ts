/**
 * Event contracts: every domain event envelope is checked against its JSON Schema in
 * `proto/events/<svc>/<entity>.<verb>.v<N>.json` before it is written to an outbox.
 *
 * When to use: the platform's `writeOutbox` calls `checkEvent` for you (through its
 * `validateEvent`, which turns a `ContractError` into a 500 `AppError`); call it directly only for
 * events built elsewhere. `eventSubjects(svc)` lists the subjects a service's stream must capture
 * (never `rdm.<svc>.>`, which would also capture its RPC subjects). The schemas are loaded and
 * compiled once, on first use. Tests may add schemas for their own subjects with
 * `registerEventSchema`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { ContractError } from './errors.js';

/** The envelope every domain event travels in (also the outbox `payload`). */
export interface EventEnvelope<T = Record<string, unknown>> {
  /** uuid; equals the outbox id and the `Nats-Msg-Id`. */
  id: string;
  /** The subject, e.g. `rdm.records.record.published`. */
  type: string;
  /** Schema version of `data` (the `vN` of the schema file). */
  version: number;
  /** ISO 8601 time the change happened. */
  occurred_at: string;
  /** The entity that changed and its revision after the change. */
  aggregate: { type: string; id: string; revision: number };
  /** Event-specific payload, thin: consumers needing more call the owner's API. */
  data: T;
}

type AddFormats = (ajv: Ajv2020) => unknown;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  (addFormatsModule as unknown as AddFormats)) as AddFormats;

const FILE_RE = /^([a-z][a-z0-9_-]*)\.([a-z][a-z0-9_-]*)\.v(\d+)\.json$/;

let ajv: Ajv2020 | undefined;
let validators: Map<string, ValidateFunction> | undefined;

/** Directory holding the event schemas: `RDM_EVENTS_DIR`, else `<repo>/proto/events` found upwards from this file. */
export function eventsDir(): string {
  const fromEnv = process.env.RDM_EVENTS_DIR;
  if (fromEnv) return fromEnv;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'proto', 'events');
    if (existsSync(candidate) && statSync(candidate).isDirectory()) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('proto/events not found above this module (set RDM_EVENTS_DIR)');
    dir = parent;
  }
}

const key = (subject: string, version: number) => `${subject}@v${version}`;

function getAjv(): Ajv2020 {
  if (!ajv) {
    ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
    addFormats(ajv);
  }
  return ajv;
}

function listJson(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...listJson(full));
    else if (name.endsWith('.json')) out.push(full);
  }
  return out;
}

/** Load and compile every schema under the events directory (once). */
function load(): Map<string, ValidateFunction> {
  if (validators) return validators;
  const a = getAjv();
  const map = new Map<string, ValidateFunction>();
  const root = eventsDir();
  for (const file of listJson(root)) {
    const rel = relative(root, file).split(sep);
    const m = rel.length === 2 ? FILE_RE.exec(rel[1]) : null;
    if (!m) throw new Error(`Event schema ${rel.join('/')} is not named <svc>/<entity>.<verb>.v<N>.json`);
    const subject = `rdm.${rel[0]}.${m[1]}.${m[2]}`;
    const version = Number(m[3]);
    const schema = JSON.parse(readFileSync(file, 'utf8')) as {
      properties?: { type?: { const?: unknown }; version?: { const?: unknown } };
    };
    // Why: a copy-pasted schema with the wrong subject would silently validate other events.
    if (schema.properties?.type?.const !== subject || schema.properties?.version?.const !== version) {
      throw new Error(`Event schema ${rel.join('/')} must pin type = ${subject} and version = ${version}`);
    }
    map.set(key(subject, version), a.compile(schema));
  }
  validators = map;
  return map;
}

/** Build the JSON Schema of a whole envelope around a `data` schema. */
export function envelopeSchema(subject: string, version: number, data: Record<string, unknown>): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `urn:rdm:events:${subject}:v${version}`,
    title: `${subject} v${version}`,
    type: 'object',
    additionalProperties: false,
    required: ['id', 'type', 'version', 'occurred_at', 'aggregate', 'data'],
    properties: {
      id: { type: 'string', format: 'uuid' },
      type: { const: subject },
      version: { const: version },
      occurred_at: { type: 'string', format: 'date-time' },
      aggregate: {
        type: 'object',
        additionalProperties: false,
        required: ['type', 'id', 'revision'],
        properties: {
          type: { type: 'string', minLength: 1 },
          id: { type: 'string', minLength: 1 },
          revision: { type: 'integer', minimum: 0 },
        },
      },
      data,
    },
  };
}

/** Add (or replace) the schema of one subject/version at runtime; for tests and tools. */
export function registerEventSchema(subject: string, version: number, data: Record<string, unknown>): void {
  const map = load();
  const a = getAjv();
  const schema = envelopeSchema(subject, version, data);
  a.removeSchema(schema.$id as string);
  map.set(key(subject, version), a.compile(schema));
}

/** Subjects with a schema, optionally only those of one service (`rdm.<svc>.…`). */
export function eventSubjects(service?: string): string[] {
  const subjects = new Set<string>();
  for (const k of load().keys()) {
    const subject = k.slice(0, k.lastIndexOf('@'));
    if (!service || subject.startsWith(`rdm.${service}.`)) subjects.add(subject);
  }
  return [...subjects].sort();
}

/**
 * Throw a `ContractError` (code `invalid_event`) naming the subject when `envelope` does not
 * match the schema of `subject` at `envelope.version`, or when there is no such schema.
 */
export function checkEvent(subject: string, envelope: unknown): asserts envelope is EventEnvelope {
  const version = (envelope as { version?: unknown } | null)?.version;
  const v = typeof version === 'number' ? version : 1;
  const validate = load().get(key(subject, v));
  if (!validate) {
    throw new ContractError('invalid_event', `No event schema for ${subject} v${v} under proto/events.`);
  }
  if (!validate(envelope)) {
    const details = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`).join('; ');
    throw new ContractError('invalid_event', `Event ${subject} v${v} does not match its schema: ${details}`);
  }
}
