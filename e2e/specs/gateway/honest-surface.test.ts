/**
 * Honest surfaces: every operation `/api/openapi.json` advertises (the routing table plus the
 * services' fragments) is really served by the service it is routed to. Each operation is called
 * through the gateway with placeholder path parameters and, for writes, an empty JSON body, as an
 * administrator; whatever the domain answers (200, 400, 403, 404 "does not exist"…) is fine — what
 * is not is the owning service's router miss (404 "The requested URL was not found on the
 * server…"), a 405/501 from the service, or a 503 naming a service that does not exist. A planned
 * feature must not be listed until it is built.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';

const ROUTER_MISS = /The requested URL was not found on the server/;
const PLACEHOLDER: Record<string, string> = {
  id: 'abcde-fgh12',
  key: 'nothing.txt',
  part: '1',
  scheme: 'doi',
  action: 'publish',
  type: 'resourcetypes',
  format: 'json',
};

/** A concrete path for an OpenAPI path template. */
function concrete(path: string): string {
  return path.replace(/\{([^}]+)\}/g, (_m, name: string) => PLACEHOLDER[name] ?? `x-${name}`);
}

describe('every advertised operation is served', () => {
  let admin: TestUser;
  let operations: [string, string][] = [];

  beforeAll(async () => {
    admin = await createUser({ email: uniqueEmail('surface'), admin: true });
    const doc = await api('/api/openapi.json');
    expect(doc.status).toBe(200);
    operations = Object.entries(doc.body.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
      ['get', 'post', 'put', 'patch', 'delete'].filter((m) => m in item).map((m) => [m.toUpperCase(), path] as [string, string]),
    );
  });

  it('should answer every documented operation from its service (no router miss, no 405/501)', async () => {
    expect(operations.length).toBeGreaterThan(50);
    const unserved: string[] = [];
    for (const [method, path] of operations) {
      // The document itself and the gateway's own routes are not proxied.
      if (path === '/api/openapi.json') continue;
      const url = concrete(path);
      const write = method !== 'GET' && method !== 'DELETE';
      const res = await api(url, { method, token: admin.token, ...(write ? { body: {} } : {}) });
      const miss = (res.status === 404 && ROUTER_MISS.test(res.text)) || res.status === 405 || res.status === 501;
      if (miss) unserved.push(`${method} ${path} → ${res.status}`);
    }
    expect(unserved).toEqual([]);
  }, 300_000);
});
