import { describe, expect, it } from 'vitest';
import { baseConfigProperties, ConfigError, DEVELOPMENT_IDENTITY_SECRET, loadConfig } from './config.js';

describe(loadConfig.name, () => {
  const props = { ...baseConfigProperties, PORT: { type: 'integer', default: 5101, minimum: 1, maximum: 65535 } } as const;

  it('should apply defaults and coerce types', () => {
    const sut = loadConfig(props, { PORT: '6000' });
    expect(sut.PORT).toBe(6000);
    expect(sut.PUBLIC_BASE_URL).toBe('http://127.0.0.1:5000');
    expect(sut.OTEL_ENABLED).toBe(false);
    expect(Object.isFrozen(sut)).toBe(true);
  });

  it('should list every bad variable at once', () => {
    let err: unknown;
    try {
      loadConfig(props, { PORT: 'abc', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud', PUBLIC_BASE_URL: 'http://x/' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems.join('\n');
    for (const key of ['PORT', 'DATABASE_URL', 'LOG_LEVEL', 'PUBLIC_BASE_URL']) expect(problems).toContain(key);
    expect((err as ConfigError).problems.length).toBeGreaterThanOrEqual(4);
  });

  it('should report missing required variables', () => {
    expect(() => loadConfig({ SECRET: { type: 'string' } }, {}, ['SECRET'])).toThrow(/SECRET/);
  });

  it('should treat empty strings as unset', () => {
    expect(loadConfig(props, { PORT: '' }).PORT).toBe(5101);
  });

  it('should refuse the public development identity secret in production, and only there', () => {
    expect(() => loadConfig(props, { NODE_ENV: 'production' })).toThrow(/IDENTITY_SECRET: the development default is refused/);
    expect(() => loadConfig(props, { NODE_ENV: 'production', IDENTITY_SECRET: DEVELOPMENT_IDENTITY_SECRET })).toThrow(ConfigError);
    expect(loadConfig(props, { NODE_ENV: 'production', IDENTITY_SECRET: 'a-random-secret-of-32-characters!' }).IDENTITY_SECRET).toBe(
      'a-random-secret-of-32-characters!',
    );
    expect(loadConfig(props, { NODE_ENV: 'development' }).IDENTITY_SECRET).toBe(DEVELOPMENT_IDENTITY_SECRET);
  });
});
