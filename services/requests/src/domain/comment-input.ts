/** Validation of comment bodies `{payload: {content, format}}` (InvenioRDM's messages); content is sanitized. */
import { Errors, type FieldError } from '@rdm/platform';
import { sanitizeHtml } from '@rdm/platform';

/** A valid comment payload. */
export interface CommentInput {
  content: string;
  format: 'html';
}

const MISSING = 'Missing data for required field.';

/**
 * Parse a comment body. `required` (comment endpoints): a missing body or payload is a 400;
 * otherwise (action bodies) it means "no comment". Throws 400 with field errors.
 */
export function parseCommentBody(body: unknown, o: { required: boolean; maxLength: number }): CommentInput | undefined {
  if (body === undefined || body === null) {
    if (o.required) throw Errors.validation([{ field: 'payload', messages: [MISSING] }]);
    return undefined;
  }
  if (typeof body !== 'object' || Array.isArray(body)) throw Errors.validation([{ field: '_schema', messages: ['Invalid input type.'] }]);
  const payload = (body as Record<string, unknown>).payload;
  if (payload === undefined || payload === null) {
    if (o.required) throw Errors.validation([{ field: 'payload', messages: [MISSING] }]);
    return undefined;
  }
  if (typeof payload !== 'object' || Array.isArray(payload))
    throw Errors.validation([{ field: 'payload', messages: ['Invalid input type.'] }]);
  const p = payload as Record<string, unknown>;
  const errors: FieldError[] = [];
  for (const k of Object.keys(p))
    if (!['content', 'format', 'files'].includes(k)) errors.push({ field: `payload.${k}`, messages: ['Unknown field.'] });
  if (p.content === undefined || p.content === null) errors.push({ field: 'payload.content', messages: [MISSING] });
  else if (typeof p.content !== 'string') errors.push({ field: 'payload.content', messages: ['Not a valid string.'] });
  else if (p.content.length < 1) errors.push({ field: 'payload.content', messages: ['Shorter than minimum length 1.'] });
  else if (p.content.length > o.maxLength)
    errors.push({ field: 'payload.content', messages: [`Longer than maximum length ${o.maxLength}.`] });
  if (p.format !== undefined && p.format !== 'html') errors.push({ field: 'payload.format', messages: ['Must be one of: html.'] });
  if (p.files !== undefined && !Array.isArray(p.files)) errors.push({ field: 'payload.files', messages: ['Not a valid list.'] });
  if (errors.length) throw Errors.validation(errors);
  return { content: sanitizeHtml(p.content as string), format: 'html' };
}
