/**
 * The error responses of records' route tables, written once: the shared component references
 * (400/401/403/404/429/503) and a builder of each operation's error responses.
 *
 * When to use: a records `*.decl.ts` documenting an operation's errors; a table's own codes (its 410
 * wording, 412…) go in `extra`. Only the platform may be imported here (the gateway's route
 * generator imports the tables).
 */
import { type Json, json, ref, schemaRef } from '@rdm/platform';

/** The error answers every records table shares (the gateway's components, referenced). */
export const COMMON_ERRORS: Readonly<Record<string, Json>> = {
  '400': ref('responses', 'BadRequest'),
  '401': ref('responses', 'InvalidToken'),
  '403': ref('responses', 'PermissionDenied'),
  '404': ref('responses', 'NotFound'),
  '429': ref('responses', 'TooManyRequests'),
  '503': ref('responses', 'ServiceUnavailable'),
};

/** An error answer of its own wording (body: the `Error` schema). */
export const errorResponse = (description: string): Json => ({ description, content: json(schemaRef('Error')) });

/**
 * A table's `errors(...codes)`: the `always` codes plus those named, in code order, from
 * COMMON_ERRORS and the table's `extra`.
 */
export function errorsOf(always: readonly string[], extra: Readonly<Record<string, Json>> = {}): (...codes: string[]) => Json {
  const all: Record<string, Json> = { ...COMMON_ERRORS, ...extra };
  return (...codes) => Object.fromEntries([...new Set([...always, ...codes])].sort().map((c) => [c, all[c] as Json]));
}
