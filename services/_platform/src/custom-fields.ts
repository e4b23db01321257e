/**
 * Configured custom fields of a resource (InvenioRDM's `RDM_CUSTOM_FIELDS` of records,
 * `COMMUNITIES_CUSTOM_FIELDS` of communities): which keys `custom_fields` may hold, what each value
 * must be, and how large it may get. Only the definitions and their JSON Schema live here (a
 * configuration format, no domain rule); each service validates with its own ajv, which must
 * implement the `x-isodate` (a strict `YYYY-MM-DD`), `x-edtf` (an EDTF level-0 date or interval)
 * and `x-vocabulary` (an `{id}` reference of that vocabulary type, resolved by the service)
 * keywords of the fields it allows, and annotate `x-messages`.
 *
 * InvenioRDM's model: `custom_fields` is a nested schema built from the configured fields only, so
 * an unknown key is `Unknown field.` on `custom_fields.<key>` and a value is checked by its field's
 * type; the default configuration has no fields at all. Bounds are ours (InvenioRDM relies on its
 * request size limit): every string and list is capped per field, and the whole section by
 * `maxBytes`, so no answer or search hit carries megabytes of it.
 *
 * When to use: a service parses its variable once at start (`parseCustomFields`, a bad definition
 * stops the start) and compiles `schemaOf` into its validator.
 *
 * Definition (JSON, one object per field): `{"name": "<namespace>:<field>", "type": <type>,
 * "multiple"?: bool, "vocabulary"?: "<vocabulary type>" (type vocabulary), "fields"?: [<definition
 * of a scalar sub-field>] (type object), "max_length"?: int, "max_items"?: int}`, with `type` one of
 * `text` (TextCF), `keyword` (KeywordCF), `boolean` (BooleanCF), `integer` (IntegerCF), `double`
 * (DoubleCF), `date` (ISODateStringCF), `edtf` (EDTFDateStringCF), `vocabulary` (VocabularyCF: `{id}`
 * references resolved and dereferenced) and `object` (a fixed set of scalar sub-fields, as JournalCF
 * or MeetingCF).
 */

/** Types of configured custom fields. */
export const CUSTOM_FIELD_TYPES = ['text', 'keyword', 'boolean', 'integer', 'double', 'date', 'edtf', 'vocabulary', 'object'] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];

/** One configured field. */
export interface CustomFieldDef {
  name: string;
  type: CustomFieldType;
  /** A list of values (`multiple=True`). */
  multiple?: boolean;
  /** The vocabulary type of a `vocabulary` field. */
  vocabulary?: string;
  /** The sub-fields of an `object` field (scalar types only). */
  fields?: CustomFieldDef[];
  /** Longest string (characters); default `TEXT_MAX_LENGTH` (text) or `KEYWORD_MAX_LENGTH`. */
  max_length?: number;
  /** Longest list of a `multiple` field; default `MAX_ITEMS`. */
  max_items?: number;
}

/** The configured fields and the size bound of the whole section. */
export interface CustomFields {
  defs: readonly CustomFieldDef[];
  /** Largest `custom_fields` (bytes of its JSON) a write may carry. */
  maxBytes: number;
}

/** Default bounds. */
export const TEXT_MAX_LENGTH = 10_000;
export const KEYWORD_MAX_LENGTH = 1_000;
export const MAX_ITEMS = 100;
export const MAX_BYTES = 64 * 1024;

/** InvenioRDM's default: no custom field configured. */
export const NO_CUSTOM_FIELDS: CustomFields = Object.freeze({ defs: Object.freeze([]) as readonly CustomFieldDef[], maxBytes: MAX_BYTES });

const NAME = /^[A-Za-z0-9_-]+(:[A-Za-z0-9_.-]+)?$/;
const SCALAR: readonly CustomFieldType[] = ['text', 'keyword', 'boolean', 'integer', 'double', 'date', 'edtf'];

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const positive = (v: unknown) => v === undefined || (Number.isInteger(v) && (v as number) > 0);

/** Check one definition; the problems found (empty when valid). */
function problemsOf(d: unknown, at: string, sub: boolean, types: readonly CustomFieldType[]): string[] {
  if (!isObj(d)) return [`${at}: not an object`];
  const out: string[] = [];
  if (typeof d.name !== 'string' || !NAME.test(d.name)) out.push(`${at}: name must be <namespace>:<field> or <field>`);
  if (!CUSTOM_FIELD_TYPES.includes(d.type as CustomFieldType)) out.push(`${at}: type must be one of ${CUSTOM_FIELD_TYPES.join(', ')}`);
  else if (!types.includes(d.type as CustomFieldType))
    out.push(`${at}: type ${String(d.type)} is not supported here (${types.join(', ')})`);
  else if (sub && !SCALAR.includes(d.type as CustomFieldType)) out.push(`${at}: a sub-field must be of a scalar type`);
  if (d.multiple !== undefined && typeof d.multiple !== 'boolean') out.push(`${at}: multiple must be a boolean`);
  if (sub && d.multiple) out.push(`${at}: a sub-field cannot be multiple`);
  if (!positive(d.max_length) || !positive(d.max_items)) out.push(`${at}: max_length and max_items must be positive integers`);
  if (d.type === 'vocabulary' && (typeof d.vocabulary !== 'string' || d.vocabulary === '')) out.push(`${at}: vocabulary is required`);
  if (d.type === 'object') {
    if (!Array.isArray(d.fields) || d.fields.length === 0) out.push(`${at}: fields is required`);
    else d.fields.forEach((f, i) => out.push(...problemsOf(f, `${at}.fields[${i}]`, true, types)));
  }
  return out;
}

/** How `parseCustomFields` reads a variable. */
export interface ParseCustomFieldsOptions {
  /** Name of the environment variable (in error messages). */
  variable: string;
  /** Largest `custom_fields` in bytes of its JSON (default `MAX_BYTES`). */
  maxBytes?: number;
  /** The types this service implements (default: all); another type stops the start. */
  types?: readonly CustomFieldType[];
}

/**
 * The custom fields configured by a variable (a JSON array; empty = none). Throws with every
 * problem listed when the definition is malformed (the service refuses to start).
 */
export function parseCustomFields(json: string | undefined, opts: ParseCustomFieldsOptions): CustomFields {
  const { variable, maxBytes = MAX_BYTES, types = CUSTOM_FIELD_TYPES } = opts;
  if (json === undefined || json.trim() === '') return { defs: [], maxBytes };
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new Error(`${variable}: not valid JSON`);
  }
  if (!Array.isArray(raw)) throw new Error(`${variable}: not a JSON array`);
  const problems = raw.flatMap((d, i) => problemsOf(d, `${variable}[${i}]`, false, types));
  const names = raw.map((d) => (isObj(d) ? d.name : undefined));
  if (new Set(names).size !== names.length) problems.push(`${variable}: names must be unique`);
  if (problems.length) throw new Error(problems.join('; '));
  return { defs: raw as CustomFieldDef[], maxBytes };
}

/** The JSON Schema of one value of `d` (validation.ts keywords: `x-isodate`, `x-edtf`, `x-vocabulary`). */
function valueSchema(d: CustomFieldDef): Record<string, unknown> {
  switch (d.type) {
    case 'text':
    case 'keyword':
      return { type: 'string', maxLength: d.max_length ?? (d.type === 'text' ? TEXT_MAX_LENGTH : KEYWORD_MAX_LENGTH) };
    case 'boolean':
      return { type: 'boolean' };
    case 'integer':
      return { type: 'integer' };
    case 'double':
      return { type: 'number' };
    case 'date':
      return { type: 'string', maxLength: 10, 'x-isodate': true };
    case 'edtf':
      return { type: 'string', maxLength: 100, 'x-edtf': 'date' };
    case 'vocabulary':
      // Extra keys of the object are the dereferenced entry (stored form), replaced on every write.
      return {
        type: 'object',
        required: ['id'],
        properties: { id: { type: 'string', minLength: 1, maxLength: KEYWORD_MAX_LENGTH } },
        'x-vocabulary': d.vocabulary,
      };
    case 'object':
      return {
        type: 'object',
        additionalProperties: false,
        properties: Object.fromEntries((d.fields ?? []).map((f) => [f.name, valueSchema(f)])),
      };
  }
}

/** The JSON Schema of `custom_fields` for these fields: only their keys, each value by its type and bounds. */
export function schemaOf(cf: CustomFields): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const d of cf.defs) {
    const one = valueSchema(d);
    properties[d.name] = d.multiple ? { type: 'array', maxItems: d.max_items ?? MAX_ITEMS, items: one } : one;
  }
  return { type: 'object', additionalProperties: false, properties, 'x-messages': { type: 'Invalid input type.' } };
}
