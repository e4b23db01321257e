/**
 * Requests whose effect lives in another service (proto/README, "Requests whose effect lives in
 * another service").
 *
 * - `applyEffect(trx, subject, envelope)` applies an effect event to its request: for a `saga`
 *   type in status `accepting`, a confirming subject makes it `accepted` (log `accepted` by the
 *   accepting identity, then the accept comment), a failing subject puts it back to `submitted`
 *   (log `accept_failed` carrying the message and field errors, then the accept comment). It is
 *   idempotent twice over: the UPDATE only happens `WHERE status = 'accepting'`, and the inbox row
 *   `(event id, durable name of the subject)` is shared by the inline waiter and the durable
 *   consumer, so whichever comes second does nothing.
 * - `EffectWaiter` is the read-your-writes part at the edge: one core-NATS subscription per effect
 *   subject for the whole process; an accept registers `expect(requestId)` BEFORE its transaction
 *   commits, and after the commit waits (bounded) for the event, which is applied inline before
 *   the waiter resolves. Past the bound the caller answers the pending state; the durable
 *   consumers (events/consumers.ts) finish the work, also after a crash.
 */
import { randomUUID } from 'node:crypto';
import { type EventEnvelope, type Knex, type MsgLogger, type NatsHandle, prepared } from '@rdm/platform';
import { insertEvent } from '../repo/events.repo.js';
import { findRequest, touchActivity, updateRequest } from '../repo/requests.repo.js';
import { SYSTEM_REF } from './model.js';
import { writeRequestEvent } from './request-events.js';
import { requestType } from './types/registry.js';

/** Durable consumer (and inbox key) of an effect subject: `rdm.records.record.published` → `requests-record-published`. */
export function effectDurable(subject: string): string {
  return `requests-${subject.split('.').slice(2).join('-')}`;
}

/** JetStream stream holding an effect subject (`rdm.records.…` → `RECORDS`). */
export function effectStream(subject: string): string {
  return subject.split('.')[1].toUpperCase();
}

/** Data every effect event carries (beyond its own fields). */
interface EffectData {
  request_id?: string | null;
  message?: string;
  errors?: { field: string; messages: string[] }[];
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Result of applying an effect. */
export type EffectResult = 'accepted' | 'failed' | 'ignored';

/**
 * Apply an effect event inside `trx`. With `recordInbox` (the inline waiter) the inbox row of
 * the subject's durable consumer is written first, and a duplicate means "already applied";
 * the durable consumer passes false (runConsumer wrote that row already).
 */
/** Whether an effect event names a request (`data.request_id`, a UUID): only those can confirm or fail one. */
export function hasRequestId(data: { request_id?: unknown } | undefined | null): boolean {
  const id = data?.request_id;
  return typeof id === 'string' && /^[0-9a-f-]{36}$/i.test(id);
}

export async function applyEffect(
  trx: Knex.Transaction,
  subject: string,
  envelope: EventEnvelope<EffectData>,
  opts: { recordInbox: boolean },
): Promise<EffectResult> {
  if (!hasRequestId(envelope.data)) return 'ignored';
  const requestId = envelope.data.request_id as string;
  const relevant = (r: Awaited<ReturnType<typeof findRequest>>) => {
    const t = r ? requestType(r.type) : undefined;
    return !!r && !!t && t.effect.mode === 'saga' && r.status === 'accepting' && [...t.effect.confirm, ...t.effect.fail].includes(subject);
  };
  if (opts.recordInbox) {
    // Why the unlocked look first and the inbox row before the row lock: the durable consumer
    // takes them in this order (inbox, then request); the other order deadlocks with it.
    if (!relevant(await findRequest(trx, requestId.toLowerCase()))) return 'ignored';
    const ins = await prepared(
      trx,
      'INSERT INTO inbox (message_id, consumer, subject) VALUES (?, ?, ?) ON CONFLICT (message_id, consumer) DO NOTHING RETURNING message_id',
      [envelope.id, effectDurable(subject), subject],
    );
    if (ins.rows.length === 0) return 'ignored';
  }
  const req = await findRequest(trx, requestId.toLowerCase(), { forUpdate: true });
  const type = req ? requestType(req.type) : undefined;
  if (!req || !type || !relevant(req)) return 'ignored';
  const confirms = type.effect.confirm.includes(subject);
  const actor = req.accept_actor ?? SYSTEM_REF;
  const comment = req.accept_comment;
  const updated = await updateRequest(
    trx,
    req,
    { status: confirms ? 'accepted' : 'submitted', accept_actor: null, accept_comment: null },
    { onlyIfStatus: 'accepting' },
  );
  if (!updated) return 'ignored';
  if (confirms) {
    await insertEvent(trx, {
      id: randomUUID(),
      request_id: req.id,
      type: 'L',
      created_by: actor,
      payload: { event: 'accepted', format: 'html' },
      parent_id: null,
    });
  } else {
    const message = envelope.data.message ?? 'The request could not be accepted.';
    const errors = Array.isArray(envelope.data.errors) ? envelope.data.errors : [];
    const list = errors.length
      ? `<ul>${errors.map((e) => `<li>${escapeHtml(e.field)}: ${escapeHtml((e.messages ?? []).join(' '))}</li>`).join('')}</ul>`
      : '';
    const payload: Record<string, unknown> = { event: 'accept_failed', format: 'html', content: `<p>${escapeHtml(message)}</p>${list}` };
    if (errors.length) payload.errors = errors;
    await insertEvent(trx, { id: randomUUID(), request_id: req.id, type: 'L', created_by: SYSTEM_REF, payload, parent_id: null });
  }
  if (comment) {
    await insertEvent(trx, {
      id: randomUUID(),
      request_id: req.id,
      type: 'C',
      created_by: comment.created_by,
      payload: { content: comment.content, format: comment.format },
      parent_id: null,
    });
    await touchActivity(trx, req.id);
  }
  // The outcome is no new transition event (`accepted` was written at the accept): say the row changed.
  await writeRequestEvent(trx, 'updated', updated, actor, comment ? ['status', 'activity'] : ['status']);
  return confirms ? 'accepted' : 'failed';
}

/** One pending wait for a request's effect. */
export interface Expectation {
  /** Resolve with the effect subject once it arrived and was applied, or undefined after `ms`. */
  wait(ms: number): Promise<string | undefined>;
  /** Stop waiting (the transaction failed, or nothing to wait for). */
  cancel(): void;
}

interface Slot {
  arrived?: string;
  resolve?: (subject: string | undefined) => void;
}

/** Process-wide waiter for effect events on core NATS; see the file header. */
export class EffectWaiter {
  private readonly slots = new Map<string, Set<Slot>>();
  private subs: ReturnType<NatsHandle['nc']['subscribe']>[] = [];

  constructor(
    private readonly o: {
      nc?: NatsHandle['nc'];
      db: Knex;
      subjects: string[];
      logger: MsgLogger;
    },
  ) {}

  /** Subscribe to every effect subject (and make sure the server has the interest). */
  async start(): Promise<void> {
    const nc = this.o.nc;
    if (!nc || this.subs.length > 0) return;
    for (const subject of this.o.subjects) {
      this.subs.push(nc.subscribe(subject, { callback: (_err, msg) => void this.onMessage(subject, msg.data) }));
    }
    await nc.flush();
  }

  /** Unsubscribe and release every waiter. */
  stop(): void {
    for (const s of this.subs) s.unsubscribe();
    this.subs = [];
    for (const set of this.slots.values()) for (const s of set) s.resolve?.(undefined);
    this.slots.clear();
  }

  /** Start expecting the effect of `requestId` (call before the accept commits). */
  expect(requestId: string): Expectation {
    const slot: Slot = {};
    let set = this.slots.get(requestId);
    if (!set) {
      set = new Set();
      this.slots.set(requestId, set);
    }
    set.add(slot);
    const remove = () => {
      const s = this.slots.get(requestId);
      s?.delete(slot);
      if (s && s.size === 0) this.slots.delete(requestId);
    };
    return {
      wait: (ms) => {
        if (slot.arrived !== undefined || ms <= 0 || !this.o.nc) {
          remove();
          return Promise.resolve(slot.arrived);
        }
        return new Promise<string | undefined>((resolve) => {
          const timer = setTimeout(() => {
            remove();
            resolve(undefined);
          }, ms);
          slot.resolve = (subject) => {
            clearTimeout(timer);
            remove();
            resolve(subject);
          };
        });
      },
      cancel: remove,
    };
  }

  private async onMessage(subject: string, data: Uint8Array): Promise<void> {
    let envelope: EventEnvelope<EffectData>;
    try {
      envelope = JSON.parse(new TextDecoder().decode(data)) as EventEnvelope<EffectData>;
    } catch {
      return;
    }
    const requestId = typeof envelope?.data?.request_id === 'string' ? envelope.data.request_id.toLowerCase() : undefined;
    const set = requestId ? this.slots.get(requestId) : undefined;
    if (!set || set.size === 0 || typeof envelope.id !== 'string') return;
    try {
      await this.o.db.transaction((trx) => applyEffect(trx, subject, envelope, { recordInbox: true }));
    } catch (err) {
      // The durable consumer applies it instead; the waiter still answers what is stored.
      this.o.logger.warn({ err, subject, requestId }, 'inline effect apply failed');
    }
    for (const slot of [...set]) {
      slot.arrived = subject;
      slot.resolve?.(subject);
    }
  }
}
