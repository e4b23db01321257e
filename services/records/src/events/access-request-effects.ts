/**
 * The records side of accepted access requests (proto/README.md, "Requests whose effect lives in
 * another service"), and the bookkeeping of open ones.
 *
 * When to use: only from the durable consumer of `rdm.requests.request.*`
 * (events/access-requests.consumer.ts), inside the transaction that writes the inbox row.
 *
 * - `accepted` `user-access-request` → a user grant on the record's parent (`payload.permission`,
 *   default `view`; an existing grant of that user is raised, never lowered), the parent and its
 *   search documents written together (as `access/grants.service.ts`), then
 *   `rdm.records.access-request.granted` `{kind: "grant"}`.
 * - `accepted` `guest-access-request` → a secret link (`payload.permission`, expiring after
 *   `payload.secret_link_expiration` days, 0 = never; description "Requested by guest: <name>
 *   (<email>)", origin `request:<id>`), then `…granted` `{kind: "link", link_id}`; the mailer sends
 *   the link to the guest.
 * - The record deleted or unknown → `rdm.records.access-request.failed` (the request goes back
 *   to submitted; a later accept tries again).
 * - Authority re-checked at accept time (issue 18): the request's receiver must still be the
 *   record's owner (only the owner grants access), and its topic and creator must be those of
 *   records' own row of the request; otherwise `…failed` too, and nothing is granted.
 * - `declined`, `cancelled`, `expired`, `deleted` → the request no longer blocks a new one.
 *
 * At most once per request: the `access_requests` row is locked and its `effect` set in the same
 * transaction; a redelivery or a second event for the request finds it set and does nothing.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { type EventEnvelope, type Knex, type MsgLogger, writeOutbox } from '@rdm/platform';
import { parentIdOf } from '../repo/access.repo.js';
import * as linksRepo from '../repo/access.repo.js';
import * as ar from '../repo/access-requests.repo.js';
import * as repo from '../repo/records.repo.js';
import { type AccessLinksService, tokenHash } from '../access/access-links.service.js';
import type { StoredGrant } from '../access/grants.service.js';
import type { ParentRow } from '../domain/model.js';
import type { SearchIndexPort } from '../domain/ports.js';
import type { AccessLevel } from '../domain/records.policy.js';
import type { RequestEventData } from './review-saga.js';
import { parentDoc } from '../domain/serializers.js';

/** The request types handled here. */
export const ACCESS_REQUEST_TYPES = ['user-access-request', 'guest-access-request'] as const;

const CLOSING = new Set([
  'rdm.requests.request.declined',
  'rdm.requests.request.cancelled',
  'rdm.requests.request.expired',
  'rdm.requests.request.deleted',
]);
const RANK: Record<AccessLevel, number> = { view: 1, preview: 2, edit: 3, manage: 4 };
const GRANT_LEVELS: AccessLevel[] = ['view', 'preview', 'edit', 'manage'];
const LINK_LEVELS = ['view', 'preview', 'edit'] as const;

/** Messages of refused access-request effects (in `rdm.records.access-request.failed`). */
export const ACCESS_EFFECT_MESSAGES = {
  recordGone: 'The record no longer exists.',
  notThisRequest: 'The request does not match the access request made for this record.',
  notTheOwner: "The request's receiver is not the record's owner.",
} as const;

/** What the component needs. */
export interface AccessRequestEffectsDeps {
  index: SearchIndexPort;
  /** Renders links (and derives their tokens). */
  links: Pick<AccessLinksService, 'render'>;
  logger: MsgLogger;
}

/** `YYYY-MM-DD` `days` after today (UTC), or null for 0 / invalid. */
export function linkExpiry(days: unknown, now = new Date()): string | null {
  const n = typeof days === 'string' ? Number(days) : typeof days === 'number' ? days : Number.NaN;
  if (!Number.isInteger(n) || n <= 0) return null;
  return new Date(now.getTime() + n * 86_400_000).toISOString().slice(0, 10);
}

/** Effects of access requests on records. */
export class AccessRequestEffects {
  constructor(private readonly d: AccessRequestEffectsDeps) {}

  /** Handle one `rdm.requests.request.<verb>` event (other types are ignored). */
  async onRequestEvent(trx: Knex.Transaction, e: EventEnvelope<RequestEventData>): Promise<void> {
    const r = e.data;
    if (!r || !(ACCESS_REQUEST_TYPES as readonly string[]).includes(r.type) || typeof r.id !== 'string') return;
    if (e.type === 'rdm.requests.request.accepted') await this.onAccepted(trx, r);
    else if (CLOSING.has(e.type)) await ar.closeRequest(trx, r.id);
  }

  private async onAccepted(trx: Knex.Transaction, r: RequestEventData): Promise<void> {
    const recordId = r.topic?.record;
    if (!recordId) {
      this.d.logger.warn({ request: r.id }, 'accepted access request without a record topic; ignored');
      return;
    }
    const payload = (r.payload ?? {}) as Record<string, unknown>;
    const guest = r.type === 'guest-access-request';
    let row = await ar.byRequestId(trx, r.id, true);
    if (!row) {
      // Accepted before records committed its own row (or made elsewhere): adopt it.
      const parentId = await parentIdOf(trx, recordId);
      const requester = guest ? String(r.created_by?.email ?? '').toLowerCase() : String(r.created_by?.user ?? '');
      if (parentId && requester) {
        await ar.adoptRequest(trx, {
          id: randomUUID(),
          request_id: r.id,
          type: r.type as ar.AccessRequestRow['type'],
          parent_id: parentId,
          record_id: recordId,
          requester,
          email: guest ? String(r.created_by?.email ?? '') : null,
        });
        row = await ar.byRequestId(trx, r.id, true);
      }
    }
    if (row?.effect === 'grant' || row?.effect === 'link') {
      this.d.logger.debug({ request: r.id }, 'access request already applied; nothing re-emitted');
      return;
    }
    const found = await repo.getRecordWithParent(trx, recordId);
    if (!found?.parent || found.record.deletion_status !== 'P') return this.fail(trx, r, recordId, ACCESS_EFFECT_MESSAGES.recordGone);
    const parent = (await repo.getParent(trx, found.parent.id, true))!;
    const requester = guest ? String(r.created_by?.email ?? '').toLowerCase() : String(r.created_by?.user ?? '');
    if (row && (row.parent_id !== parent.id || row.requester !== requester)) {
      return this.fail(trx, r, recordId, ACCESS_EFFECT_MESSAGES.notThisRequest);
    }
    if (!parent.owner_id || r.receiver?.user !== parent.owner_id) return this.fail(trx, r, recordId, ACCESS_EFFECT_MESSAGES.notTheOwner);
    if (guest) await this.createLink(trx, r, parent, recordId, payload);
    else await this.grantUser(trx, r, parent, recordId, payload);
  }

  /** The effect refused: `rdm.records.access-request.failed` (the request goes back to submitted). */
  private async fail(trx: Knex.Transaction, r: RequestEventData, recordId: string, message: string): Promise<void> {
    await writeOutbox(trx, {
      subject: 'rdm.records.access-request.failed',
      aggregate: { type: 'request', id: r.id, revision: 0 },
      data: { request_id: r.id, record_id: recordId, message },
    });
  }

  private async grantUser(
    trx: Knex.Transaction,
    r: RequestEventData,
    parent: ParentRow,
    recordId: string,
    payload: Record<string, unknown>,
  ) {
    const userId = String(r.created_by?.user ?? '');
    const permission: AccessLevel = GRANT_LEVELS.includes(payload.permission as AccessLevel) ? (payload.permission as AccessLevel) : 'view';
    const grants = [...((parent.access?.grants ?? []) as StoredGrant[])];
    const i = grants.findIndex((g) => g.subject.type === 'user' && g.subject.id === userId);
    if (i < 0) grants.push({ subject: { type: 'user', id: userId }, permission, origin: `request:${r.id}` });
    else if (RANK[grants[i]!.permission] < RANK[permission]) grants[i] = { ...grants[i]!, permission };
    const access = { ...parent.access, grants };
    await repo.updateParent(trx, parent.id, { access });
    await this.d.index.refreshParent(trx, parent.id, parentDoc({ ...parent, access }));
    await writeOutbox(trx, {
      subject: 'rdm.records.access-request.granted',
      aggregate: { type: 'parent', id: parent.id, revision: parent.revision_id + 1 },
      data: { request_id: r.id, record_id: recordId, parent_id: parent.id, kind: 'grant', permission, user_id: userId },
    });
    await ar.closeRequest(trx, r.id, { effect: 'grant' });
  }

  private async createLink(
    trx: Knex.Transaction,
    r: RequestEventData,
    parent: ParentRow,
    recordId: string,
    payload: Record<string, unknown>,
  ) {
    const permission = LINK_LEVELS.includes(payload.permission as never) ? (payload.permission as (typeof LINK_LEVELS)[number]) : 'view';
    const expires = linkExpiry(payload.secret_link_expiration);
    const linkId = randomUUID();
    const nonce = randomBytes(16).toString('base64url');
    const token = this.d.links.render({ id: linkId, nonce, created_at: new Date() } as never).token as string;
    await linksRepo.insertLink(trx, {
      id: linkId,
      parent_id: parent.id,
      permission,
      description: `Requested by guest: ${String(payload.full_name ?? '')} (${String(payload.email ?? r.created_by?.email ?? '')})`.slice(
        0,
        1000,
      ),
      expires_at: expires,
      origin: `request:${r.id}`,
      nonce,
      token_hash: tokenHash(token),
      created_by: r.actor?.user ?? null,
    });
    await writeOutbox(trx, {
      subject: 'rdm.records.access-request.granted',
      aggregate: { type: 'parent', id: parent.id, revision: parent.revision_id },
      data: { request_id: r.id, record_id: recordId, parent_id: parent.id, kind: 'link', permission, link_id: linkId, expires_at: expires },
    });
    await ar.closeRequest(trx, r.id, { effect: 'link', link_id: linkId });
  }
}
