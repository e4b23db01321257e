/**
 * Where the records service sends mail: `SMTP_URL`, or else (only with `MAIL_SINK=true`) the
 * development mail sink started here (`.eml` files under `MAIL_SINK_DIR`, default `<repo>/.data/mail`). A second replica finds
 * the sink's port taken and sends to the first one's sink.
 */
import { fileURLToPath } from 'node:url';
import type { Logger } from '@rdm/platform';
import type { RecordsConfig } from '../config.js';
import { startDevMailSink } from './dev-sink.js';

/**
 * The SMTP URL to send to: `SMTP_URL`, else the development sink when asked for (`MAIL_SINK=true`);
 * neither is a configuration error (a production install must not fall back to a development
 * double that delivers nothing), so the service does not start.
 */
export async function smtpUrlOrDevSink(
  config: Pick<RecordsConfig, 'SMTP_URL' | 'MAIL_SINK' | 'MAIL_SINK_DIR' | 'MAIL_SINK_PORT'>,
  logger: Logger,
): Promise<string> {
  if (config.SMTP_URL) return config.SMTP_URL;
  if (!config.MAIL_SINK) {
    throw new Error(
      'records: no mail server configured: set SMTP_URL (smtp://user:pass@host:587 or smtps://…:465; the chart: smtp.host, smtp.port, smtp.tls, smtp.existingSecret), or MAIL_SINK=true for the development mail sink (delivers nothing)',
    );
  }
  const dir = config.MAIL_SINK_DIR || fileURLToPath(new URL('../../../../.data/mail', import.meta.url));
  const sink = await startDevMailSink(dir, config.MAIL_SINK_PORT).catch((e: Error) => {
    logger.warn({ err: e.message }, 'development mail sink not started (port in use?)');
    return undefined;
  });
  if (sink) logger.info({ dir, port: sink.port }, 'development mail sink: e-mails are written as .eml files');
  return `smtp://127.0.0.1:${config.MAIL_SINK_PORT}`;
}
