/**
 * The expiry job: a background worker that, every `intervalMs`, expires (as the system) the
 * submitted requests whose `expires_at` has passed, in batches; replicas share the work through
 * `FOR UPDATE SKIP LOCKED`. InvenioRDM runs this daily; here the interval is configuration.
 */
import type { MsgLogger, Worker } from '@rdm/platform';
import type { ActionsService } from './actions.service.js';

/** Periodic expiry of overdue requests. */
export class ExpiryJob implements Worker {
  /** Worker name. */
  readonly name = 'requests-expiry';
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(private readonly o: { actions: ActionsService; intervalMs: number; logger: MsgLogger }) {}

  /** Run one round now: expire until nothing is due; returns how many were expired. */
  async runOnce(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.o.actions.expireDue(100);
      total += n;
      if (n < 100) return total;
    }
  }

  /** Start the periodic rounds. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.runOnce()
        .then((n) => {
          if (n > 0) this.o.logger.info({ expired: n }, 'requests expired');
        })
        .catch((err) => this.o.logger.error({ err }, 'expiry round failed'))
        .finally(() => {
          this.running = undefined;
        });
    }, this.o.intervalMs);
    this.timer.unref();
  }

  /** Stop and wait for the current round. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
