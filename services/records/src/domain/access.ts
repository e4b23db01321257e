/**
 * Record access (`access.record`, `access.files`, `access.embargo`) and the computed
 * `access.status` (reference §3.3): `embargoed` when the embargo is active; else
 * `metadata-only` when the record is public and files are disabled; else `open` when record and
 * files are public; else `restricted`.
 */

import type { Access } from '../model/rows.js';

export type { Access };

/** Computed access status values (also the `access_status` facet keys). */
export type AccessStatus = 'open' | 'embargoed' | 'restricted' | 'metadata-only';

/** Default access of a new draft. */
export function defaultAccess(): Access {
  return { record: 'public', files: 'public', embargo: { active: false, reason: null } };
}

/** Normalise a loaded `access` section into the stored form (restricted record forces restricted files). */
export function normaliseAccess(input: Record<string, any> | undefined, previous?: Access): Access {
  const base = previous ?? defaultAccess();
  if (!input) return structuredClone(base);
  const record = input.record === 'restricted' ? 'restricted' : input.record === 'public' ? 'public' : base.record;
  let files = input.files === 'restricted' ? 'restricted' : input.files === 'public' ? 'public' : base.files;
  if (record === 'restricted') files = 'restricted';
  const e = input.embargo && typeof input.embargo === 'object' ? input.embargo : {};
  const embargo: Access['embargo'] = { active: e.active === true, reason: typeof e.reason === 'string' ? e.reason : null };
  if (typeof e.until === 'string') embargo.until = e.until;
  return { record, files, embargo };
}

/** The computed access status. */
export function accessStatus(access: Pick<Access, 'record' | 'files' | 'embargo'>, filesEnabled: boolean): AccessStatus {
  if (access.embargo?.active) return 'embargoed';
  if (access.record === 'public' && !filesEnabled) return 'metadata-only';
  if (access.record === 'public' && access.files === 'public') return 'open';
  return 'restricted';
}

/** The read form of `access`: `until` omitted when unset, `reason` null when unset, plus `status`. */
export function accessReadForm(access: Access, filesEnabled: boolean) {
  const embargo: Record<string, unknown> = { active: access.embargo?.active === true };
  if (access.embargo?.until) embargo.until = access.embargo.until;
  embargo.reason = access.embargo?.reason ?? null;
  return { record: access.record, files: access.files, embargo, status: accessStatus(access, filesEnabled) };
}
