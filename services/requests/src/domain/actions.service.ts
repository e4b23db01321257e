/**
 * The action engine: `submit`, `accept`, `decline`, `cancel`, `expire` for every type, driven
 * only by the registry's data. Check order as InvenioRDM: 404 → unknown action 400 → permission
 * 403 (plus the type's guards) → wrong state 400 (re-checked under `SELECT … FOR UPDATE`, so of
 * concurrent actions on one request exactly one wins and the others get a clean 400).
 *
 * One transaction per action: status change, log event (type L, none for submit), then the
 * optional body comment, then `rdm.requests.request.<verb>` in the outbox. An accept of a `saga`
 * type only moves to `accepting` (its log and comment wait for the effect, see effects.ts); a
 * submit the type auto-accepts (`autoAcceptOnSubmit`, unless `require_review`) runs the accept as
 * the system in the same transaction. Accepts register their effect waiter before committing and
 * wait for it (bounded) after; still `accepting` past the wait = `pending` (the route's 202).
 */
import { randomUUID } from 'node:crypto';
import { Errors, type Identity, SYSTEM } from '@rdm/platform';
import { insertEvent } from '../repo/events.repo.js';
import { findRequest, lockExpired, touchActivity, updateRequest } from '../repo/requests.repo.js';
import { type CommentInput, parseCommentBody } from './comment-input.js';
import { loadCallerContext } from './context.js';
import type { EffectWaiter } from './effects.js';
import { RequestErrors } from './errors.js';
import type { ActionName, RequestRow } from './model.js';
import { callerRef, mayRunAction } from './policy.js';
import { type RequestVerb, writeRequestEvent } from './request-events.js';
import type { RequestsService } from './requests.service.js';
import { requestType } from './types/registry.js';
import type { GuardContext, RequestType } from './types/request-type.js';

const VERBS: Record<ActionName, RequestVerb> = {
  submit: 'submitted',
  accept: 'accepted',
  decline: 'declined',
  cancel: 'cancelled',
  expire: 'expired',
};

/** Extra data of an action from another service (RPC `data`). */
export interface ActionData {
  require_review?: boolean;
  /** On submit: the request's new title (records sets the draft's title). */
  title?: string;
}

/** Outcome of an action: the request as the caller sees it, and whether it still awaits its effect. */
export interface ActionOutcome {
  request: Record<string, unknown>;
  /** True when an awaited effect had not arrived within the wait: the request shows its pending state (HTTP 202). */
  pending: boolean;
}

type Trx = Parameters<Parameters<RequestsService['deps']['db']['transaction']>[0]>[0];

/** Runs request actions. */
export class ActionsService {
  constructor(
    private readonly requests: RequestsService,
    private readonly waiter: EffectWaiter,
  ) {}

  /** The RPC `action`: the request afterwards, as the caller sees it (pending or not). */
  async run(identity: Identity, id: string, action: string, body?: unknown, data: ActionData = {}): Promise<Record<string, unknown>> {
    return (await this.runWithOutcome(identity, id, action, body, data)).request;
  }

  /**
   * `POST /api/requests/<id>/actions/<action>`: the request afterwards, and `pending` when it is
   * still `accepting` after the bounded wait (the route answers 202 then, 200 otherwise).
   */
  async runWithOutcome(identity: Identity, id: string, action: string, body?: unknown, data: ActionData = {}): Promise<ActionOutcome> {
    const { db, communities, config } = this.requests.deps;
    const req = await this.requests.load(id);
    const type = requestType(req.type);
    const def = type?.actions[action as ActionName];
    if (!type || !def) throw RequestErrors.noSuchAction(action);
    const name = action as ActionName;
    const ctx = await loadCallerContext(communities, identity, [req]);
    if (!mayRunAction(name, identity, req, type, ctx.roles)) throw Errors.permissionDenied();
    const guard = type.guards?.[name];
    const autoAcceptRule = name === 'submit' && type.actions.accept ? type.autoAcceptOnSubmit : undefined;
    let g: GuardContext | undefined;
    if (guard || autoAcceptRule) {
      const cid = req.receiver.type === 'community' ? req.receiver.id : undefined;
      const community = cid ? (await communities.get([cid])).get(cid) : undefined;
      g = { userId: identity.sub, request: req, community, role: cid ? ctx.roles[cid] : undefined };
      guard?.(g);
    }
    const comment = parseCommentBody(body, { required: false, maxLength: config.commentMaxLength });
    const b = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
    const requireReview = b.require_review === true || data.require_review === true;
    const autoAccept = !!(autoAcceptRule && g && !requireReview && autoAcceptRule(g));
    const waits = (name === 'accept' || autoAccept) && type.effect.confirm.length > 0;
    const expectation = waits ? this.waiter.expect(req.id) : undefined;
    let final: RequestRow;
    try {
      final = await db.transaction(async (trx) => {
        const locked = await this.requests.load(req.id, trx, { forUpdate: true });
        if (!def.from.includes(locked.status)) throw RequestErrors.cannotExecute(action);
        let row = await this.transition(trx, locked, type, name, identity, comment, name === 'submit' ? data.title : undefined);
        if (autoAccept) {
          const sysComment = type.autoAcceptComment ? { content: type.autoAcceptComment, format: 'html' as const } : undefined;
          row = await this.transition(trx, row, type, 'accept', SYSTEM, sysComment);
        }
        return row;
      });
    } catch (err) {
      expectation?.cancel();
      throw err;
    }
    if (expectation) {
      const pending = final.status === 'accepting' || (final.status === 'accepted' && type.effect.mode === 'direct');
      if (pending) await expectation.wait(config.effectWaitMs);
      else expectation.cancel();
    }
    await this.requests.indexed([req.id]);
    const fresh = (await findRequest(db, req.id)) ?? final;
    return { request: (await this.requests.render(identity, [fresh]))[0], pending: fresh.status === 'accepting' };
  }

  /** Apply one action to a locked request inside `trx` (no permission or state checks). */
  async transition(
    trx: Trx,
    row: RequestRow,
    type: RequestType,
    action: ActionName,
    identity: Identity,
    comment?: CommentInput,
    title?: string,
  ): Promise<RequestRow> {
    const def = type.actions[action];
    if (!def) throw RequestErrors.noSuchAction(action);
    const actor = callerRef(identity);
    let updated: RequestRow;
    if (action === 'accept' && type.effect.mode === 'saga') {
      // Why: never `accepted` before the owner confirms the effect; log and comment wait for it.
      updated = (await updateRequest(trx, row, {
        status: 'accepting',
        accept_actor: actor,
        accept_comment: comment ? { ...comment, created_by: actor } : null,
      })) as RequestRow;
    } else {
      updated = (await updateRequest(trx, row, { status: def.to, ...(typeof title === 'string' ? { title } : {}) })) as RequestRow;
      if (def.log) {
        await insertEvent(trx, {
          id: randomUUID(),
          request_id: row.id,
          type: 'L',
          created_by: actor,
          payload: { event: def.log, format: 'html' },
          parent_id: null,
        });
      }
      if (comment) {
        await insertEvent(trx, {
          id: randomUUID(),
          request_id: row.id,
          type: 'C',
          created_by: actor,
          payload: { ...comment },
          parent_id: null,
        });
        await touchActivity(trx, row.id);
      }
    }
    await writeRequestEvent(trx, VERBS[action], updated, actor);
    return updated;
  }

  /** Expire, as the system, up to `limit` submitted requests whose `expires_at` has passed; returns how many. */
  async expireDue(limit = 100): Promise<number> {
    const { db } = this.requests.deps;
    const expired = await db.transaction(async (trx) => {
      const ids = await lockExpired(trx, limit);
      const done: string[] = [];
      for (const id of ids) {
        const row = await findRequest(trx, id);
        const type = row ? requestType(row.type) : undefined;
        if (!row || !type?.actions.expire?.from.includes(row.status)) continue;
        await this.transition(trx, row, type, 'expire', SYSTEM);
        done.push(id);
      }
      return done;
    });
    await this.requests.indexed(expired);
    return expired.length;
  }
}
