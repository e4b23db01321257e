import { describe, expect, it } from 'vitest';
import { DEVELOPMENT_SECRET_KEY, loadWebhooksConfig } from './config.js';

describe(loadWebhooksConfig.name, () => {
  it('should refuse the development secret key in production, and only there', () => {
    expect(() => loadWebhooksConfig({ NODE_ENV: 'production', IDENTITY_SECRET: 'x'.repeat(40) })).toThrow(/WEBHOOKS_SECRET_KEY/);
    expect(loadWebhooksConfig({ NODE_ENV: 'production', IDENTITY_SECRET: 'x'.repeat(40), WEBHOOKS_SECRET_KEY: 'k'.repeat(40) }).PORT).toBe(
      5108,
    );
    expect(loadWebhooksConfig({}).WEBHOOKS_SECRET_KEY).toBe(DEVELOPMENT_SECRET_KEY);
  });

  it('should refuse a malformed allow-list', () => {
    expect(() => loadWebhooksConfig({ WEBHOOKS_ALLOWED_CIDRS: '127.0.0.0/8; rm' })).toThrow(/WEBHOOKS_ALLOWED_CIDRS/);
  });
});
