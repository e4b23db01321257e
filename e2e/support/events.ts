/**
 * A spec's view of the stack's events: a core NATS subscription to some subject patterns that
 * keeps every envelope's `data`, and a wait for one that matches.
 *
 * When to use: a spec that checks the events a flow publishes (request sagas, effects).
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { readStackState } from './stack.js';

/** One event seen: its subject and its envelope's data. */
export interface SeenEvent {
  subject: string;
  data: Record<string, any>;
}

/** The events seen on `patterns` from now on. */
export interface EventWatch {
  seen: SeenEvent[];
  /** Wait (up to 20 s) for an event on `subject` whose data matches. */
  event(subject: string, match: (d: Record<string, any>) => boolean): Promise<SeenEvent>;
  close(): Promise<void>;
}

/** Subscribe to `patterns` on the stack's NATS (flushed: nothing published after this is missed). */
export async function watchEvents(patterns: string[]): Promise<EventWatch> {
  const nc: NatsConnection = await connect({ servers: readStackState().natsUrl });
  const seen: SeenEvent[] = [];
  for (const pattern of patterns) {
    nc.subscribe(pattern, {
      callback: (_err, msg) => {
        try {
          seen.push({ subject: msg.subject, data: (JSON.parse(new TextDecoder().decode(msg.data)) as { data: Record<string, any> }).data });
        } catch {
          /* not an envelope */
        }
      },
    });
  }
  await nc.flush();
  return {
    seen,
    async event(subject, match) {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const e = seen.find((s) => s.subject === subject && match(s.data));
        if (e) return e;
        if (Date.now() > deadline) throw new Error(`no ${subject} event`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    close: () => nc.close(),
  };
}
