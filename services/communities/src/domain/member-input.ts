/**
 * Parsing of the member bodies (`{members:[{type,id}], role?, visible?, message?}`) with
 * InvenioRDM's messages: users only, 1–100 entries, known roles.
 */
import { Errors, type FieldError } from '@rdm/platform';
import { isRole, ROLES, type Role } from './roles.js';

/** A parsed member body. */
export interface MembersBody {
  members: { type: 'user'; id: string }[];
  role?: Role;
  visible?: boolean;
  message?: string;
}

/** Parse and validate; `need` lists required keys besides `members`. */
export function parseMembersBody(body: unknown, opts: { need?: ('role' | 'visible_or_role')[]; allowMessage?: boolean } = {}): MembersBody {
  const errors: FieldError[] = [];
  const b = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const out: MembersBody = { members: [] };
  if (!Array.isArray(b.members)) errors.push({ field: 'members', messages: ['Missing data for required field.'] });
  else if (b.members.length < 1 || b.members.length > 100)
    errors.push({ field: 'members', messages: ['Length must be between 1 and 100.'] });
  else {
    for (const [i, m] of b.members.entries()) {
      const e = (typeof m === 'object' && m !== null ? m : {}) as Record<string, unknown>;
      const id = typeof e.id === 'number' ? String(e.id) : e.id;
      if (e.type === 'email') {
        errors.push({ field: `members.${i}`, messages: ['Invalid member type: email'] });
      } else if (e.type !== 'user' || typeof id !== 'string' || id === '' || id.length > 64) {
        errors.push({ field: `members.${i}`, messages: ['Invalid member specified.'] });
      } else out.members.push({ type: 'user', id });
    }
  }
  if (b.role !== undefined) {
    if (isRole(b.role)) out.role = b.role;
    else errors.push({ field: 'role', messages: [`Must be one of: ${ROLES.join(', ')}.`] });
  } else if (opts.need?.includes('role')) errors.push({ field: 'role', messages: ['Missing data for required field.'] });
  // The spec shows one example sending `visibility` instead of `visible`.
  const visible = b.visible ?? b.visibility;
  if (visible !== undefined) {
    if (typeof visible === 'boolean') out.visible = visible;
    else errors.push({ field: 'visible', messages: ['Not a valid boolean.'] });
  }
  if (opts.need?.includes('visible_or_role') && b.role === undefined && visible === undefined && errors.length === 0) {
    errors.push({ field: '_schema', messages: ['Missing data for required field.'] });
  }
  if (b.message !== undefined && b.message !== null) {
    if (!opts.allowMessage) errors.push({ field: 'message', messages: ['Unknown field.'] });
    else if (typeof b.message !== 'string') errors.push({ field: 'message', messages: ['Not a valid string.'] });
    else out.message = b.message;
  }
  if (errors.length) throw Errors.validation(errors);
  return out;
}
