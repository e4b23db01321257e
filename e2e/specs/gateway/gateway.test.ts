/**
 * The gateway through the real stack: routing errors, authentication, rate-limit headers, CORS,
 * the OpenAPI document and a stopped service. The 429 itself is tested in the gateway's
 * integration tests with a tiny limit: the e2e stack's limits must stay high enough for every spec.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { api, baseUrl } from '../../support/client.js';
import { canControlServices, readStackState, startService, stopService } from '../../support/stack.js';
import { createUser, deactivateUser, revokeToken, uniqueEmail } from '../../support/users.js';

/** Poll `fn` until it returns true or `ms` pass (the revocation event takes a moment). */
async function eventually(fn: () => Promise<boolean>, ms = 15_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await fn()) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return fn();
}

const NOT_FOUND = {
  status: 404,
  message: 'The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.',
};

describe('gateway routing errors', () => {
  it('should answer an unknown path with 404 JSON', async () => {
    for (const path of ['/api/nothing-here', '/api/records/x/no-such-thing', '/api/licenses']) {
      const res = await api(path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(res.body).toEqual(NOT_FOUND);
    }
  });

  it('should answer a known path with a wrong method with 405 JSON and Allow', async () => {
    const res = await api('/api/requests', { method: 'POST', body: {} });
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ status: 405, message: 'The method is not allowed for the requested URL.' });
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    const files = await api('/api/records/abcde-fgh12/files', { method: 'POST', body: [{ key: 'a.txt' }] });
    expect(files.status).toBe(405);
  });
});

const INVALID_TOKEN = { status: 401, message: 'The access token is invalid or has been revoked.' };

describe('gateway authentication', () => {
  it('should answer 403 Permission denied to a caller without a token on protected routes, and serve public reads', async () => {
    const none = await api('/api/me');
    expect(none.status).toBe(403);
    expect(none.body).toEqual({ status: 403, message: 'Permission denied.' });
    expect(none.headers.get('www-authenticate')).toBeNull();
    expect((await api('/api/vocabularies/resourcetypes')).status).toBe(200);
  });

  it('should refuse an unknown token with 401 invalid_token, on protected and public routes alike', async () => {
    for (const path of ['/api/me', '/api/vocabularies/resourcetypes']) {
      const bad = await api(path, { token: 'not-a-real-token' });
      expect(bad.status, path).toBe(401);
      expect(bad.body, path).toEqual(INVALID_TOKEN);
      expect(bad.headers.get('www-authenticate'), path).toBe('Bearer error="invalid_token"');
    }
    const viaQuery = await api('/api/me?access_token=not-a-real-token');
    expect(viaQuery.status).toBe(401);
    expect(viaQuery.body).toEqual(INVALID_TOKEN);
  });

  it('should authenticate a good token given as a header or as ?access_token=', async () => {
    const u = await createUser({ email: uniqueEmail('gw') });
    const viaHeader = await api('/api/me', { token: u.token });
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.body.id).toBe(u.id);
    const viaQuery = await api(`/api/me?access_token=${encodeURIComponent(u.token)}`);
    expect(viaQuery.status).toBe(200);
    expect(viaQuery.body.id).toBe(u.id);
  });

  it('should refuse a token with 401 within seconds of its revocation', async () => {
    const u = await createUser({ email: uniqueEmail('gw-revoke') });
    expect((await api('/api/me', { token: u.token })).status).toBe(200);
    await revokeToken(u.token);
    expect(await eventually(async () => (await api('/api/me', { token: u.token })).status === 401)).toBe(true);
    const after = await api('/api/me', { token: u.token });
    expect(after.status).toBe(401);
    expect(after.body).toEqual(INVALID_TOKEN);
    expect(after.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  });

  it('should refuse the tokens of a deactivated user with 401 within seconds', async () => {
    const u = await createUser({ email: uniqueEmail('gw-deact') });
    expect((await api('/api/me', { token: u.token })).status).toBe(200);
    await deactivateUser(u.email);
    // Until the gateway drops its cached entry (event, else TTL) the users service itself refuses
    // the now inactive identity with 403; then the gateway answers 401.
    expect(await eventually(async () => (await api('/api/me', { token: u.token })).status === 401)).toBe(true);
    const after = await api('/api/me', { token: u.token });
    expect(after.status).toBe(401);
    expect(after.body).toEqual(INVALID_TOKEN);
    expect(after.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  });

  it('should never let a client choose its identity', async () => {
    const forged = `${Buffer.from(JSON.stringify({ sub: '1', roles: ['admin'], iat: 1 })).toString('base64url')}.AAAA`;
    const res = await api('/api/me', { headers: { 'x-rdm-identity': forged } });
    expect(res.status).toBe(403);
  });
});

describe('gateway rate-limit headers', () => {
  it('should send X-RateLimit-* on proxied answers and on its own errors', async () => {
    for (const path of ['/api/vocabularies/resourcetypes', '/api/nothing-here']) {
      const res = await api(path);
      const limit = Number(res.headers.get('x-ratelimit-limit'));
      const remaining = Number(res.headers.get('x-ratelimit-remaining'));
      const reset = Number(res.headers.get('x-ratelimit-reset'));
      expect(limit, path).toBeGreaterThan(0);
      expect(remaining).toBeGreaterThanOrEqual(0);
      expect(remaining).toBeLessThan(limit);
      expect(reset).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
    }
  });

  it('should count a token separately from anonymous callers', async () => {
    const u = await createUser({ email: uniqueEmail('gw-rl') });
    const first = await api('/api/me', { token: u.token });
    const second = await api('/api/me', { token: u.token });
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(Number(first.headers.get('x-ratelimit-remaining')) - 1);
  });
});

describe('gateway CORS', () => {
  it('should answer a preflight itself', async () => {
    const res = await api('/api/records', {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example.org',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBeTruthy();
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
  });

  it('should let browsers read answers and the rate-limit headers', async () => {
    const res = await api('/api/vocabularies/resourcetypes', { headers: { origin: 'https://app.example.org' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeTruthy();
    expect(res.headers.get('access-control-expose-headers')).toContain('X-RateLimit-Remaining');
  });
});

describe('GET /api/openapi.json', () => {
  it('should serve an OpenAPI 3.1 document of the whole API', async () => {
    const res = await api('/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    expect(res.body.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(res.body.components.schemas.Error.required).toEqual(['status', 'message']);
    const paths = Object.keys(res.body.paths);
    for (const p of ['/api/records', '/api/requests/{id}', '/api/communities', '/api/vocabularies/{type}', '/api/users', '/api/me']) {
      expect(
        paths.some((k) => k.replace(/\{[^}]+\}/g, '{}') === p.replace(/\{[^}]+\}/g, '{}')),
        p,
      ).toBe(true);
    }
    expect(res.body.servers[0].url).toBe(baseUrl());
  });
});

/** A service that can be stopped without hurting this file's other checks, and a route of it. */
function victim(): { name: string; path: string } | null {
  if (!canControlServices()) return null;
  const known = Object.keys(readStackState().services);
  const candidates = [
    { name: 'communities', path: '/api/communities' },
    { name: 'requests', path: '/api/requests' },
    { name: 'files', path: '/api/records/abcde-fgh12/files' },
  ];
  return candidates.find((c) => known.includes(c.name)) ?? null;
}
const stopped = victim();

describe.skipIf(!stopped)('gateway with a stopped service', () => {
  const { name, path } = stopped ?? { name: '', path: '' };

  afterAll(async () => {
    await startService(name);
  });

  it('should answer 503 JSON quickly for that service, and keep serving the others', async () => {
    await stopService(name);
    const started = Date.now();
    const res = await api(path);
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 503, message: 'Service unavailable.' });
    expect(Date.now() - started).toBeLessThan(3000);
    expect((await api('/api/vocabularies/resourcetypes')).status).toBe(200);
    expect((await api('/readyz')).status).toBe(200);
  });
});
