/**
 * Access grants of a record's parent (`…/access/grants`, `…/access/users`) and the parent's
 * access settings (`PUT/PATCH …/access`), InvenioRDM's parent access service.
 *
 * Grants live in `parents.access.grants` as `{subject: {type: user|role, id}, permission, origin?}`
 * (the form the policy and the search scopes read), so a grant is effective in the same
 * transaction: the parent row and every search document of the parent (`refreshParent`) are
 * written together, and the parent's revision bump changes the record stamp (read cache).
 * As in InvenioRDM, a grant's id under `/access/grants` is its position in the list (ids shift
 * after a delete); `/access/users/{user_id}` addresses the user grant by user id.
 *
 * When to use: the access routes only; every operation needs the manage level.
 */
import { Errors, type FieldError, type Identity, type Knex, withTransaction } from '@rdm/platform';
import { parentIdOf } from '../repo/access.repo.js';
import * as recordsRepo from '../repo/records.repo.js';
import { ctxOf } from '../domain/access.component.js';
import type { ParentRow } from '../domain/model.js';
import type { SearchIndexPort } from '../domain/ports.js';
import type { AccessGrant, RecordAccessCtx, RecordAction } from '../domain/records.policy.js';
import { parentDoc } from '../domain/serializers.js';

/** Grant levels. */
export const GRANT_PERMISSIONS = ['view', 'preview', 'edit', 'manage'] as const;
const SUBJECT_TYPES = ['user', 'role'] as const;

/** A stored grant. */
export type StoredGrant = AccessGrant & { origin?: string };

/** What the component needs. */
export interface GrantsDeps {
  db: Knex;
  index: SearchIndexPort;
  require: (action: RecordAction, identity: Identity, ctx: RecordAccessCtx, parent: ParentRow) => Promise<RecordAccessCtx>;
}

const grantNotFound = () => Errors.notFound('Grant not found.');
const listOf = (hits: Record<string, unknown>[]) => ({ hits: { hits, total: hits.length } });

/** Grants and parent access settings. */
export class GrantsService {
  constructor(private readonly d: GrantsDeps) {}

  /** The parent of a record or draft id after the manage check (404 / 403). */
  private async managed(identity: Identity, id: string): Promise<ParentRow> {
    const parentId = await parentIdOf(this.d.db, id);
    const parent = parentId ? await recordsRepo.getParent(this.d.db, parentId) : undefined;
    if (!parent) throw Errors.pidDoesNotExist();
    await this.d.require('manage', identity, ctxOf({ access: { record: 'public', files: 'public' } } as never, parent), parent);
    return parent;
  }

  /** Lock the parent, apply `change` to its access, write it and the search documents. */
  private async change<T>(parentId: string, change: (access: ParentRow['access'], grants: StoredGrant[]) => T): Promise<T> {
    return withTransaction(this.d.db, async (trx) => {
      const parent = await recordsRepo.getParent(trx, parentId, true);
      if (!parent) throw Errors.pidDoesNotExist();
      const access = { ...parent.access, grants: [...((parent.access?.grants ?? []) as StoredGrant[])] };
      const out = change(access, access.grants as StoredGrant[]);
      await recordsRepo.updateParent(trx, parent.id, { access });
      await this.d.index.refreshParent(trx, parent.id, parentDoc({ ...parent, access }));
      return out;
    });
  }

  /** GET …/access/grants. */
  async listGrants(identity: Identity, id: string) {
    const parent = await this.managed(identity, id);
    return listOf(grantsOf(parent).map((g, i) => renderGrant(g, String(i))));
  }

  /** GET …/access/users: the user grants, addressed by user id. */
  async listUsers(identity: Identity, id: string) {
    const parent = await this.managed(identity, id);
    return listOf(
      grantsOf(parent)
        .filter((g) => g.subject.type === 'user')
        .map((g) => renderGrant(g, g.subject.id)),
    );
  }

  /** POST …/access/grants or …/access/users (`usersOnly`): `{grants: [{subject, permission, origin?}]}` → the created grants. */
  async create(identity: Identity, id: string, body: unknown, usersOnly = false) {
    const parent = await this.managed(identity, id);
    const wanted = parseGrants(body, usersOnly);
    return this.change(parent.id, (_access, grants) => {
      const errors: FieldError[] = [];
      wanted.forEach((g, i) => {
        const dup = grants.some((x) => x.subject.type === g.subject.type && x.subject.id === g.subject.id);
        const dupInBody = wanted.findIndex((x) => x.subject.type === g.subject.type && x.subject.id === g.subject.id) !== i;
        if (dup || dupInBody) errors.push({ field: `grants.${i}.subject`, messages: ['A grant for this subject already exists.'] });
      });
      if (errors.length) throw Errors.validation(errors);
      const start = grants.length;
      grants.push(...wanted);
      return listOf(wanted.map((g, i) => renderGrant(g, usersOnly ? g.subject.id : String(start + i))));
    });
  }

  /** GET …/access/grants/{n} or …/access/users/{user_id}. */
  async read(identity: Identity, id: string, key: GrantKey) {
    const parent = await this.managed(identity, id);
    const grants = grantsOf(parent);
    const i = indexOf(grants, key);
    return renderGrant(grants[i]!, keyOut(grants[i]!, key, i));
  }

  /** PATCH …/access/grants/{n} or …/access/users/{user_id}: `{permission}` (and `origin`). */
  async update(identity: Identity, id: string, key: GrantKey, body: unknown) {
    const parent = await this.managed(identity, id);
    const b = objectOf(body);
    if (b.permission !== undefined && !GRANT_PERMISSIONS.includes(b.permission as never)) {
      throw Errors.validation([{ field: 'permission', messages: ['Must be one of: view, preview, edit, manage.'] }]);
    }
    return this.change(parent.id, (_a, grants) => {
      const i = indexOf(grants, key);
      const g = { ...grants[i]!, ...(b.permission ? { permission: b.permission as StoredGrant['permission'] } : {}) };
      grants[i] = g;
      return renderGrant(g, keyOut(g, key, i));
    });
  }

  /** DELETE …/access/grants/{n} or …/access/users/{user_id}. */
  async delete(identity: Identity, id: string, key: GrantKey): Promise<void> {
    const parent = await this.managed(identity, id);
    await this.change(parent.id, (_a, grants) => {
      grants.splice(indexOf(grants, key), 1);
    });
  }

  /** PUT/PATCH …/access: the parent's access settings; returns the parent. */
  async updateSettings(identity: Identity, id: string, body: unknown, replace: boolean) {
    const parent = await this.managed(identity, id);
    const settings = parseSettings(body);
    return this.change(parent.id, (access) => {
      access.settings = { ...DEFAULT_SETTINGS, ...(replace ? {} : access.settings), ...settings };
      return parentDoc({ ...parent, access });
    });
  }
}

/** How a grant is addressed: its position (`/access/grants`) or its user (`/access/users`). */
export type GrantKey = { index: string } | { user: string };

const DEFAULT_SETTINGS: ParentRow['access']['settings'] = {
  allow_user_requests: false,
  allow_guest_requests: false,
  accept_conditions_text: null,
  secret_link_expiration: 0,
};

const grantsOf = (p: ParentRow) => (p.access?.grants ?? []) as StoredGrant[];
const keyOut = (g: StoredGrant, key: GrantKey, i: number) => ('user' in key ? g.subject.id : String(i));

function indexOf(grants: StoredGrant[], key: GrantKey): number {
  const i =
    'user' in key
      ? grants.findIndex((g) => g.subject.type === 'user' && g.subject.id === key.user)
      : /^\d{1,6}$/.test(key.index)
        ? Number(key.index)
        : -1;
  if (i < 0 || i >= grants.length) throw grantNotFound();
  return i;
}

function renderGrant(g: StoredGrant, id: string): Record<string, unknown> {
  return { id, subject: { type: g.subject.type, id: g.subject.id }, permission: g.permission, ...(g.origin ? { origin: g.origin } : {}) };
}

function objectOf(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw Errors.validation([{ field: '_schema', messages: ['Invalid input type.'] }]);
  return body as Record<string, unknown>;
}

/** `{grants: [...]}` (1–100 entries) with field errors `grants.<i>.<field>`. */
function parseGrants(body: unknown, usersOnly: boolean): StoredGrant[] {
  const b = objectOf(body);
  if (!Array.isArray(b.grants) || b.grants.length === 0 || b.grants.length > 100) {
    throw Errors.validation([{ field: 'grants', messages: ['Provide between 1 and 100 grants.'] }]);
  }
  const errors: FieldError[] = [];
  const out: StoredGrant[] = [];
  b.grants.forEach((raw: unknown, i: number) => {
    const g = (raw && typeof raw === 'object' ? raw : {}) as Record<string, any>;
    const s = (g.subject && typeof g.subject === 'object' ? g.subject : {}) as Record<string, unknown>;
    const types: readonly string[] = usersOnly ? ['user'] : SUBJECT_TYPES;
    if (!types.includes(s.type as string))
      errors.push({ field: `grants.${i}.subject.type`, messages: [`Must be one of: ${types.join(', ')}.`] });
    if (typeof s.id !== 'string' || !s.id || s.id.length > 255)
      errors.push({ field: `grants.${i}.subject.id`, messages: ['Not a valid string.'] });
    if (g.permission === undefined) errors.push({ field: `grants.${i}.permission`, messages: ['Missing data for required field.'] });
    else if (!GRANT_PERMISSIONS.includes(g.permission))
      errors.push({ field: `grants.${i}.permission`, messages: ['Must be one of: view, preview, edit, manage.'] });
    if (g.origin !== undefined && typeof g.origin !== 'string')
      errors.push({ field: `grants.${i}.origin`, messages: ['Not a valid string.'] });
    out.push({
      subject: { type: s.type as 'user' | 'role', id: String(s.id) },
      permission: g.permission,
      ...(typeof g.origin === 'string' ? { origin: g.origin.slice(0, 255) } : {}),
    });
  });
  if (errors.length) throw Errors.validation(errors);
  return out;
}

/** Settings from `{access: {settings}}`, `{settings}` or the settings themselves; field errors `settings.<key>`. */
function parseSettings(body: unknown): Partial<ParentRow['access']['settings']> {
  const b = objectOf(body);
  const raw = objectOf((b.access as Record<string, unknown> | undefined)?.settings ?? b.settings ?? b);
  const errors: FieldError[] = [];
  const out: Partial<ParentRow['access']['settings']> = {};
  const known = ['allow_user_requests', 'allow_guest_requests', 'accept_conditions_text', 'secret_link_expiration'];
  for (const k of Object.keys(raw)) if (!known.includes(k)) errors.push({ field: `settings.${k}`, messages: ['Unknown field.'] });
  for (const k of ['allow_user_requests', 'allow_guest_requests'] as const) {
    if (raw[k] === undefined) continue;
    if (typeof raw[k] !== 'boolean') errors.push({ field: `settings.${k}`, messages: ['Not a valid boolean.'] });
    else out[k] = raw[k] as boolean;
  }
  const text = raw.accept_conditions_text;
  if (text !== undefined) {
    if (text !== null && (typeof text !== 'string' || text.length > 10_000))
      errors.push({ field: 'settings.accept_conditions_text', messages: ['Not a valid string.'] });
    else out.accept_conditions_text = text as string | null;
  }
  const exp = raw.secret_link_expiration;
  if (exp !== undefined) {
    if (!Number.isInteger(exp) || (exp as number) < 0 || (exp as number) > 365) {
      errors.push({
        field: 'settings.secret_link_expiration',
        messages: ['Must be greater than or equal to 0 and less than or equal to 365.'],
      });
    } else out.secret_link_expiration = exp as number;
  }
  if (errors.length) throw Errors.validation(errors);
  return out;
}
