/** Barrel of @rdm/platform: shared infrastructure only, never domain code. */
export * from './config.js';
export * from './errors.js';
export * from './logger.js';
export * from './identity.js';
export * from './policy.js';
export * from './list.js';
export * from './http.js';
export * from './health.js';
export * from './metrics.js';
export * from './telemetry.js';
export * from './service.js';
export * from './db.js';
export * from './nats.js';
export * from './events.js';
export * from './outbox.js';
export * from './consumer.js';
export * from './search/index.js';
