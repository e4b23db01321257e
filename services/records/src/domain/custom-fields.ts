/**
 * Configured custom fields of records (InvenioRDM's `RDM_CUSTOM_FIELDS`): which keys `custom_fields`
 * may hold, what each value must be, and how large it may get.
 *
 * InvenioRDM's model: `custom_fields` is a nested schema built from the configured fields only, so an
 * unknown key is `Unknown field.` on `custom_fields.<key>` and a value is checked by its field's type;
 * the default configuration has no fields at all. Like every other part of a draft, a save is lax
 * (the bad key or value is dropped and reported in `errors`, validation.ts) and a publication strict.
 * Bounds are ours (InvenioRDM relies on its request size limit): every string and list is capped per
 * field, and the whole section by `maxBytes` (a hard 400), so no search hit carries megabytes of it.
 *
 * When to use: app.ts parses `RDM_CUSTOM_FIELDS` once (`parseCustomFields`, a bad definition stops
 * the start); validation.ts compiles `schemaOf` into the record validator.
 *
 * Definition (JSON, one object per field): `{"name": "<namespace>:<field>", "type": <type>,
 * "multiple"?: bool, "vocabulary"?: "<vocabulary type>" (type vocabulary), "fields"?: [<definition
 * of a scalar sub-field>] (type object), "max_length"?: int, "max_items"?: int}`, with `type` one of
 * `text` (TextCF), `keyword` (KeywordCF), `boolean` (BooleanCF), `integer` (IntegerCF), `double`
 * (DoubleCF), `date` (ISODateStringCF), `edtf` (EDTFDateStringCF), `vocabulary` (VocabularyCF: `{id}`
 * references resolved and dereferenced as in metadata) and `object` (a fixed set of scalar
 * sub-fields, as JournalCF or MeetingCF).
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
function problemsOf(d: unknown, at: string, sub: boolean): string[] {
  if (!isObj(d)) return [`${at}: not an object`];
  const out: string[] = [];
  if (typeof d.name !== 'string' || !NAME.test(d.name)) out.push(`${at}: name must be <namespace>:<field> or <field>`);
  if (!CUSTOM_FIELD_TYPES.includes(d.type as CustomFieldType)) out.push(`${at}: type must be one of ${CUSTOM_FIELD_TYPES.join(', ')}`);
  else if (sub && !SCALAR.includes(d.type as CustomFieldType)) out.push(`${at}: a sub-field must be of a scalar type`);
  if (d.multiple !== undefined && typeof d.multiple !== 'boolean') out.push(`${at}: multiple must be a boolean`);
  if (sub && d.multiple) out.push(`${at}: a sub-field cannot be multiple`);
  if (!positive(d.max_length) || !positive(d.max_items)) out.push(`${at}: max_length and max_items must be positive integers`);
  if (d.type === 'vocabulary' && (typeof d.vocabulary !== 'string' || d.vocabulary === '')) out.push(`${at}: vocabulary is required`);
  if (d.type === 'object') {
    if (!Array.isArray(d.fields) || d.fields.length === 0) out.push(`${at}: fields is required`);
    else d.fields.forEach((f, i) => out.push(...problemsOf(f, `${at}.fields[${i}]`, true)));
  }
  return out;
}

/**
 * The custom fields configured by `RDM_CUSTOM_FIELDS` (a JSON array; empty = none). Throws with
 * every problem listed when the definition is malformed (the service refuses to start).
 */
export function parseCustomFields(json: string | undefined, maxBytes = MAX_BYTES): CustomFields {
  if (json === undefined || json.trim() === '') return { defs: [], maxBytes };
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new Error('RDM_CUSTOM_FIELDS: not valid JSON');
  }
  if (!Array.isArray(raw)) throw new Error('RDM_CUSTOM_FIELDS: not a JSON array');
  const problems = raw.flatMap((d, i) => problemsOf(d, `RDM_CUSTOM_FIELDS[${i}]`, false));
  const names = raw.map((d) => (isObj(d) ? d.name : undefined));
  if (new Set(names).size !== names.length) problems.push('RDM_CUSTOM_FIELDS: names must be unique');
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
