/**
 * Loading of the record write form (POST /api/records, PUT …/draft) and strict validation at
 * publish, InvenioRDM style, from the JSON Schemas in `src/schema/` (compiled once with ajv).
 *
 * When to use: `loadWriteForm(body)` on every draft write. It is *lax* like InvenioRDM's
 * marshmallow load: invalid values are dropped from the data and reported as field errors
 * (`{field, messages}` with marshmallow's texts), and the draft is saved anyway. Access errors
 * are "hard" (the caller answers 400 and saves nothing). `validateStored(draft)` re-validates a
 * stored draft at publish (vocabulary references reduced back to `{id}` first), so publish
 * reports every schema error at once.
 *
 * How: pass 1 validates (custom `x-…` keywords add InvenioRDM's semantic rules and messages);
 * values that failed a type/format/length/enum check are pruned; pass 2 runs on the pruned data
 * in "apply" mode, where keywords normalise (names "family, given", identifier schemes,
 * sanitized HTML, embargo.active) and collect vocabulary references for ONE batched resolve.
 * Validation is synchronous, so the module-level pass state is safe.
 *
 * Why one file over 400 lines: the `x-…` keywords are one table of InvenioRDM's field rules and
 * messages, and the two passes share its state; split, each half would be read with the other.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { type FieldError, sanitizeHtml, TYPE_MESSAGES } from '@rdm/platform';
import { type CustomFields, NO_CUSTOM_FIELDS, schemaOf as customFieldsSchemaOf } from './custom-fields.js';
import { isEdtf, isIsoDate } from './edtf.js';
import { detectSchemes, LOCATION_SCHEMES, normalizeIdentifier, PERSONORG_SCHEMES, RECORD_SCHEMES, type SchemeDef } from './identifiers.js';

/** A path into the write form (object keys and array indexes). */
export type Path = (string | number)[];

/** A vocabulary reference found in the data: vocabulary type, id and where it sits. */
export interface VocabRef {
  type: string;
  id: string;
  path: Path;
}

/** The write form after loading (only the sections the client sent). */
export interface WriteForm {
  access?: Record<string, any>;
  files?: Record<string, any>;
  media_files?: Record<string, any>;
  metadata?: Record<string, any>;
  custom_fields?: Record<string, any>;
  pids?: Record<string, any>;
  parent?: Record<string, any>;
}

/** Result of loading a write form. */
export interface LoadResult {
  /** Pruned and normalised data. */
  data: WriteForm;
  /** Field errors reported with the saved draft (`errors`). */
  errors: FieldError[];
  /** Field errors that refuse the write (400, nothing saved). */
  hardErrors: FieldError[];
  /** Vocabulary references to resolve. */
  vocabRefs: VocabRef[];
  /** Which top-level sections the body carried. */
  present: { metadata: boolean; access: boolean; files: boolean; pids: boolean; custom_fields: boolean; media_files: boolean };
}

type AddFormats = (ajv: Ajv2020, formats?: string[]) => unknown;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  (addFormatsModule as unknown as AddFormats)) as AddFormats;

const schemaDir = new URL('../schema/', import.meta.url);
const readSchema = (name: string) => JSON.parse(readFileSync(new URL(name, schemaDir), 'utf8')) as Record<string, unknown>;

/** Pass state shared with the keyword functions (validation is synchronous). */
const pass: { mode: 'check' | 'apply'; refs: VocabRef[] } = { mode: 'check', refs: [] };

type Cxt = { instancePath: string; parentData?: any; parentDataProperty?: string | number };
type KwError = { sub?: string; message: string };
type KwFn = (schema: any, data: any, cxt: Cxt) => KwError[] | undefined;

/** Keywords whose failure removes the offending value from the data. */
const PRUNING = new Set([
  'type',
  'enum',
  'const',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'format',
  'pattern',
  'additionalProperties',
  'x-edtf',
  'x-isodate',
  'x-pid-schemes',
  'x-unique-identifiers',
  'x-extension-keys',
  'x-locale',
]);

const SCHEME_TABLES: Record<string, Record<string, SchemeDef>> = {
  personorg: PERSONORG_SCHEMES,
  record: RECORD_SCHEMES,
  reference: RECORD_SCHEMES,
  location: LOCATION_SCHEMES,
};

/** Configured PID schemes (RDM_PERSISTENT_IDENTIFIERS): DOI (DataCite or external) and OAI. */
export const PID_SCHEMES = ['doi', 'oai'];

const isObj = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

function pointerToPath(pointer: string): Path {
  if (!pointer) return [];
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

const KEYWORDS: Record<string, { fn: KwFn; type?: 'object' | 'string' | 'array'; modifying?: boolean }> = {
  'x-edtf': {
    type: 'string',
    fn: (kind, data) => (isEdtf(data, kind) ? undefined : [{ message: 'Please provide a valid date or interval.' }]),
  },
  'x-isodate': {
    type: 'string',
    fn: (_s, data) => (isIsoDate(data) ? undefined : [{ message: 'Not a valid date.' }]),
  },
  'x-html': {
    type: 'string',
    modifying: true,
    fn: (_s, data, cxt) => {
      if (pass.mode === 'apply' && cxt.parentData && cxt.parentDataProperty !== undefined) {
        cxt.parentData[cxt.parentDataProperty] = sanitizeHtml(data);
      }
      return undefined;
    },
  },
  'x-vocabulary': {
    type: 'object',
    fn: (type, data, cxt) => {
      if (pass.mode === 'apply' && typeof data.id === 'string' && data.id !== '') {
        pass.refs.push({ type, id: data.id, path: pointerToPath(cxt.instancePath) });
      }
      return undefined;
    },
  },
  'x-person-or-org': {
    type: 'object',
    modifying: true,
    fn: (_s, data) => {
      if (data.type === 'personal') {
        if (typeof data.family_name !== 'string' || data.family_name === '')
          return [{ sub: 'family_name', message: 'Family name cannot be blank.' }];
        if (pass.mode === 'apply') {
          data.name = [data.family_name, data.given_name].filter((n) => typeof n === 'string' && n !== '').join(', ');
        }
      } else if (data.type === 'organizational') {
        if (typeof data.name !== 'string' || data.name === '') return [{ sub: 'name', message: 'Name cannot be blank.' }];
        if (pass.mode === 'apply') {
          Reflect.deleteProperty(data, 'given_name');
          Reflect.deleteProperty(data, 'family_name');
        }
      }
      return undefined;
    },
  },
  'x-identifier': {
    type: 'object',
    modifying: true,
    fn: (tableName, data) => {
      const allowed = SCHEME_TABLES[tableName] ?? {};
      const required = tableName !== 'reference';
      const identifier = typeof data.identifier === 'string' ? data.identifier : undefined;
      let scheme = typeof data.scheme === 'string' && data.scheme !== '' ? data.scheme : undefined;
      if (!required && !identifier && !scheme) return undefined;
      if (identifier && !scheme) {
        const detected = detectSchemes(identifier).find((s) => s in allowed);
        if (detected) {
          scheme = detected;
          if (pass.mode === 'apply') data.scheme = detected;
        }
      }
      const errors: KwError[] = [];
      if (!scheme && identifier) errors.push({ sub: 'scheme', message: 'No valid scheme recognized for identifier.' });
      else if (!scheme) errors.push({ sub: 'scheme', message: 'Missing data for required field.' });
      else if (!(scheme in allowed)) errors.push({ sub: 'scheme', message: 'Invalid scheme.' });
      if (!identifier) errors.push({ sub: 'identifier', message: 'Missing data for required field.' });
      else if (scheme && scheme in allowed) {
        if (!allowed[scheme].validate(identifier)) {
          errors.push({ sub: 'identifier', message: `Invalid ${allowed[scheme].label} identifier.` });
        } else if (pass.mode === 'apply') {
          data.identifier = normalizeIdentifier(identifier, scheme);
        }
      }
      return errors;
    },
  },
  'x-unique-identifiers': {
    type: 'array',
    fn: (mode, data) => {
      const items = (data as unknown[]).filter(isObj);
      const keys = items.map((i) => (mode === 'scheme' ? String(i.scheme) : `${String(i.scheme)}\u0000${String(i.identifier)}`));
      if (new Set(keys).size !== keys.length) {
        return [
          { message: mode === 'scheme' ? 'Only one identifier per scheme is allowed.' : 'Duplicated identifier entry is not allowed.' },
        ];
      }
      return undefined;
    },
  },
  'x-unique-affiliations': {
    type: 'object',
    fn: (_s, data) => {
      const affs = Array.isArray(data.affiliations) ? data.affiliations.filter(isObj) : [];
      if (affs.length === 0) return undefined;
      const seen = new Set(affs.map((a: any) => a.name ?? a.id));
      if (seen.size !== affs.length) {
        const names = [...seen].filter((n) => n);
        return [{ sub: 'affiliations', message: `Duplicated affiliations: ${names.join(', ')}` }];
      }
      return undefined;
    },
  },
  'x-one-of-id-or': {
    type: 'object',
    fn: (other, data) => {
      const has = (v: unknown) => (typeof v === 'string' ? v !== '' : isObj(v) ? Object.keys(v).length > 0 : v !== undefined && v !== null);
      if (!has(data.id) && !has(data[other])) return [{ message: `An existing id or a free text ${other} must be present.` }];
      return undefined;
    },
  },
  'x-rights': {
    type: 'object',
    fn: (_s, data) => {
      const id = data.id;
      const title = data.title;
      const hasTitle = isObj(title) && Object.keys(title).length > 0;
      if (!id && !hasTitle) return [{ sub: 'rights', message: 'An existing id or a free text title must be present' }];
      // Why: InvenioRDM refuses `{id, title…}`, which breaks GET→PUT round trips of the read form
      // (licenses come back dereferenced). With an id, the other keys are dereferenced data and
      // are replaced by the vocabulary entry, so they are ignored instead.
      return undefined;
    },
  },
  'x-locale': {
    type: 'object',
    fn: (_s, data) => {
      const keys = Object.keys(data);
      if (keys.length > 1) return [{ message: 'Only one value is accepted.' }];
      if (keys.length === 1 && !/^[a-z]{2,3}$/.test(keys[0])) return [{ message: 'Not a valid locale.' }];
      return undefined;
    },
  },
  'x-location': {
    type: 'object',
    fn: (_s, data) => {
      const any = ['geometry', 'place', 'identifiers', 'description'].some((k) => {
        const v = data[k];
        return Array.isArray(v) ? v.length > 0 : isObj(v) ? true : typeof v === 'string' ? v !== '' : false;
      });
      return any ? undefined : [{ message: "At least one of ['geometry', 'place', 'identifiers', 'description'] must be present." }];
    },
  },
  'x-embargo': {
    type: 'object',
    modifying: true,
    fn: (_s, data) => {
      const until = typeof data.until === 'string' && isIsoDate(data.until) ? data.until : undefined;
      const today = new Date().toISOString().slice(0, 10);
      // Why: `until` is a date meaning 00:00 UTC of that day, so "in the future" means after today.
      const future = until !== undefined && until > today;
      if (data.active === true && !future) return [{ sub: 'until', message: 'Embargo end date must be set to a future date.' }];
      if (data.active === false && future) return [{ sub: 'until', message: 'Embargo end date must be unset or in the past.' }];
      if (pass.mode === 'apply') {
        if (data.active === undefined || data.active === null) data.active = future;
        if (data.reason === undefined) data.reason = null;
        if (data.until === null) Reflect.deleteProperty(data, 'until');
      }
      return undefined;
    },
  },
  'x-pid-schemes': {
    type: 'object',
    fn: (_s, data) => {
      const errors: KwError[] = [];
      for (const key of Object.keys(data)) {
        if (!PID_SCHEMES.includes(key)) errors.push({ sub: key, message: 'Invalid persistent identifier scheme.' });
      }
      return errors;
    },
  },
  'x-extension-keys': {
    type: 'object',
    fn: (_s, data) => {
      const bad = Object.keys(data).filter((k) => !/^[^:\s]+:[^:\s]+$/.test(k));
      return bad.map((k) => ({ sub: k, message: 'Keys must have the form <community slug>:<field>.' }));
    },
  },
  'x-date-range': {
    type: 'object',
    fn: (_s, data) => {
      if (isIsoDate(data.start_date) && isIsoDate(data.end_date) && data.end_date < data.start_date) {
        return [{ sub: 'end_date', message: 'End date must not be before the start date.' }];
      }
      return undefined;
    },
  },
};

function buildAjv(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: false, verbose: true, allowUnionTypes: true });
  addFormats(ajv, ['email', 'uri', 'date']);
  ajv.addKeyword({ keyword: 'x-messages' });
  for (const [keyword, def] of Object.entries(KEYWORDS)) {
    const validate = function kw(this: unknown, schema: any, data: any, _parent: any, cxt: Cxt): boolean {
      const errs = def.fn(schema, data, cxt);
      if (!errs || errs.length === 0) return true;
      (kw as unknown as { errors: Partial<ErrorObject>[] }).errors = errs.map((e) => ({
        keyword,
        message: e.message,
        params: { sub: e.sub },
        instancePath: e.sub === undefined ? cxt.instancePath : `${cxt.instancePath}/${e.sub.replace(/~/g, '~0').replace(/\//g, '~1')}`,
      }));
      return false;
    };
    ajv.addKeyword({ keyword, type: def.type, errors: true, modifying: def.modifying ?? false, validate: validate as any });
  }
  ajv.addSchema(readSchema('metadata-v1.0.0.json'));
  return ajv;
}

/**
 * The record validator of each custom-fields configuration (compiled once: there is one per
 * process, plus those of tests). `custom_fields` of the schema file is replaced by the configured
 * fields' schema (custom-fields.ts).
 */
const compiled = new WeakMap<CustomFields, ReturnType<Ajv2020['compile']>>();

function validator(cf: CustomFields) {
  let v = compiled.get(cf);
  if (!v) {
    const schema = readSchema('record-v1.0.0.json');
    (schema.properties as Record<string, unknown>).custom_fields = customFieldsSchemaOf(cf);
    v = buildAjv().compile(schema);
    compiled.set(cf, v);
  }
  return v;
}

interface Issue {
  path: Path;
  message: string;
  prune?: Path;
}

function valueAt(root: unknown, path: Path): unknown {
  let cur: any = root;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = cur[seg as any];
  }
  return cur;
}

function toIssue(e: ErrorObject, root: unknown): Issue {
  const path = pointerToPath(e.instancePath);
  const overrides = ((e.parentSchema as Record<string, any> | undefined)?.['x-messages'] ?? {}) as Record<string, string>;
  const params = e.params as Record<string, any>;
  switch (e.keyword) {
    case 'required':
      return { path: [...path, params.missingProperty], message: overrides.required ?? 'Missing data for required field.' };
    case 'additionalProperties': {
      const p = [...path, params.additionalProperty];
      return { path: p, message: 'Unknown field.', prune: p };
    }
    case 'type': {
      const value = valueAt(root, path);
      const expected = String(params.type).split(',')[0];
      if (value === null) return { path, message: 'Field may not be null.', prune: path };
      const message = overrides.type ?? TYPE_MESSAGES[expected] ?? 'Invalid value.';
      const at = message === 'Invalid input type.' ? [...path, '_schema'] : path;
      return { path: at, message, prune: path };
    }
    case 'enum':
      return { path, message: overrides.enum ?? `Must be one of: ${(params.allowedValues as unknown[]).join(', ')}.`, prune: path };
    case 'minLength':
      return { path, message: overrides.minLength ?? `Shorter than minimum length ${params.limit}.`, prune: path };
    case 'maxLength':
      return { path, message: overrides.maxLength ?? `Longer than maximum length ${params.limit}.`, prune: path };
    case 'minItems':
      return { path, message: overrides.minItems ?? `Shorter than minimum length ${params.limit}.`, prune: path };
    case 'maxItems':
      return { path, message: overrides.maxItems ?? `Longer than maximum length ${params.limit}.`, prune: path };
    case 'format':
      return { path, message: overrides.format ?? 'Not a valid value.', prune: path };
    default:
      if (e.keyword.startsWith('x-')) {
        return { path, message: e.message ?? 'Invalid value.', prune: PRUNING.has(e.keyword) ? path : undefined };
      }
      return { path, message: overrides[e.keyword] ?? 'Invalid value.', prune: PRUNING.has(e.keyword) ? path : undefined };
  }
}

function comparePaths(a: Path, b: Path): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] === b[i]) continue;
    if (typeof a[i] === 'number' && typeof b[i] === 'number') return (b[i] as number) - (a[i] as number);
    return String(b[i]) < String(a[i]) ? -1 : 1;
  }
  return b.length - a.length;
}

function prune(root: Record<string, any>, paths: Path[]): void {
  const unique = new Map(paths.map((p) => [JSON.stringify(p), p]));
  const sorted = [...unique.values()].sort(comparePaths);
  for (const path of sorted) {
    if (path.length === 0) continue;
    const parent = valueAt(root, path.slice(0, -1));
    const last = path[path.length - 1];
    if (Array.isArray(parent) && typeof last === 'number') {
      if (last < parent.length) parent.splice(last, 1);
    } else if (isObj(parent)) {
      Reflect.deleteProperty(parent, last as string);
    }
  }
}

/** Group issues by dotted field, keeping first-seen order and unique messages. */
function group(issues: Issue[], rename: (field: string) => string): FieldError[] {
  const out = new Map<string, string[]>();
  for (const i of issues) {
    const field = rename(i.path.join('.')) || '_schema';
    const list = out.get(field) ?? [];
    if (!list.includes(i.message)) list.push(i.message);
    out.set(field, list);
  }
  return [...out].map(([field, messages]) => ({ field, messages }));
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point (SanitizedUnicode)
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u200b]/g;

/** Trim and strip control characters from every string (SanitizedUnicode). */
function sanitizeStrings(v: unknown): unknown {
  if (typeof v === 'string') return v.replace(CONTROL, '').trim();
  if (Array.isArray(v)) return v.map(sanitizeStrings);
  if (isObj(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = sanitizeStrings(x);
    return out;
  }
  return v;
}

interface Aliases {
  resourceType: 'resource_type' | 'resource_types' | 'none';
  identifiers: 'identifiers' | 'alternate_identifiers' | 'none';
}

/** Fold InvenioRDM's `resource_type`/`identifiers` into the spec's `resource_types`/`alternate_identifiers` (DESIGN §9). */
export function foldAliases(metadata: Record<string, any>): Aliases {
  const aliases: Aliases = { resourceType: 'none', identifiers: 'none' };
  if ('resource_types' in metadata) {
    aliases.resourceType = 'resource_types';
    Reflect.deleteProperty(metadata, 'resource_type');
  } else if ('resource_type' in metadata) {
    aliases.resourceType = 'resource_type';
    const rt = metadata.resource_type;
    Reflect.deleteProperty(metadata, 'resource_type');
    if (rt !== null && rt !== undefined) metadata.resource_types = [rt];
  }
  if ('alternate_identifiers' in metadata) {
    aliases.identifiers = 'alternate_identifiers';
    Reflect.deleteProperty(metadata, 'identifiers');
  } else if ('identifiers' in metadata) {
    aliases.identifiers = 'identifiers';
    metadata.alternate_identifiers = metadata.identifiers;
    Reflect.deleteProperty(metadata, 'identifiers');
  }
  return aliases;
}

function renamer(aliases: Aliases): (field: string) => string {
  return (field) => {
    let f = field;
    if (aliases.resourceType !== 'resource_types') {
      f = f.replace(/^metadata\.resource_types(?:\.0)?(?=\.|$)/, 'metadata.resource_type');
    }
    if (aliases.identifiers === 'identifiers') f = f.replace(/^metadata\.alternate_identifiers(?=\.|$)/, 'metadata.identifiers');
    return f;
  };
}

function runPasses(data: Record<string, any>, rename: (f: string) => string, cf: CustomFields) {
  const validate = validator(cf);
  pass.mode = 'check';
  pass.refs = [];
  validate(data);
  const raw = [...(validate.errors ?? [])];
  const issues = raw.map((e) => toIssue(e, data));
  prune(
    data,
    issues.flatMap((i) => (i.prune ? [i.prune] : [])),
  );
  pass.mode = 'apply';
  pass.refs = [];
  validate(data);
  const refs = pass.refs;
  pass.mode = 'check';
  pass.refs = [];
  return { issues, refs, errors: group(issues, rename) };
}

const HARD = /^access(\._schema|\.record|\.files)?$/;

/** Deepest nesting accepted in a write form. */
export const MAX_DEPTH = 32;

/** True when `value` nests objects/arrays deeper than `limit` (iterative: no recursion). */
export function tooDeep(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** Sections whose strings are trimmed and stripped of control characters (SanitizedUnicode). */
const SANITIZED = new Set(['metadata', 'pids', 'access', 'custom_fields']);

/** True when the JSON of `value` exceeds `maxBytes` (UTF-8). */
function tooLarge(value: unknown, maxBytes: number): boolean {
  const json = JSON.stringify(value) ?? '';
  // Cheap first: a string of n characters has at most 3n UTF-8 bytes (no surrogate pair is more).
  return json.length * 3 > maxBytes && Buffer.byteLength(json, 'utf8') > maxBytes;
}

/**
 * Load a write-form body laxly. Throws nothing for bad field values (they come back in
 * `errors`/`hardErrors`); a body that is not a JSON object is a hard `_schema` error.
 */
export function loadWriteForm(input: unknown, cf: CustomFields = NO_CUSTOM_FIELDS): LoadResult {
  const present = { metadata: false, access: false, files: false, pids: false, custom_fields: false, media_files: false };
  // Why only undefined: an empty body means "defaults"; a JSON `null` body is not an object (400).
  const body = input === undefined ? {} : input;
  if (!isObj(body)) {
    return { data: {}, errors: [], hardErrors: [{ field: '_schema', messages: ['Invalid input type.'] }], vocabRefs: [], present };
  }
  if (tooDeep(body, MAX_DEPTH)) {
    // Why: recursive processing (and PostgreSQL's jsonb) must never meet pathological nesting.
    return {
      data: {},
      errors: [],
      hardErrors: [{ field: '_schema', messages: [`Nesting deeper than ${MAX_DEPTH} levels.`] }],
      vocabRefs: [],
      present,
    };
  }
  if ('custom_fields' in body && tooLarge(body.custom_fields, cf.maxBytes)) {
    // Why hard: the section is stored, indexed and returned in every search hit (issue 18, item 10).
    const messages = [`Custom fields larger than ${cf.maxBytes} bytes.`];
    return { data: {}, errors: [], hardErrors: [{ field: 'custom_fields', messages }], vocabRefs: [], present };
  }
  const data: Record<string, any> = {};
  for (const key of ['access', 'files', 'media_files', 'metadata', 'custom_fields', 'pids', 'parent'] as const) {
    if (key in body) {
      data[key] = SANITIZED.has(key) ? sanitizeStrings(body[key]) : structuredClone(body[key]);
      if (key in present) present[key as keyof typeof present] = true;
    }
  }
  let aliases: Aliases = { resourceType: 'none', identifiers: 'none' };
  if (isObj(data.metadata)) aliases = foldAliases(data.metadata);
  const { errors, refs } = runPasses(data, renamer(aliases), cf);
  const hardErrors = errors.filter((e) => HARD.test(e.field));
  const soft = errors.filter((e) => !HARD.test(e.field));
  if (isObj(data.access) && data.access.record === 'restricted') data.access.files = 'restricted';
  return { data: data as WriteForm, errors: soft, hardErrors, vocabRefs: refs, present };
}

/** Reduce dereferenced vocabulary references in `metadata` back to `{id}` (their input form). */
export function reduceVocabRefs(metadata: Record<string, any>): Record<string, any> {
  const copy = structuredClone(metadata);
  const data: Record<string, any> = { metadata: copy };
  const validate = validator(NO_CUSTOM_FIELDS);
  pass.mode = 'apply';
  pass.refs = [];
  // Why: a throwaway pass on a copy collects the reference paths; nothing else is kept.
  validate(structuredClone(data));
  const refs = pass.refs;
  pass.mode = 'check';
  pass.refs = [];
  for (const ref of refs) {
    const parent = valueAt(data, ref.path.slice(0, -1)) as any;
    const last = ref.path[ref.path.length - 1];
    if (parent && typeof parent === 'object') parent[last as any] = { id: ref.id };
  }
  return copy;
}

/**
 * Strict validation of a stored draft at publish: every schema error at once (metadata
 * defaults to `{}` so missing required fields are reported). Returns field errors.
 */
export function validateStored(
  draft: {
    metadata?: Record<string, any>;
    access?: unknown;
    pids?: unknown;
    custom_fields?: unknown;
  },
  cf: CustomFields = NO_CUSTOM_FIELDS,
): FieldError[] {
  const data: Record<string, any> = {
    metadata: reduceVocabRefs(draft.metadata ?? {}),
    access: structuredClone(draft.access ?? { record: 'public', files: 'public' }),
    pids: structuredClone(draft.pids ?? {}),
    custom_fields: structuredClone(draft.custom_fields ?? {}),
  };
  if (isObj(data.access)) Reflect.deleteProperty(data.access, 'status');
  const { errors } = runPasses(data, renamer({ resourceType: 'none', identifiers: 'alternate_identifiers' }), cf);
  return errors;
}
