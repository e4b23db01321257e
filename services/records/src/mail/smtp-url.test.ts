import { describe, expect, it } from 'vitest';
import { smtpUrlOrDevSink } from './smtp-url.js';

const logger = { info: () => undefined, warn: () => undefined } as never;

describe('smtpUrlOrDevSink', () => {
  it('should use SMTP_URL when set, whatever MAIL_SINK says', async () => {
    const url = 'smtps://u:p@mail.example.org:465';
    await expect(smtpUrlOrDevSink({ SMTP_URL: url, MAIL_SINK: false, MAIL_SINK_DIR: '', MAIL_SINK_PORT: 2525 }, logger)).resolves.toBe(url);
  });

  it('should refuse to start without SMTP_URL unless the development sink is asked for', async () => {
    await expect(smtpUrlOrDevSink({ SMTP_URL: '', MAIL_SINK: false, MAIL_SINK_DIR: '', MAIL_SINK_PORT: 2525 }, logger)).rejects.toThrow(
      /no mail server configured: set SMTP_URL .* or MAIL_SINK=true/,
    );
  });
});
