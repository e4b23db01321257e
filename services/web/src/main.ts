/**
 * Entry point of the web service (landing pages): `tsx src/main.ts` serves. It has no database and
 * no event stream, so it keeps a short main like the gateway's instead of `serviceMain`;
 * `tsx src/main.ts migrate` is accepted and does nothing, so scripts can migrate every service alike.
 */
import { createLogger, httpServerBounds, loadConfig, reportUnknownSettings, runService, startTelemetry } from '@rdm/platform';
import { createApp } from './app.js';
import { configProperties } from './config.js';

const config = loadConfig(configProperties, process.env);
const logger = createLogger('web', config.LOG_LEVEL);
if (process.argv[2] === 'migrate') {
  logger.info('web has no database; nothing to migrate');
  process.exit(0);
}
reportUnknownSettings('web', process.env, logger);
const telemetry = startTelemetry('web', config.OTEL_ENABLED);
const { app, health } = createApp({ config, logger });
await runService({
  name: 'web',
  app,
  health,
  logger,
  host: config.HOST,
  port: config.PORT,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  drainDelayMs: config.SHUTDOWN_DRAIN_DELAY_MS,
  bounds: httpServerBounds(config),
  closers: [() => telemetry.shutdown()],
});
