/**
 * Configured custom fields of records (InvenioRDM's `RDM_CUSTOM_FIELDS`): the definitions, their
 * JSON Schema and bounds are the platform's (`@rdm/platform` custom-fields.ts, shared with
 * communities' `COMMUNITIES_CUSTOM_FIELDS`); records implements every type in validation.ts.
 *
 * Like every other part of a draft, a save is lax (the bad key or value is dropped and reported in
 * `errors`, validation.ts) and a publication strict; a `custom_fields` over `maxBytes` is a hard 400.
 *
 * When to use: app.ts parses `RDM_CUSTOM_FIELDS` once (`parseCustomFields`, a bad definition stops
 * the start); validation.ts compiles `schemaOf` into the record validator.
 */
import { type CustomFields, MAX_BYTES, parseCustomFields as parseDefinitions } from '@rdm/platform';

export {
  CUSTOM_FIELD_TYPES,
  type CustomFieldDef,
  type CustomFields,
  type CustomFieldType,
  KEYWORD_MAX_LENGTH,
  MAX_BYTES,
  MAX_ITEMS,
  NO_CUSTOM_FIELDS,
  schemaOf,
  TEXT_MAX_LENGTH,
} from '@rdm/platform';

/** The custom fields configured by `RDM_CUSTOM_FIELDS` (a JSON array; empty = none); throws listing every problem. */
export function parseCustomFields(json: string | undefined, maxBytes = MAX_BYTES): CustomFields {
  return parseDefinitions(json, { variable: 'RDM_CUSTOM_FIELDS', maxBytes });
}
