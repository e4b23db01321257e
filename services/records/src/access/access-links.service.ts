/**
 * Secret access links of a record's parent (`…/access/links`, InvenioRDM's secret links, reference
 * §1.6 and §4.13) and the resolution of a presented token (`?token=` on HTTP, `access_token` of
 * the authorize-files RPC) into the caller's identity.
 *
 * Tokens are never stored: a token is HMAC-SHA256(key, `<id>.<nonce>`) with a key derived from the
 * service secret; the row keeps the nonce (so every read can show the token again, as InvenioRDM
 * and the spec's link shape do) and sha256(token) (so a presented token finds its link in one
 * indexed look-up). A token is resolved on every request — no cache — so a deleted or expired link
 * stops working at once. Bad, expired or revoked tokens are silently ignored (the caller stays
 * what it was), as in InvenioRDM.
 *
 * When to use: the access routes (CRUD, manage level only); `withLinkToken` (domain/link-token.ts)
 * wherever a request may carry a token.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { Errors, type FieldError, type Identity, type Knex, withTransaction } from '@rdm/platform';
import * as repo from '../repo/access.repo.js';
import type { AccessLinkRow } from '../repo/access.repo.js';
import { getParent } from '../repo/records.repo.js';
import { ctxOf } from '../domain/access.component.js';
import { tokenHash, withLinkToken } from '../domain/link-token.js';
import type { ParentRow } from '../domain/model.js';
import type { RecordAccessCtx, RecordAction } from '../domain/records.policy.js';

/** Re-exported for the link routes and effects (the resolution lives in domain/link-token.ts). */
export { tokenHash, withLinkToken };

/** The link levels. */
export const LINK_PERMISSIONS = ['view', 'preview', 'edit'] as const;
const MAX_DESCRIPTION = 1000;

/** The 404 of an unknown link (InvenioRDM's message). */
const linkNotFound = () => Errors.notFound('No secret link found with the given ID.');

/** Today at 00:00 UTC as `YYYY-MM-DD`. */
const todayUtc = () => new Date().toISOString().slice(0, 10);

/** A valid calendar date `YYYY-MM-DD`, or undefined. */
function parseDate(v: unknown): string | undefined {
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return undefined;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v ? v : undefined;
}

/** What the component needs. */
export interface AccessLinksDeps {
  db: Knex;
  /** The service secret the token key is derived from. */
  secret: string;
  /** The records policy widened by community roles (`RecordsService.requireWith`). */
  require: (action: RecordAction, identity: Identity, ctx: RecordAccessCtx, parent: ParentRow) => Promise<RecordAccessCtx>;
}

/** CRUD of secret links (manage level). */
export class AccessLinksService {
  private readonly key: Buffer;

  constructor(private readonly d: AccessLinksDeps) {
    this.key = createHmac('sha256', d.secret).update('rdm-records-link').digest();
  }

  /** The token of a link (derived, never stored). */
  private tokenOf(row: Pick<AccessLinkRow, 'id' | 'nonce'>): string {
    return createHmac('sha256', this.key).update(`${row.id}.${row.nonce}`).digest('base64url');
  }

  /** The API form `{id, created_at, expires_at?, permission, description, token}`. */
  render(row: AccessLinkRow): Record<string, unknown> {
    const out: Record<string, unknown> = {
      id: row.id,
      created_at: new Date(row.created_at).toISOString(),
      permission: row.permission,
      description: row.description,
      token: this.tokenOf(row),
    };
    if (row.expires_at) out.expires_at = row.expires_at;
    return out;
  }

  /** The parent of a record or draft id, after the manage check (404 unknown id, 403 not manager). */
  private async managed(identity: Identity, id: string): Promise<ParentRow> {
    const parentId = await repo.parentIdOf(this.d.db, id);
    const parent = parentId ? await getParent(this.d.db, parentId) : undefined;
    if (!parent) throw Errors.pidDoesNotExist();
    // Manage does not depend on the record's protection: any access section will do.
    await this.d.require('manage', identity, ctxOf({ access: { record: 'public', files: 'public' } } as never, parent), parent);
    return parent;
  }

  /** POST …/access/links. */
  async create(identity: Identity, id: string, body: unknown): Promise<Record<string, unknown>> {
    const parent = await this.managed(identity, id);
    const b = objectBody(body);
    const errors: FieldError[] = [];
    let permission: AccessLinkRow['permission'] | undefined;
    if (b.permission === undefined || b.permission === null)
      errors.push({ field: 'permission', messages: ['An access permission level is required'] });
    else if (!LINK_PERMISSIONS.includes(b.permission as never))
      errors.push({ field: 'permission', messages: ['Must be one of: view, preview, edit.'] });
    else permission = b.permission as AccessLinkRow['permission'];
    const expires = expiryOf(b.expires_at, errors);
    const description = descriptionOf(b.description, errors);
    if (b.origin !== undefined && b.origin !== null && typeof b.origin !== 'string')
      errors.push({ field: 'origin', messages: ['Not a valid string.'] });
    if (errors.length) throw Errors.validation(errors);
    const linkId = randomUUID();
    const nonce = randomBytes(16).toString('base64url');
    const row = await repo.insertLink(this.d.db, {
      id: linkId,
      parent_id: parent.id,
      permission: permission!,
      description: description ?? '',
      expires_at: expires ?? null,
      origin: typeof b.origin === 'string' ? b.origin.slice(0, 255) : null,
      nonce,
      token_hash: tokenHash(this.tokenOf({ id: linkId, nonce })),
      created_by: identity.sub,
    });
    return this.render(row);
  }

  /** GET …/access/links: `{hits: {hits, total}}`. */
  async list(identity: Identity, id: string): Promise<{ hits: { hits: Record<string, unknown>[]; total: number } }> {
    const parent = await this.managed(identity, id);
    const rows = await repo.listLinks(this.d.db, parent.id);
    return { hits: { hits: rows.map((r) => this.render(r)), total: rows.length } };
  }

  /** GET …/access/links/{link_id}. */
  async read(identity: Identity, id: string, linkId: string): Promise<Record<string, unknown>> {
    const parent = await this.managed(identity, id);
    const row = isUuid(linkId) ? await repo.getLink(this.d.db, parent.id, linkId) : undefined;
    if (!row) throw linkNotFound();
    return this.render(row);
  }

  /** PATCH …/access/links/{link_id}: permission, description, a shorter expiry (never postponed). */
  async update(identity: Identity, id: string, linkId: string, body: unknown): Promise<Record<string, unknown>> {
    const parent = await this.managed(identity, id);
    if (!isUuid(linkId)) throw linkNotFound();
    const b = objectBody(body);
    return withTransaction(this.d.db, async (trx) => {
      const row = await repo.getLink(trx, parent.id, linkId, true);
      if (!row) throw linkNotFound();
      const errors: FieldError[] = [];
      let permission = row.permission;
      if (b.permission !== undefined) {
        if (!LINK_PERMISSIONS.includes(b.permission as never))
          errors.push({ field: 'permission', messages: ['Must be one of: view, preview, edit.'] });
        else permission = b.permission as AccessLinkRow['permission'];
      }
      let expires = row.expires_at;
      if ('expires_at' in b) {
        const next = expiryOf(b.expires_at, errors);
        if (next !== undefined || b.expires_at === null || b.expires_at === '') {
          const nextOrNull = next ?? null;
          if (row.expires_at && (nextOrNull === null || nextOrNull > row.expires_at)) {
            errors.push({ field: 'expires_at', messages: ['Cannot postpone expiration of links'] });
          } else expires = nextOrNull;
        }
      }
      const description = b.description !== undefined ? descriptionOf(b.description, errors) : row.description;
      if (errors.length) throw Errors.validation(errors);
      return this.render(await repo.updateLink(trx, row.id, { permission, description: description ?? '', expires_at: expires }));
    });
  }

  /** DELETE …/access/links/{link_id}: the token stops working at once. */
  async delete(identity: Identity, id: string, linkId: string): Promise<void> {
    const parent = await this.managed(identity, id);
    if (!isUuid(linkId) || !(await repo.deleteLink(this.d.db, parent.id, linkId))) throw linkNotFound();
  }
}

const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);

/** The body as an object (400 otherwise). */
function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw Errors.validation([{ field: '_schema', messages: ['Invalid input type.'] }]);
  return body as Record<string, unknown>;
}

/** A future expiry date, undefined when absent; pushes the reference's messages. */
function expiryOf(v: unknown, errors: FieldError[]): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const date = parseDate(v);
  if (!date) {
    errors.push({ field: 'expires_at', messages: ['Not a valid date.'] });
    return undefined;
  }
  if (date <= todayUtc()) {
    errors.push({ field: 'expires_at', messages: ['Expiration date must be set to the future'] });
    return undefined;
  }
  return date;
}

/** A description string (or empty). */
function descriptionOf(v: unknown, errors: FieldError[]): string | undefined {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') {
    errors.push({ field: 'description', messages: ['Not a valid string.'] });
    return undefined;
  }
  if (v.length > MAX_DESCRIPTION) {
    errors.push({ field: 'description', messages: [`Longer than maximum length ${MAX_DESCRIPTION}.`] });
    return undefined;
  }
  return v;
}
