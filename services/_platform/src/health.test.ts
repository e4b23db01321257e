import { describe, expect, it } from 'vitest';
import { addSearchHealth, Health } from './health.js';

describe(addSearchHealth.name, () => {
  it('should report an unreachable search engine as degraded while the service stays ready', async () => {
    const health = new Health({ db: () => undefined });
    addSearchHealth(health, { kind: 'opensearch', ping: async () => false });
    const r = await health.readiness();
    expect(r.ready).toBe(true);
    expect(r.checks.search).toContain('opensearch unreachable');
  });

  it('should add no check without an engine', async () => {
    const health = new Health({ db: () => undefined });
    addSearchHealth(health, undefined);
    expect(Object.keys((await health.readiness()).checks)).toEqual(['db']);
  });
});
