/**
 * The background workers of an owner's record request, built from its `RecordRequestWorkersDef`
 * (each a durable `runConsumer` with the inbox):
 *
 * - the effect (stream REQUESTS, `rdm.requests.request.*` of the type): a closing event
 *   (declined, cancelled, expired, deleted) closes records' slot so the owner may ask again; an
 *   accepted one runs the type's `accept` (its effect, or closing its slot);
 * - the request mailer (stream REQUESTS, `created` and `declined` of the type): e-mails the site's
 *   moderation address (`ABUSE_EMAIL_TO`) of a request that waits for an administrator (`created`,
 *   not immediate) and the requester of a declined one (once: `mailedAt` / `markMailed`). The
 *   type's `facts` may throw while records' ask has not committed its row: `created` is published
 *   from inside that ask, and a redelivery (back-off) finds it;
 * - the outcome mailer (the type's stream and subject): e-mails the owner of the effect.
 * Mail delivery as the other mailers: an SMTP failure rolls the transaction back and the message
 * is redelivered with growing delays; the inbox rows send nothing twice.
 *
 * When to use: the workers of a record request type (`events/*-requests.consumer.ts`).
 */
import { consumerWorker, type EventEnvelope, type Knex, type Logger, type NatsHandle } from '@rdm/platform';
import type { UserEmailsPort } from '../domain/ports.js';
import type { RequestEventData } from '../events/review-saga.js';
import type { MailMessage, MailSender } from '../mail/mailer.js';
import { getRecord } from '../repo/records.repo.js';
import type { RecordRequestMailBase } from './record-request-mail.js';

/** What the workers of a record request type need. */
export interface RecordRequestWorkersOptions {
  db: Knex;
  nats: NatsHandle;
  users: UserEmailsPort;
  sender: MailSender;
  logger: Logger;
  from: string;
  /** The site's moderation address(es) (`ABUSE_EMAIL_TO`). */
  admins: string[];
  baseUrl: string;
  /** runConsumer tuning (tests). */
  maxDeliver?: number;
  backoffMs?: number[];
}

/** How a closing request event leaves records' slot. */
export type ClosingOutcome = 'declined' | 'cancelled';

/** Request events after which a request is no longer open (but for `accepted`, the type's). */
export const CLOSING: Record<string, ClosingOutcome> = {
  'rdm.requests.request.declined': 'declined',
  'rdm.requests.request.cancelled': 'cancelled',
  'rdm.requests.request.expired': 'cancelled',
  'rdm.requests.request.deleted': 'cancelled',
};

const ACCEPTED = 'rdm.requests.request.accepted';

/** What the mails of one request are about. */
export interface RecordRequestMailFacts {
  topicId: string;
  title: string;
  /** The user to tell of a decline, if known. */
  requester?: string;
  /** Accepted at once (nobody to ask)? */
  immediate?: boolean;
  /** When the requester was told already. */
  mailedAt?: Date | null;
}

/** The workers' side of one record request type. */
export interface RecordRequestWorkersDef {
  /** The requests service's type id. */
  type: string;
  durables: { effect: string; requestMailer: string; outcomeMailer: string };
  /** Close records' slot of a request no longer open. */
  close(trx: Knex.Transaction, requestId: string, outcome: ClosingOutcome): Promise<void>;
  /** Apply an accepted request (its effect). */
  accept(trx: Knex.Transaction, e: EventEnvelope<RequestEventData>): Promise<void>;
  /** The facts the mails need (throw while the request's row is not there yet: retried). */
  facts(trx: Knex.Transaction, r: RequestEventData): Promise<RecordRequestMailFacts>;
  /** To the administrators: the request waits for them. */
  requestedMail(base: RecordRequestMailBase, payload: Record<string, unknown>): MailMessage;
  /** To the requester: the request was declined. */
  declinedMail(base: RecordRequestMailBase): MailMessage;
  /** Note that the requester was told. */
  markMailed?(trx: Knex.Transaction, requestId: string): Promise<void>;
  /** The mailer of the effect's outcome. */
  outcome: {
    stream: string;
    filterSubject: string;
    skip?: (env: EventEnvelope) => boolean;
    handler(trx: Knex.Transaction, e: EventEnvelope): Promise<void>;
  };
}

/** The durable names `records-<name>-requests` (effect), `…-request-mailer` and `…-mailer` (outcome). */
export function recordRequestDurables(name: string): RecordRequestWorkersDef['durables'] {
  return { effect: `records-${name}-requests`, requestMailer: `records-${name}-request-mailer`, outcomeMailer: `records-${name}-mailer` };
}

/** Apply one request event of `def.type` to records (inside the consumer's transaction). */
export async function onRecordRequestEvent(
  trx: Knex.Transaction,
  e: EventEnvelope<RequestEventData>,
  def: Pick<RecordRequestWorkersDef, 'type' | 'close' | 'accept'>,
): Promise<void> {
  const r = e.data;
  if (r?.type !== def.type) return;
  const closing = CLOSING[e.type];
  if (closing) await def.close(trx, r.id, closing);
  else if (e.type === ACCEPTED) await def.accept(trx, e);
}

/** The title of record `recordId` (its id when it has none). */
export const recordTitle = async (db: Knex.Transaction, recordId: string) =>
  String((await getRecord(db, recordId))?.metadata?.title ?? recordId);

/** The mail facts of a request from records' slot row (missing: throws, to be retried). */
export function slotFacts(
  byRequestId: (
    trx: Knex.Transaction,
    requestId: string,
    forUpdate: boolean,
  ) => Promise<{ record_id: string; requester: string; immediate: boolean; mailed_at: Date | null } | undefined>,
  what: string,
): RecordRequestWorkersDef['facts'] {
  return async (trx, r) => {
    const slot = await byRequestId(trx, r.id, true);
    if (!slot) throw new Error(`${what} ${r.id} not recorded yet`);
    const title = await recordTitle(trx, slot.record_id);
    return { topicId: slot.record_id, title, requester: slot.requester, immediate: slot.immediate, mailedAt: slot.mailed_at };
  };
}

/** The three background workers of a record request type (for runService). */
export function recordRequestWorkers(o: RecordRequestWorkersOptions, def: RecordRequestWorkersDef) {
  const common = { db: o.db, js: o.nats.js, jsm: o.nats.jsm, logger: o.logger, service: 'records' };
  const mailRetry = { maxDeliver: o.maxDeliver ?? 2000, backoffMs: o.backoffMs ?? [1000, 5000, 15000, 30000, 60000] };
  const typeOf = (env: { data?: unknown }) => (env.data as { type?: string } | undefined)?.type;
  return [
    consumerWorker({
      ...common,
      stream: 'REQUESTS',
      durable: def.durables.effect,
      filterSubject: 'rdm.requests.request.*',
      maxDeliver: o.maxDeliver,
      backoffMs: o.backoffMs,
      skip: (env) => typeOf(env) !== def.type || (!CLOSING[env.type] && env.type !== ACCEPTED),
      handler: (trx, e) => onRecordRequestEvent(trx, e as EventEnvelope<RequestEventData>, def),
    }),
    consumerWorker({
      ...common,
      ...mailRetry,
      stream: 'REQUESTS',
      durable: def.durables.requestMailer,
      filterSubject: 'rdm.requests.request.*',
      skip: (env) => typeOf(env) !== def.type || !['rdm.requests.request.created', 'rdm.requests.request.declined'].includes(env.type),
      handler: async (trx, e) => {
        const r = e.data as unknown as RequestEventData;
        const f = await def.facts(trx, r);
        const base = { from: o.from, baseUrl: o.baseUrl, requestId: r.id, topicId: f.topicId, title: f.title };
        if (e.type === 'rdm.requests.request.created') {
          if (f.immediate || o.admins.length === 0) return;
          await o.sender.send(def.requestedMail({ ...base, to: o.admins }, r.payload ?? {}));
          return;
        }
        if (f.mailedAt) return;
        const to = f.requester ? await o.users.emails([f.requester]) : [];
        if (to.length) await o.sender.send(def.declinedMail({ ...base, to }));
        await def.markMailed?.(trx, r.id);
      },
    }),
    consumerWorker({
      ...common,
      ...mailRetry,
      stream: def.outcome.stream,
      durable: def.durables.outcomeMailer,
      filterSubject: def.outcome.filterSubject,
      ...(def.outcome.skip ? { skip: def.outcome.skip } : {}),
      handler: (trx, e) => def.outcome.handler(trx, e),
    }),
  ];
}

/**
 * An outcome mailer's handler for a type with a slot row: the owner of the request named by the
 * event's `request_id` is mailed once (`mailed_at`).
 */
export function slotOutcomeHandler(
  o: RecordRequestWorkersOptions,
  slots: {
    byRequestId(
      trx: Knex.Transaction,
      requestId: string,
      forUpdate: boolean,
    ): Promise<{ record_id: string; requester: string; mailed_at: Date | null } | undefined>;
    markMailed(trx: Knex.Transaction, requestId: string): Promise<void>;
  },
  mail: (base: RecordRequestMailBase) => MailMessage,
): RecordRequestWorkersDef['outcome']['handler'] {
  return async (trx, e) => {
    const requestId = String((e.data as { request_id?: unknown }).request_id);
    const slot = await slots.byRequestId(trx, requestId, true);
    if (!slot || slot.mailed_at) return;
    const to = await o.users.emails([slot.requester]);
    const title = await recordTitle(trx, slot.record_id);
    if (to.length) await o.sender.send(mail({ from: o.from, baseUrl: o.baseUrl, requestId, topicId: slot.record_id, title, to }));
    await slots.markMailed(trx, requestId);
  };
}
