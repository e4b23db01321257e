/**
 * Entry point: `tsx src/main.ts` serves the gateway. `tsx src/main.ts migrate` is accepted and
 * does nothing (the gateway has no database), so scripts can migrate every service alike.
 */
import { connectNats, createLogger, loadConfig, reportUnknownSettings, runService, startTelemetry } from '@rdm/platform';
import { createApp } from './app.js';
import { natsTokenVerifier, subscribeInvalidations } from './auth.js';
import { configProperties } from './config.js';
import { gatewayLifecycle } from './lifecycle.js';

const config = loadConfig(configProperties, process.env);
const logger = createLogger('gateway', config.LOG_LEVEL);
if (process.argv[2] === 'migrate') {
  logger.info('gateway has no database; nothing to migrate');
  process.exit(0);
}
reportUnknownSettings('gateway', process.env, logger);
const telemetry = startTelemetry('gateway', config.OTEL_ENABLED);
const { nc } = await connectNats({ url: config.NATS_URL, name: 'gateway', logger });
const gw = createApp({ config, logger, nc, verifyToken: natsTokenVerifier(nc, config.AUTH_RPC_TIMEOUT_MS) });
const subscriptions = subscribeInvalidations(nc, gw.tokens, logger);

const { server } = await runService({
  name: 'gateway',
  app: gw.app,
  health: gw.health,
  logger,
  host: config.HOST,
  port: config.PORT,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  drainDelayMs: config.SHUTDOWN_DRAIN_DELAY_MS,
  ...gatewayLifecycle(gw, nc, subscriptions, telemetry),
});
// The client's side of the bounds (README, Bounded work): its headers within HEADERS_TIMEOUT_MS
// (node answers 408 and closes); no bound on the whole request here, because an upload may take
// hours: request bodies are bounded by the gateway's own idle, rate and time limits (proxy.ts).
server.headersTimeout = config.HEADERS_TIMEOUT_MS;
server.requestTimeout = 0;
