/**
 * Clears this replica's entry cache whenever any vocabulary changes.
 *
 * `rdm.vocabularies.vocabulary.loaded` is published by the outbox relay after a `migrate` load
 * or a write on any replica. A plain core-NATS subscription (no queue group, no durable
 * consumer) is what we want here: every replica must see every event, and a missed event only
 * means serving a cached entry until its TTL ends.
 */
import type { MsgLogger, NatsHandle, Worker } from '@rdm/platform';
import { LOADED_SUBJECT } from '../domain/loader.service.js';

/** A worker that calls `onLoaded` for every loaded event. */
export function reloadListener(nc: NatsHandle['nc'], onLoaded: () => void, logger: MsgLogger): Worker {
  let sub: ReturnType<NatsHandle['nc']['subscribe']> | undefined;
  return {
    name: 'vocabulary-reload-listener',
    start() {
      sub = nc.subscribe(LOADED_SUBJECT, {
        callback: (err) => {
          if (err) {
            logger.warn({ err }, 'reload listener error');
            return;
          }
          onLoaded();
        },
      });
    },
    async stop() {
      if (sub && !sub.isClosed()) sub.unsubscribe();
    },
  };
}
