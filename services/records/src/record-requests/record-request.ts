/**
 * Owners' record requests as DATA: a deletion, a quota increase and a file modification are each
 * a `RecordRequestType` (its requests-service type id, where its topic is found and who may ask,
 * how its body is parsed and checked, how records claims its one open slot, its title and
 * payload, whether it is accepted at once), and `openRecordRequest` runs the ask the same way for
 * all of them: anonymous 403 → the type's `load` (404/410/403) → `parse` (400) → `check` →
 * one transaction claiming the slot (second open one: 400 with the type's message) and creating
 * the request in the requests service (RPC `create`, `submitted`, receiver `{group: "admin"}`) →
 * for an immediate one, the system's accept (RPC `action`; a 4xx leaves it open for an
 * administrator).
 *
 * When to use: a new owner's request on a record or draft is one more `RecordRequestType` (and its
 * `RecordRequestWorkersDef` in `record-request-workers.ts`), never a new copy of this flow.
 */
import { randomUUID } from 'node:crypto';
import { AppError, Errors, type FieldError, type Identity, type Knex, SYSTEM, withTransaction } from '@rdm/platform';
import type { RequestsPort, RequestView } from '../domain/ports.js';
import * as repo from '../repo/records.repo.js';

/** What every record request needs. */
export interface RecordRequestDeps {
  db: Knex;
  requests: RequestsPort;
}

/** What a record request accepted at once within a grace period needs. */
export interface GracePeriodDeps extends RecordRequestDeps {
  /** Days after a record's publication during which its owner's request is accepted at once. */
  gracePeriodDays: number;
}

/** One kind of owner's record request (the differences between the types; the flow is shared). */
export interface RecordRequestType<Ask, Target extends { topicId: string }> {
  /** The requests service's type id (also the idempotency key's prefix). */
  id: string;
  /** The topic and the permission: 404/410/403 as the type answers them. */
  load(db: Knex, identity: Identity, id: string): Promise<Target>;
  /** The body, or 400 with field errors. */
  parse(body: unknown): Ask;
  /** Checks after parsing (400). */
  check?(ask: Ask, target: Target): Promise<void> | void;
  /** Accepted at once by the system? */
  immediate?(target: Target): boolean;
  /** The system's comment on a request accepted at once. */
  immediateComment?: string;
  /** Claim records' open slot (inside the ask's transaction): undefined, or the 400 refusal. */
  claim(trx: Knex.Transaction, slot: { id: string; target: Target; requester: string; immediate: boolean }): Promise<string | undefined>;
  /** Attach the requests service's id to the claimed slot. */
  setRequestId(trx: Knex.Transaction, slotId: string, requestId: string): Promise<void>;
  /** The request's title. */
  title(target: Target): string;
  /** The request's payload. */
  payload(ask: Ask, target: Target): Record<string, unknown>;
  /** The request's first comment ('' none). */
  comment(ask: Ask): string;
}

/** What an ask answers: the request and whether it was accepted at once. */
export interface RecordRequestOutcome {
  request: RequestView;
  immediate: boolean;
}

/** Run an owner's ask of type `type` on `id` (the shared flow, see the file header). */
export async function openRecordRequest<Ask, Target extends { topicId: string }>(
  d: RecordRequestDeps,
  type: RecordRequestType<Ask, Target>,
  identity: Identity,
  id: string,
  body: unknown,
): Promise<RecordRequestOutcome> {
  if (identity.sub === null) throw Errors.permissionDenied();
  const caller = { sub: identity.sub, roles: [...identity.roles] };
  const target = await type.load(d.db, identity, id);
  const ask = type.parse(body);
  await type.check?.(ask, target);
  const immediate = type.immediate?.(target) ?? false;
  const requester = String(identity.sub);
  const request = await withTransaction(d.db, async (trx) => {
    const slot = randomUUID();
    const refusal = await type.claim(trx, { id: slot, target, requester, immediate });
    if (refusal !== undefined) throw Errors.badRequest(refusal);
    const comment = type.comment(ask);
    const created = await d.requests.create({
      identity: caller,
      type: type.id,
      created_by: { user: requester },
      receiver: { group: 'admin' },
      topic: { record: target.topicId },
      title: type.title(target),
      payload: type.payload(ask, target),
      ...(comment ? { comment: { content: comment, format: 'html' } } : {}),
      key: `${type.id}:${slot}`,
    });
    await type.setRequestId(trx, slot, created.id);
    return created;
  });
  if (!immediate) return { request, immediate };
  try {
    const accepted = await d.requests.action({
      id: request.id,
      action: 'accept',
      identity: { sub: SYSTEM.sub, roles: [...SYSTEM.roles] },
      payload: { content: type.immediateComment ?? '', format: 'html' },
    });
    // The system's view of the request: answer the owner's.
    return { request: await d.requests.get(accepted.id, caller), immediate };
  } catch (err) {
    // The request exists and stays open for an administrator; the ask itself succeeded.
    if (err instanceof AppError && err.status < 500) return { request, immediate: false };
    throw err;
  }
}

/** True when the caller owns the record or draft (only owners may ask: InvenioRDM's `RecordOwners`). */
export function isOwner(identity: Identity, ownerId: string | null | undefined): boolean {
  return identity.sub !== null && !!ownerId && String(ownerId) === String(identity.sub);
}

/** Is `published` within `days` of `now`? */
export function withinGracePeriod(published: Date | string, days: number, now = new Date()): boolean {
  return now.getTime() - new Date(published).getTime() <= days * 86_400_000;
}

/** The caller's published record `id`: unknown 404, a draft's id 404, deleted 410, not the owner 403. */
export async function ownPublishedRecord(db: Knex, identity: Identity, id: string) {
  const found = await repo.getRecordWithParent(db, id);
  if (!found?.parent) {
    if (await repo.getDraft(db, id)) throw Errors.pidNotRegistered();
    throw Errors.pidDoesNotExist();
  }
  const { record, parent } = found;
  if (record.deletion_status !== 'P') throw Errors.gone();
  if (!isOwner(identity, parent.owner_id)) throw Errors.permissionDenied();
  return { record, parent, topicId: record.id };
}

/** A plain object? */
export const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The body as an object (else 400 `_schema`), with an `Unknown field.` error per key not in `fields`. */
export function askFields(body: unknown, fields: string[]): { body: Record<string, unknown>; errors: FieldError[] } {
  if (!isObj(body)) throw Errors.validation([{ field: '_schema', messages: ['Invalid input type.'] }]);
  const errors: FieldError[] = [];
  for (const k of Object.keys(body).filter((k) => !fields.includes(k))) errors.push({ field: k, messages: ['Unknown field.'] });
  return { body, errors };
}

/** An optional text field (absent or null: ''), trimmed; errors pushed for a non-string or a bad length. */
export function optionalText(v: unknown, field: string, errors: FieldError[], len: { min?: number; max: number }): string {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') errors.push({ field, messages: ['Not a valid string.'] });
  else if (len.min !== undefined && v.trim().length < len.min)
    errors.push({ field, messages: [`Shorter than minimum length ${len.min}.`] });
  else if (v.length > len.max) errors.push({ field, messages: [`Longer than maximum length ${len.max}.`] });
  else return v.trim();
  return '';
}
