/**
 * The delivery worker: claims due deliveries (`FOR UPDATE SKIP LOCKED`, with a lease so a
 * process that dies mid-attempt only delays them), at most WEBHOOKS_CONCURRENCY attempts in
 * flight per process and WEBHOOKS_SUBSCRIPTION_CONCURRENCY per subscription, so a hanging
 * receiver holds only its own slots. Each attempt signs the body with the subscription's
 * secret(s), posts it (delivery/sender.ts) and records the outcome: success resets the
 * subscription's failure run; a failure schedules a retry (exponential backoff with jitter) until
 * WEBHOOKS_RETRY_PERIOD_S after the first attempt, and after WEBHOOKS_DISABLE_AFTER_FAILURES
 * failures in a row disables the subscription and writes `rdm.webhooks.subscription.disabled`
 * (the mailer tells its owner) in the same transaction.
 *
 * When to use: started by main.ts as a Worker; tests run it against real PostgreSQL.
 */
import { type Knex, type Logger, withTransaction, type Worker, writeOutbox } from '@rdm/platform';
import type { CommunityRolesPort, RecordReaderPort, UsersPort } from '../domain/ports.js';
import { type SecretBox, signatureHeader } from '../domain/secrets.js';
import * as deliveries from '../repo/deliveries.repo.js';
import type { DeliveryRow } from '../repo/deliveries.repo.js';
import { BatchReads } from './batch.js';
import { buildBody } from './payload.js';
import type { Sender } from './sender.js';

/** Settings of the worker. */
export interface WorkerSettings {
  concurrency: number;
  perSubscription: number;
  pollMs: number;
  leaseMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  retryPeriodS: number;
  disableAfterFailures: number;
}

/** Dependencies of the worker. */
export interface WorkerDeps {
  db: Knex;
  logger: Logger;
  box: SecretBox;
  sender: Sender;
  communities: CommunityRolesPort;
  records: RecordReaderPort;
  users: UsersPort;
  settings: WorkerSettings;
}

/** Delay before attempt `attempts + 1`: base·2^(attempts−1) capped, half of it random (jitter). */
export function backoffMs(attempts: number, base: number, max: number, random = Math.random): number {
  const full = Math.min(max, base * 2 ** Math.max(0, Math.min(attempts - 1, 30)));
  return Math.round(full / 2 + random() * (full / 2));
}

/** The `webhook-id` of a delivery (stable across its attempts). */
export const webhookId = (d: Pick<DeliveryRow, 'id'>) => `msg_${d.id.replace(/-/g, '')}`;

/** The worker. */
export class DeliveryWorker implements Worker {
  readonly name = 'webhooks-delivery';
  private stopped = true;
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;
  private again = false;
  private soonPending = false;
  private inflight = 0;
  private readonly perSub = new Map<string, number>();
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly d: WorkerDeps) {}

  /** Start polling. */
  start(): void {
    this.stopped = false;
    this.kick();
  }

  /** Stop claiming and wait for attempts in flight (their leases cover a hard kill). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.allSettled([...this.running]);
  }

  /** Look for due deliveries now (after an event was committed, a ping, a finished attempt). */
  kick(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.ticking = true;
    this.tick()
      .catch((err) => this.d.logger.error({ err }, 'webhooks: claiming deliveries failed'))
      .finally(() => {
        this.ticking = false;
        if (this.stopped) return;
        if (this.again) {
          this.again = false;
          setImmediate(() => this.kick());
        } else this.timer = setTimeout(() => this.kick(), this.d.settings.pollMs);
      });
  }

  /** A kick after the current macrotask, so attempts finishing together make one claim (one batch). */
  private soon(): void {
    if (this.soonPending) return;
    this.soonPending = true;
    setImmediate(() => {
      this.soonPending = false;
      this.kick();
    });
  }

  private async tick(): Promise<void> {
    const s = this.d.settings;
    const busy = [...this.perSub].filter(([, n]) => n >= s.perSubscription).map(([id]) => id);
    const claimed = await deliveries.claimDue(this.d.db, {
      limit: s.concurrency - this.inflight,
      perSubscription: s.perSubscription,
      busy,
      leaseMs: s.leaseMs,
    });
    const started: DeliveryRow[] = [];
    for (const row of claimed) {
      const n = this.perSub.get(row.subscription_id) ?? 0;
      if (n >= s.perSubscription) {
        // Claimed beyond this subscription's share: give it back untouched.
        await this.d
          .db('deliveries')
          .where({ id: row.id, attempts: row.attempts })
          .update({ status: 'pending', attempts: row.attempts - 1, lease_until: null });
        continue;
      }
      this.inflight++;
      this.perSub.set(row.subscription_id, n + 1);
      started.push(row);
    }
    // One read of the subscriptions, their owners and each (record, identity) for the whole batch.
    const reads = new BatchReads(this.d.db, started, this.d);
    for (const row of started) {
      const p = this.attempt(row, reads)
        .catch((err) => this.d.logger.error({ err, delivery: row.id }, 'webhooks: attempt bookkeeping failed'))
        .finally(() => {
          this.inflight--;
          const left = (this.perSub.get(row.subscription_id) ?? 1) - 1;
          if (left <= 0) this.perSub.delete(row.subscription_id);
          else this.perSub.set(row.subscription_id, left);
          this.running.delete(p);
          this.soon();
        });
      this.running.add(p);
    }
  }

  /** One attempt of a claimed delivery. */
  private async attempt(row: DeliveryRow, reads: BatchReads): Promise<void> {
    const { db, settings: s } = this.d;
    const sub = await reads.subscription(row.subscription_id);
    if (!sub) return;
    if (!sub.active) {
      await deliveries.recordAttempt(db, row.id, row.attempts, {
        status: 'pending',
        nextAttemptAt: new Date(Date.now() + s.pollMs),
        responseStatus: null,
        responsePrefix: null,
        latencyMs: null,
        error: 'The webhook is not active.',
      });
      return;
    }
    let body = row.body;
    let error: string | null = null;
    let status: number | null = null;
    let prefix: string | null = null;
    let latency: number | null = null;
    try {
      if (body === null) {
        const built = await buildBody(sub, row, reads);
        if ('skip' in built) {
          await deliveries.recordAttempt(db, row.id, row.attempts, {
            status: 'skipped',
            responseStatus: null,
            responsePrefix: null,
            latencyMs: null,
            error: built.skip,
          });
          return;
        }
        body = built.body;
        await deliveries.setBody(db, row.id, body);
      }
      const secrets = [this.d.box.open(sub.secret_enc)];
      if (sub.previous_secret_enc && sub.previous_secret_until && sub.previous_secret_until.getTime() > Date.now()) {
        secrets.push(this.d.box.open(sub.previous_secret_enc));
      }
      const id = webhookId(row);
      const ts = Math.floor(Date.now() / 1000);
      const res = await this.d.sender.post(
        sub.url,
        { 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': signatureHeader(secrets, id, ts, body) },
        body,
      );
      status = res.status;
      prefix = res.prefix;
      latency = res.latencyMs;
      if (res.status >= 200 && res.status < 300) {
        await deliveries.recordAttempt(db, row.id, row.attempts, {
          status: 'succeeded',
          responseStatus: status,
          responsePrefix: prefix,
          latencyMs: latency,
          error: null,
        });
        // Why conditional: one statement fewer per delivery on the common path (no failure run).
        if (sub.consecutive_failures > 0) await deliveries.resetFailures(db, sub.id);
        return;
      }
      error = `HTTP ${res.status}`;
    } catch (err) {
      const e = err as Error & { code?: string };
      error = (e.code ? `${e.code}: ` : '') + (e.message ?? String(err)).slice(0, 400);
    }
    await this.failed(row, sub.url, { status, prefix, latency, error });
  }

  private async failed(
    row: DeliveryRow,
    url: string,
    o: { status: number | null; prefix: string | null; latency: number | null; error: string | null },
  ) {
    const s = this.d.settings;
    const firstAttempt = row.first_attempt_at ? new Date(row.first_attempt_at).getTime() : Date.now();
    const next = new Date(Date.now() + backoffMs(row.attempts, s.backoffBaseMs, s.backoffMaxMs));
    const giveUp = next.getTime() > firstAttempt + s.retryPeriodS * 1000;
    await withTransaction(this.d.db, async (trx) => {
      const ok = await deliveries.recordAttempt(trx, row.id, row.attempts, {
        status: giveUp ? 'failed' : 'pending',
        nextAttemptAt: next,
        responseStatus: o.status,
        responsePrefix: o.prefix,
        latencyMs: o.latency,
        error: o.error,
      });
      if (!ok) return;
      const run = await deliveries.countFailure(trx, row.subscription_id);
      if (run < s.disableAfterFailures) return;
      const reason = `Disabled after ${run} failed deliveries in a row (last: ${o.error ?? 'unknown'}).`;
      const disabled = await trx('subscriptions')
        .where({ id: row.subscription_id, active: true })
        .update({ active: false, disabled_reason: reason.slice(0, 500), updated: trx.fn.now() })
        .returning(['id', 'owner_id', 'revision_id']);
      const sub = disabled[0] as { id: string; owner_id: string; revision_id: number } | undefined;
      if (!sub) return;
      await writeOutbox(trx, {
        subject: 'rdm.webhooks.subscription.disabled',
        aggregate: { type: 'webhook', id: sub.id, revision: sub.revision_id },
        data: {
          subscription_id: sub.id,
          owner_id: sub.owner_id,
          url,
          consecutive_failures: run,
          last_error: o.error?.slice(0, 500) ?? null,
        },
      });
      this.d.logger.warn({ subscription: sub.id, failures: run }, 'webhooks: subscription disabled');
    });
  }
}
