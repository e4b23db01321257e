/** pino JSON logger; secrets and tokens are redacted wherever they appear in log objects. */
import pino, { type Logger } from 'pino';
import { mapStack } from './stack-map.js';

export type { Logger } from 'pino';

const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-rdm-identity"]',
  'headers.authorization',
  'authorization',
  'token',
  '*.token',
  'access_token',
  '*.access_token',
  'password',
  '*.password',
  'secret',
  '*.secret',
];

/** Create the service logger (JSON to stdout, `service` bound on every line). */
export function createLogger(service: string, level = 'info', dest: 'stdout' | 'stderr' = 'stdout'): Logger {
  return pino(
    {
      level,
      base: { service },
      redact: { paths: REDACT, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Bundled builds: stacks name TypeScript lines, mapped only when an error is logged (stack-map.ts).
      serializers: { err: serializeError },
    },
    // Why async: a synchronous write per request line blocks the event loop on every request.
    // pino flushes the buffer on normal exit; a hard crash may lose the last lines, not data.
    pino.destination({ dest: dest === 'stdout' ? 1 : 2, sync: false }),
  );
}

/** pino's error serializer, with bundled stack frames mapped to their TypeScript positions (causes too). */
export function serializeError(err: Error): ReturnType<typeof pino.stdSerializers.err> {
  const out = pino.stdSerializers.err(err);
  if (typeof out.stack === 'string') out.stack = mapStack(out.stack);
  return out;
}

/** Strip `access_token`/`token` query values from a URL before it is logged. */
export function redactUrl(url: string): string {
  return url.replace(/([?&](?:access_token|token)=)[^&]*/gi, '$1[redacted]');
}
