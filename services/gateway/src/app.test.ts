import { RpcError, createLogger, loadConfig } from '@rdm/platform';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from './app.js';
import type { TokenVerifier } from './auth.js';
import { configProperties } from './config.js';

// Upstreams point at a port nothing listens on: these tests never reach a service.
const closed = 'http://127.0.0.1:9';
function gateway(env: Record<string, string> = {}, verifyToken: TokenVerifier = async () => null) {
  const config = loadConfig(configProperties, {
    USERS_URL: closed,
    VOCABULARIES_URL: closed,
    RECORDS_URL: closed,
    FILES_URL: closed,
    REQUESTS_URL: closed,
    COMMUNITIES_URL: closed,
    ...env,
  });
  return createApp({ config, logger: createLogger('gateway', 'silent'), verifyToken }).app.callback();
}

describe(createApp.name, () => {
  it('should answer an unknown path with the 404 JSON body and rate-limit headers', async () => {
    const res = await request(gateway()).get('/api/nothing/here');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body).toEqual({
      status: 404,
      message: 'The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.',
    });
    expect(res.headers['x-ratelimit-limit']).toBe('500');
    expect(res.headers['x-ratelimit-remaining']).toBe('499');
    expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
  });

  it('should answer a wrong method on a known path with 405 and Allow', async () => {
    const res = await request(gateway()).post('/api/requests').send({});
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ status: 405, message: 'The method is not allowed for the requested URL.' });
    expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
  });

  it('should answer OPTIONS on a known path with Allow, and a CORS preflight itself', async () => {
    const app = gateway();
    const plain = await request(app).options('/api/records/abc/files');
    expect(plain.status).toBe(204);
    expect(plain.headers.allow).toBe('GET, HEAD, OPTIONS');
    const pre = await request(app)
      .options('/api/records')
      .set('Origin', 'https://app.example.org')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'authorization, content-type');
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
    expect(pre.headers['access-control-allow-methods']).toContain('POST');
    expect(pre.headers['access-control-allow-headers']).toBe('authorization, content-type');
    expect(pre.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('should echo only listed origins when CORS_ORIGINS is a list', async () => {
    const app = gateway({ CORS_ORIGINS: 'https://a.example.org, https://b.example.org', CORS_ALLOW_CREDENTIALS: 'true' });
    const ok = await request(app).get('/api/nothing').set('Origin', 'https://b.example.org');
    expect(ok.headers['access-control-allow-origin']).toBe('https://b.example.org');
    expect(ok.headers['access-control-allow-credentials']).toBe('true');
    expect(ok.headers['access-control-expose-headers']).toContain('X-RateLimit-Remaining');
    expect(ok.headers.vary).toContain('Origin');
    const no = await request(app).get('/api/nothing').set('Origin', 'https://evil.example.org');
    expect(no.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('should serve the OpenAPI document', async () => {
    const res = await request(gateway()).get('/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.paths['/api/records/{id}/draft/files/{key}/content'].put).toBeDefined();
    const post = await request(gateway()).post('/api/openapi.json');
    expect(post.status).toBe(405);
  });

  it('should refuse with 429, Retry-After and the JSON body past the anonymous limit', async () => {
    const app = gateway({ RATE_LIMIT_ANONYMOUS: '2' });
    expect((await request(app).get('/api/nothing')).headers['x-ratelimit-remaining']).toBe('1');
    expect((await request(app).get('/api/nothing')).headers['x-ratelimit-remaining']).toBe('0');
    const res = await request(app).get('/api/nothing');
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ status: 429, message: 'Too many requests. Please slow down.' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(res.headers['x-ratelimit-limit']).toBe('2');
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
  });

  it('should count authenticated callers per token, against the authenticated limit', async () => {
    const verify: TokenVerifier = async (t) => (t.startsWith('good') ? { userId: '1', roles: [], tokenId: t } : null);
    const app = gateway({ RATE_LIMIT_ANONYMOUS: '1', RATE_LIMIT_AUTHENTICATED: '3' }, verify);
    const a = await request(app).get('/api/nothing').set('Authorization', 'Bearer good-1');
    expect(a.headers['x-ratelimit-limit']).toBe('3');
    expect(a.headers['x-ratelimit-remaining']).toBe('2');
    const b = await request(app).get('/api/nothing?access_token=good-2');
    expect(b.headers['x-ratelimit-remaining']).toBe('2');
    // An invalid token is refused (401), but only after it was counted per address as anonymous.
    const c = await request(app).get('/api/nothing').set('Authorization', 'Bearer bad');
    expect(c.status).toBe(401);
    expect(c.headers['x-ratelimit-limit']).toBe('1');
    expect(c.headers['x-ratelimit-remaining']).toBe('0');
    const d = await request(app).get('/api/nothing').set('Authorization', 'Bearer bad-2');
    expect(d.status).toBe(429);
    expect(d.body).toEqual({ status: 429, message: 'Too many requests. Please slow down.' });
  });

  it('should leave health and metrics endpoints out of rate limiting', async () => {
    const app = gateway({ RATE_LIMIT_ANONYMOUS: '1' });
    for (let i = 0; i < 3; i++) {
      const res = await request(app).get('/healthz');
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    }
    expect((await request(app).get('/metrics')).status).toBe(200);
  });

  it('should reject an invalid token with 401 by default, as a header or as ?access_token=', async () => {
    const app = gateway();
    const viaHeader = await request(app).get('/api/records').set('Authorization', 'Bearer bad');
    const viaQuery = await request(app).get('/api/records?access_token=bad');
    // Even where no route exists: the bad token is what the client must hear about.
    const unknownPath = await request(app).get('/api/nothing').set('Authorization', 'Bearer bad');
    for (const res of [viaHeader, viaQuery, unknownPath]) {
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.body).toEqual({ status: 401, message: 'The access token is invalid or has been revoked.' });
      expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
      expect(res.headers['x-ratelimit-limit']).toBe('500');
    }
    const explicit = await request(gateway({ AUTH_INVALID_TOKEN: 'reject' }))
      .get('/api/records')
      .set('Authorization', 'Bearer bad');
    expect(explicit.status).toBe(401);
    expect(explicit.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
  });

  it('should treat an invalid token as anonymous with AUTH_INVALID_TOKEN=anonymous (InvenioRDM)', async () => {
    const res = await request(gateway({ AUTH_INVALID_TOKEN: 'anonymous' }))
      .get('/api/nothing')
      .set('Authorization', 'Bearer bad');
    expect(res.status).toBe(404);
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(res.headers['x-ratelimit-limit']).toBe('500');
  });

  it('should treat a request without a token as anonymous in both modes', async () => {
    for (const mode of ['reject', 'anonymous']) {
      const res = await request(gateway({ AUTH_INVALID_TOKEN: mode })).get('/api/nothing');
      expect(res.status, mode).toBe(404);
      expect(res.headers['www-authenticate'], mode).toBeUndefined();
    }
  });

  it('should answer 503 when the users service cannot verify a token', async () => {
    const down: TokenVerifier = async () => {
      throw new RpcError('rdm.users.rpc.verify-token');
    };
    const res = await request(gateway({}, down)).get('/api/records').set('Authorization', 'Bearer x');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 503, message: 'Service unavailable.' });
  });

  it('should refuse a body over BODY_LIMIT by its Content-Length with 413, but not on upload routes', async () => {
    const app = gateway({ BODY_LIMIT: '10' });
    const res = await request(app)
      .post('/api/records')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ metadata: { title: 'long enough' } }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ status: 413, message: 'Request entity too large.' });
    const upload = await request(app)
      .put('/api/records/abc/draft/files/a.bin/content')
      .set('Content-Type', 'application/octet-stream')
      .send(Buffer.alloc(100));
    expect(upload.status).toBe(503); // went on to the (unreachable) files service
  });

  it('should not parse identity headers from clients', async () => {
    const res = await request(gateway()).get('/api/nothing').set('x-rdm-identity', 'forged.sig');
    expect(res.status).toBe(404);
  });
});
