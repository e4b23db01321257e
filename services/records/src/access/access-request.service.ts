/**
 * Asking a record's owner for access (InvenioRDM 12 `request_access`,
 * `POST /api/records/<id>/access/request`):
 *
 * - A signed-in user → a `user-access-request` (payload `{permission: "view", message?,
 *   consent_to_share_personal_data?}`), receiver the record's owner, topic the record, created
 *   `submitted` in the requests service (RPC); the message becomes its first comment. 200 with the
 *   request.
 * - A guest → nothing is created yet: a verification token (6 hours, InvenioRDM's shelf life) is
 *   stored with the guest's `email`, `full_name`, `message`, consent, and
 *   `rdm.records.access-request.verification-requested` goes to the outbox in the same
 *   transaction; the mailer e-mails the confirmation link
 *   `GET /api/records/<id>/access/request/confirm?access_request_token=<token>` (InvenioRDM's is the
 *   UI route `/access/requests/confirm`). Confirming creates the `guest-access-request` (creator
 *   `{email}`) and consumes the token. 200 `{message}`.
 *
 * Refusals, in InvenioRDM's order: unknown 404 / deleted 410 / not readable 403; already able to
 * read the files 403 "You already have access to files of this record."; the parent's
 * `allow_user_requests` / `allow_guest_requests` off 403 "Permission denied."; one open request
 * per requester and record (all versions) 400 "Identical access requests already exist: <id>";
 * bad fields 400.
 *
 * One open request per requester: the row claimed in `access_requests` (partial unique index) and
 * the RPC create run in one transaction, so of concurrent asks exactly one creates a request.
 * Accepting takes effect in `events/access-request-effects.ts`.
 *
 * When to use: the access-request routes only.
 */
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { AppError, Errors, type FieldError, type Identity, type Knex, SYSTEM, withTransaction, writeOutbox } from '@rdm/platform';
import * as ar from '../repo/access-requests.repo.js';
import * as repo from '../repo/records.repo.js';
import { ctxOf } from '../domain/access.component.js';
import type { ParentRow, RecordRow } from '../domain/model.js';
import type { RequestsPort, RequestView } from '../domain/ports.js';
import type { RecordAccessCtx, RecordAction } from '../domain/records.policy.js';

/** How long a guest's verification link works (InvenioRDM: 6 hours). */
export const GUEST_TOKEN_TTL_MS = 6 * 3600_000;
/** The answer to a guest's ask (InvenioRDM's text). */
export const VERIFICATION_SENT = 'Verification link sent out, please check your e-mail inbox';
/** 403 of someone who can already read the files (InvenioRDM's text). */
export const ALREADY_HAS_ACCESS = 'You already have access to files of this record.';

// HTML5's `type=email` rule, as abuse reports use it.
const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const KNOWN = ['permission', 'email', 'full_name', 'message', 'consent_to_share_personal_data'];
const MAX_MESSAGE = 5000;

/** sha256 of a verification token (what the table stores). */
export const accessTokenHash = (token: string): string => createHash('sha256').update(token).digest('base64url');

/** The derived token of a stored verification (`id`, `nonce`), with the key from the service secret. */
export function accessTokenOf(secret: string, row: { id: string; nonce: string }): string {
  const key = createHmac('sha256', secret).update('rdm-records-access-request').digest();
  return createHmac('sha256', key).update(`${row.id}.${row.nonce}`).digest('base64url');
}

/** Validated fields of an ask. */
export interface AskInput {
  email?: string;
  full_name?: string;
  message?: string;
  consent: 'true' | 'false';
}

/** Validate an ask; a guest must give `email` and `full_name`. 400 with every field error at once. */
export function parseAsk(raw: unknown, guest: boolean): AskInput {
  const body = raw ?? {};
  if (typeof body !== 'object' || Array.isArray(body)) throw Errors.validation([{ field: '_schema', messages: ['Invalid input type.'] }]);
  const b = body as Record<string, unknown>;
  const errors: FieldError[] = [];
  for (const k of Object.keys(b)) if (!KNOWN.includes(k)) errors.push({ field: k, messages: ['Unknown field.'] });
  const text = (field: string, max: number, required: boolean): string | undefined => {
    const v = b[field];
    if (v === undefined || v === null || (typeof v === 'string' && !v.trim())) {
      if (required) errors.push({ field, messages: ['Missing data for required field.'] });
      return undefined;
    }
    if (typeof v !== 'string') errors.push({ field, messages: ['Not a valid string.'] });
    else if (v.trim().length > max) errors.push({ field, messages: [`Longer than maximum length ${max}.`] });
    else return v.trim();
    return undefined;
  };
  const out: AskInput = { consent: 'false' };
  const email = text('email', 254, guest);
  if (email !== undefined && !EMAIL.test(email)) errors.push({ field: 'email', messages: ['Not a valid email address.'] });
  else out.email = email;
  out.full_name = text('full_name', 255, guest);
  out.message = text('message', MAX_MESSAGE, false);
  const consent = b.consent_to_share_personal_data;
  if (consent !== undefined && consent !== null) {
    if (consent === true || consent === 'true') out.consent = 'true';
    else if (consent !== false && consent !== 'false')
      errors.push({ field: 'consent_to_share_personal_data', messages: ['Must be one of: true, false.'] });
  }
  if (b.permission !== undefined && b.permission !== 'view') errors.push({ field: 'permission', messages: ['Must be equal to view.'] });
  if (errors.length) throw Errors.validation(errors);
  return out;
}

/** What the component needs. */
export interface AccessRequestDeps {
  db: Knex;
  requests: RequestsPort;
  /** The service secret verification tokens derive from. */
  secret: string;
  /** The records policy widened by community roles (`RecordsService.requireWith`). */
  require: (action: RecordAction, identity: Identity, ctx: RecordAccessCtx, parent: ParentRow) => Promise<RecordAccessCtx>;
}

const identical = (requestId: string | null | undefined) =>
  Errors.badRequest(requestId ? `Identical access requests already exist: ${requestId}` : 'The access request is a duplicate');

/** Creation of access requests and guest verification. */
export class AccessRequestService {
  constructor(private readonly d: AccessRequestDeps) {}

  /** A published record and its parent: 404 unknown, 410 deleted. */
  private async published(db: Knex | Knex.Transaction, id: string): Promise<{ record: RecordRow; parent: ParentRow }> {
    const found = await repo.getRecordWithParent(db, id);
    if (!found?.parent) {
      if (await repo.getDraft(db, id)) throw Errors.pidNotRegistered();
      throw Errors.pidDoesNotExist();
    }
    if (found.record.deletion_status !== 'P') throw Errors.gone();
    return { record: found.record, parent: found.parent };
  }

  /** Whether the (widened) policy allows `action`. */
  private async allows(action: RecordAction, identity: Identity, ctx: RecordAccessCtx, parent: ParentRow): Promise<boolean> {
    try {
      await this.d.require(action, identity, ctx, parent);
      return true;
    } catch (e) {
      if (e instanceof AppError && e.status === 403) return false;
      throw e;
    }
  }

  /** `POST /api/records/<id>/access/request`: the created request (user), or `{message}` (guest). */
  async ask(identity: Identity, recordId: string, body: unknown): Promise<RequestView | { message: string }> {
    const { record, parent } = await this.published(this.d.db, recordId);
    const ctx = ctxOf(record, parent);
    await this.d.require('read', identity, ctx, parent);
    if (await this.allows('read_files', identity, ctx, parent)) throw Errors.permissionDenied(ALREADY_HAS_ACCESS);
    const settings = parent.access?.settings;
    const guest = identity.sub === null;
    if (!(guest ? settings?.allow_guest_requests : settings?.allow_user_requests)) throw Errors.permissionDenied();
    if (guest) return this.guestAsk(record, parent, parseAsk(body, true));
    return this.userAsk(identity, record, parent, body);
  }

  private async userAsk(identity: Identity, record: RecordRow, parent: ParentRow, body: unknown): Promise<RequestView> {
    const userId = String(identity.sub);
    return this.createClaimed({ type: 'user-access-request', parent, record, requester: userId, email: null }, () => {
      // Validated once the duplicate check passed (InvenioRDM's order).
      const input = parseAsk(body, false);
      const payload: Record<string, unknown> = { permission: 'view', consent_to_share_personal_data: input.consent };
      if (input.message) payload.message = input.message;
      return { identity: { sub: identity.sub, roles: identity.roles }, created_by: { user: userId }, payload, message: input.message };
    });
  }

  /**
   * Claim the open slot of (parent, type, requester) and create the request in one transaction:
   * 400 when an open request holds the slot; `build` (validation) runs after that check.
   */
  private async createClaimed(
    slot: {
      type: ar.AccessRequestRow['type'];
      parent: ParentRow;
      record: RecordRow;
      requester: string;
      email: string | null;
      key?: string;
    },
    build: () => {
      identity: { sub: string | null; roles: string[] };
      created_by: Record<string, string>;
      payload: Record<string, unknown>;
      message?: string;
    },
    inTrx?: Knex.Transaction,
  ): Promise<RequestView> {
    const owner = slot.parent.owner_id;
    if (!owner) throw Errors.badRequest('The record has no owner to ask for access.');
    const run = async (trx: Knex.Transaction) => {
      const id = randomUUID();
      const claim = await ar.claimOpen(trx, {
        id,
        type: slot.type,
        parent_id: slot.parent.id,
        record_id: slot.record.id,
        requester: slot.requester,
        email: slot.email,
      });
      if (!claim.claimed) throw identical(claim.existing?.request_id);
      const req = build();
      const request = await this.d.requests.create({
        identity: req.identity,
        type: slot.type,
        created_by: req.created_by,
        receiver: { user: owner },
        topic: { record: slot.record.id },
        title: String(slot.record.metadata?.title ?? ''),
        payload: req.payload,
        ...(req.message ? { comment: { content: req.message, format: 'html' } } : {}),
        key: slot.key ?? `access-request:${id}`,
      });
      await ar.setRequestId(trx, id, request.id);
      return request;
    };
    return inTrx ? run(inTrx) : withTransaction(this.d.db, run);
  }

  private async guestAsk(record: RecordRow, parent: ParentRow, input: AskInput): Promise<{ message: string }> {
    const id = randomUUID();
    const nonce = randomBytes(16).toString('base64url');
    await withTransaction(this.d.db, async (trx) => {
      await ar.deleteExpiredTokens(trx);
      await ar.insertToken(trx, {
        id,
        record_id: record.id,
        parent_id: parent.id,
        email: input.email!,
        full_name: input.full_name!,
        message: input.message ?? '',
        consent: input.consent,
        nonce,
        token_hash: accessTokenHash(accessTokenOf(this.d.secret, { id, nonce })),
        expires_at: new Date(Date.now() + GUEST_TOKEN_TTL_MS),
      });
      await writeOutbox(trx, {
        subject: 'rdm.records.access-request.verification-requested',
        aggregate: { type: 'access-request-token', id, revision: 1 },
        data: { token_id: id, record_id: record.id, parent_id: parent.id },
      });
    });
    return { message: VERIFICATION_SENT };
  }

  /**
   * `GET /api/records/<id>/access/request/confirm?access_request_token=…`: the guest's e-mail is
   * verified; the `guest-access-request` is created (as the system) and the token consumed.
   * Signed-in callers 403 (InvenioRDM); unknown, expired or used tokens 404.
   */
  async confirm(identity: Identity, recordId: string, token: unknown): Promise<RequestView> {
    if (identity.sub !== null) throw Errors.permissionDenied();
    const unknown = () => Errors.notFound('The access request token is unknown or has expired.');
    if (typeof token !== 'string' || !token || token.length > 256) throw unknown();
    return withTransaction(this.d.db, async (trx) => {
      const row = await ar.liveTokenByHash(trx, accessTokenHash(token));
      if (!row || row.record_id !== recordId) throw unknown();
      const { record, parent } = await this.published(trx, row.record_id);
      const settings = parent.access?.settings;
      if (!settings?.allow_guest_requests) throw Errors.permissionDenied();
      const payload: Record<string, unknown> = {
        permission: 'view',
        email: row.email,
        full_name: row.full_name,
        message: row.message,
        consent_to_share_personal_data: row.consent,
        secret_link_expiration: String(settings.secret_link_expiration ?? 0),
      };
      const request = await this.createClaimed(
        {
          type: 'guest-access-request',
          parent,
          record,
          requester: row.email.toLowerCase(),
          email: row.email,
          key: `guest-access-request:${row.id}`,
        },
        () => ({
          identity: { sub: SYSTEM.sub, roles: SYSTEM.roles },
          created_by: { email: row.email },
          payload,
          message: row.message || undefined,
        }),
        trx,
      );
      await ar.deleteToken(trx, row.id);
      return request;
    });
  }
}
