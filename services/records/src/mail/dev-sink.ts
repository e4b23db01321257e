/**
 * Development mail sink: a tiny SMTP server (`smtp-server`) that accepts every message without
 * authentication and writes it as `<time>-<n>.eml` under a directory (default `.data/mail/` at the
 * repository root), where a developer reads it with any mail client or `cat`.
 *
 * When to use: started by the records service when `SMTP_URL` is empty (development,
 * `make up`); never in production, where `SMTP_URL` names the real server.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';

/** A running sink. */
export interface DevMailSink {
  port: number;
  close(): Promise<void>;
}

let seq = 0;

/** Start the sink on 127.0.0.1:`port` writing into `dir`. */
export async function startDevMailSink(dir: string, port: number): Promise<DevMailSink> {
  mkdirSync(dir, { recursive: true });
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        try {
          writeFileSync(join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${++seq}.eml`), Buffer.concat(chunks));
          done();
        } catch (e) {
          done(e as Error);
        }
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const addr = server.server.address();
  return {
    port: typeof addr === 'object' && addr ? addr.port : port,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
