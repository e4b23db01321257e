/**
 * Custom fields of communities (InvenioRDM's `COMMUNITIES_CUSTOM_FIELDS`): the definitions and
 * their JSON Schema are the platform's (`@rdm/platform` custom-fields.ts, the format records'
 * `RDM_CUSTOM_FIELDS` uses); this file validates a community's `custom_fields` with them and
 * dereferences its vocabulary values.
 *
 * InvenioRDM's rules, as for the rest of a community body: the load is strict (any error is a 400,
 * nothing stored), an unknown key is `Unknown field.` on `custom_fields.<key>`, no field is
 * configured by default (only `{}` is accepted), and an update replaces the whole section (its
 * schema defaults `custom_fields` to `{}`). Bounds are ours: each string and list per field, the
 * whole section by `COMMUNITIES_CUSTOM_FIELDS_MAX_BYTES`.
 *
 * Every type but `edtf` is implemented (no EDTF parser in this service: a definition of that type
 * stops the start). A `vocabulary` value is stored as `{id, title}` of its entry (`title` only when
 * the entry has one); titles sent by the client are ignored.
 *
 * When to use: app.ts builds one `CommunityCustomFields` from the configuration at start; the
 * communities service calls `check` on create and update, resolves `refs` with the other
 * vocabulary references of the body, then stores `dereference(value, entries)`.
 */
import {
  type CustomFieldDef,
  type CustomFields,
  type CustomFieldType,
  type FieldError,
  parseCustomFields,
  schemaOf,
  TYPE_MESSAGES,
} from '@rdm/platform';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { ResolvedEntry, VocabRef } from './community-input.js';

/** The types communities implement (all but `edtf`). */
export const COMMUNITY_CUSTOM_FIELD_TYPES: readonly CustomFieldType[] = [
  'text',
  'keyword',
  'boolean',
  'integer',
  'double',
  'date',
  'vocabulary',
  'object',
];

/** The result of checking a body's `custom_fields`. */
export interface CustomFieldsCheck {
  /** The validated section (`{}` when absent); vocabulary values still as sent until dereferenced. */
  value: Record<string, unknown>;
  errors: FieldError[];
  /** Vocabulary references to resolve (unknown ids are `Invalid value <id>.` on `field`). */
  refs: VocabRef[];
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** True for a strict ISO calendar date `YYYY-MM-DD` (a real day). */
function isIsoDate(v: unknown): boolean {
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
}

/** `custom_fields.<key>[.<index or sub-field>]` of an ajv error. */
function fieldOf(e: ErrorObject): string {
  const segments = e.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = e.params as { additionalProperty?: string; missingProperty?: string };
  if (e.keyword === 'additionalProperties' && params.additionalProperty) segments.push(params.additionalProperty);
  if (e.keyword === 'required' && params.missingProperty) segments.push(params.missingProperty);
  return ['custom_fields', ...segments].join('.');
}

function messageOf(e: ErrorObject): string {
  const params = e.params as { type?: string; limit?: number };
  switch (e.keyword) {
    case 'additionalProperties':
      return 'Unknown field.';
    case 'required':
      return 'Missing data for required field.';
    case 'type':
      return TYPE_MESSAGES[String(params.type).split(',')[0]] ?? 'Invalid value.';
    case 'maxLength':
    case 'maxItems':
      return `Longer than maximum length ${params.limit}.`;
    case 'minLength':
      return `Shorter than minimum length ${params.limit}.`;
    case 'x-isodate':
      return 'Not a valid date.';
    default:
      return 'Invalid value.';
  }
}

/** The configured custom fields of communities and their validator. */
export class CommunityCustomFields {
  private readonly validate: ValidateFunction;

  private constructor(readonly fields: CustomFields) {
    const ajv = new Ajv({ allErrors: true, strict: false });
    ajv.addKeyword({ keyword: 'x-messages' });
    // Why an annotation only: references are collected from the definitions after validation.
    ajv.addKeyword({ keyword: 'x-vocabulary' });
    ajv.addKeyword({ keyword: 'x-isodate', type: 'string', validate: (_s: unknown, data: unknown) => isIsoDate(data), errors: false });
    this.validate = ajv.compile(schemaOf(fields));
  }

  /** From `COMMUNITIES_CUSTOM_FIELDS` (empty: none); throws listing every problem of a bad definition. */
  static fromConfig(json: string | undefined, maxBytes: number): CommunityCustomFields {
    return new CommunityCustomFields(
      parseCustomFields(json, { variable: 'COMMUNITIES_CUSTOM_FIELDS', maxBytes, types: COMMUNITY_CUSTOM_FIELD_TYPES }),
    );
  }

  /** Validate a body's `custom_fields` (absent or null: `{}`). */
  check(raw: unknown): CustomFieldsCheck {
    if (raw === undefined || raw === null) return { value: {}, errors: [], refs: [] };
    if (!isObj(raw)) return { value: {}, errors: [{ field: 'custom_fields', messages: ['Invalid input type.'] }], refs: [] };
    if (Buffer.byteLength(JSON.stringify(raw)) > this.fields.maxBytes) {
      return {
        value: {},
        errors: [{ field: 'custom_fields', messages: [`Custom fields larger than ${this.fields.maxBytes} bytes.`] }],
        refs: [],
      };
    }
    if (!this.validate(raw)) {
      const byField = new Map<string, string[]>();
      for (const e of this.validate.errors ?? []) {
        // Why skip: a value failing its type also fails the keywords of that type; one message is enough.
        const field = fieldOf(e);
        const messages = byField.get(field) ?? [];
        if (!messages.length) byField.set(field, [messageOf(e)]);
      }
      return { value: {}, errors: [...byField].map(([field, messages]) => ({ field, messages })), refs: [] };
    }
    const refs: VocabRef[] = [];
    for (const d of this.fields.defs) {
      if (d.type !== 'vocabulary' || raw[d.name] === undefined) continue;
      const one = (v: unknown, field: string) => refs.push({ field, type: d.vocabulary as string, id: (v as { id: string }).id });
      const v = raw[d.name];
      if (Array.isArray(v)) v.forEach((x, i) => one(x, `custom_fields.${d.name}.${i}`));
      else one(v, `custom_fields.${d.name}`);
    }
    return { value: structuredClone(raw), errors: [], refs };
  }

  /** The stored form: each vocabulary value replaced by `{id, title}` of its resolved entry. */
  dereference(value: Record<string, unknown>, entries: Map<string, ResolvedEntry>): Record<string, unknown> {
    const out = structuredClone(value);
    const deref = (d: CustomFieldDef, v: unknown) => {
      const id = (v as { id: string }).id;
      const e = entries.get(`${d.vocabulary}:${id}`);
      return { id, ...(e?.title !== undefined ? { title: e.title } : {}) };
    };
    for (const d of this.fields.defs) {
      if (d.type !== 'vocabulary' || out[d.name] === undefined) continue;
      const v = out[d.name];
      out[d.name] = Array.isArray(v) ? v.map((x) => deref(d, x)) : deref(d, v);
    }
    return out;
  }
}
