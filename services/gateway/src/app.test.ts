import { type Logger, RpcError, createLogger, loadConfig } from '@rdm/platform';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from './app.js';
import type { TokenVerifier } from './auth.js';
import { configProperties } from './config.js';

// Upstreams point at a port nothing listens on: these tests never reach a service.
const closed = 'http://127.0.0.1:9';
function gateway(env: Record<string, string> = {}, verifyToken: TokenVerifier = async () => null, logger?: Logger) {
  const config = loadConfig(configProperties, {
    USERS_URL: closed,
    VOCABULARIES_URL: closed,
    RECORDS_URL: closed,
    FILES_URL: closed,
    REQUESTS_URL: closed,
    COMMUNITIES_URL: closed,
    ...env,
  });
  return createApp({ config, logger: logger ?? createLogger('gateway', 'silent'), verifyToken }).app.callback();
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

  it('should answer an upload to an unreachable service with 503 and never throw past the request', async () => {
    // A refused connection used to end in an 'error' on the body feed nobody listened to: an
    // uncaught exception, which ends a gateway process.
    const uncaught: unknown[] = [];
    const keep = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', keep);
    try {
      const app = gateway();
      for (const size of [100, 256 * 1024, 2 * 1024 * 1024]) {
        const upload = await request(app)
          .put('/api/records/abc/draft/files/a.bin/content')
          .set('Content-Type', 'application/octet-stream')
          .send(Buffer.alloc(size));
        expect(upload.status).toBe(503);
        expect(upload.body).toEqual({ status: 503, message: 'Service unavailable.' });
      }
      await new Promise((r) => setTimeout(r, 50));
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', keep);
    }
  });

  it('should not parse identity headers from clients', async () => {
    const res = await request(gateway()).get('/api/nothing').set('x-rdm-identity', 'forged.sig');
    expect(res.status).toBe(404);
  });
});

/** A logger that keeps what it is given (level `info`, or quieter when `quiet`). */
function recordingLogger(quiet = false) {
  const lines: { obj: Record<string, unknown>; msg: string; level: string }[] = [];
  const at =
    (level: string) =>
    (obj: Record<string, unknown>, msg: string): void => {
      lines.push({ obj, msg, level });
    };
  const logger = {
    isLevelEnabled: (l: string) => !quiet || l === 'error' || l === 'warn',
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    debug: at('debug'),
    child: () => logger,
  };
  return { logger: logger as unknown as Logger, lines };
}

describe('the lean path (API traffic without koa)', () => {
  it('should write one access log line per API request, with the request id, the redacted URL and the client trace id', async () => {
    const { logger, lines } = recordingLogger();
    const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const res = await request(gateway({}, async () => null, logger))
      .get('/api/nothing?access_token=secret&q=x')
      .set('traceparent', tp);
    expect(res.status).toBe(401);
    const access = lines.filter((l) => l.msg === 'request');
    expect(access).toHaveLength(1);
    expect(access[0]?.obj).toMatchObject({
      reqId: res.headers['x-request-id'],
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      method: 'GET',
      url: '/api/nothing?access_token=[redacted]&q=x',
      status: 401,
    });
    expect(typeof access[0]?.obj.ms).toBe('number');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('should log nothing per request when info is off, and log 5xx answers as errors', async () => {
    const { logger, lines } = recordingLogger(true);
    const down: TokenVerifier = async () => {
      throw new RpcError('rdm.users.rpc.verify-token');
    };
    const app = gateway({}, down, logger);
    expect((await request(app).get('/api/nothing')).status).toBe(404);
    expect(lines).toEqual([]);
    expect((await request(app).get('/api/records').set('Authorization', 'Bearer x')).status).toBe(503);
    expect(lines.map((l) => `${l.level} ${l.msg}`)).toEqual(['error unhandled error']);
  });

  it('should echo the client request id (at most 128 characters)', async () => {
    const app = gateway();
    expect((await request(app).get('/api/nothing').set('x-request-id', 'rid-7')).headers['x-request-id']).toBe('rid-7');
    const long = 'x'.repeat(300);
    expect((await request(app).get('/api/nothing').set('x-request-id', long)).headers['x-request-id']).toBe(long.slice(0, 128));
  });

  it('should refuse bad URL encoding, NUL in a path and NUL in the query as the platform does', async () => {
    const app = gateway();
    const enc = await request(app).get('/api/records/%E0%A4%A');
    expect(enc.status).toBe(400);
    expect(enc.body).toEqual({ status: 400, message: 'Invalid URL encoding.' });
    const nul = await request(app).get('/api/records/ab%00cd');
    expect(nul.status).toBe(404);
    expect(nul.body).toEqual({ status: 404, message: 'The persistent identifier does not exist.' });
    const q = await request(app).get('/api/records?q=a%00b');
    expect(q.status).toBe(400);
    expect(q.body).toEqual({
      status: 400,
      message: 'Invalid querystring parameters.',
      errors: [{ field: 'q', messages: ['Must not contain NUL characters.'] }],
    });
    // Checked before the rate limit, as the platform's middleware (ahead of the gateway's) does.
    expect(q.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('should answer HEAD errors with the length of the JSON body but no body', async () => {
    const res = await request(gateway()).head('/api/nothing');
    expect(res.status).toBe(404);
    expect(Number(res.headers['content-length'])).toBeGreaterThan(0);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.text ?? '').toBe('');
  });

  it('should count API requests in the request duration histogram', async () => {
    const app = gateway();
    const count = async () => {
      const text = (await request(app).get('/metrics')).text;
      const m = /http_request_duration_seconds_count\{[^}]*method="DELETE",route="unmatched",status="405"[^}]*\} (\d+)/.exec(text);
      return Number(m?.[1] ?? 0);
    };
    const before = await count();
    expect((await request(app).delete('/api/requests')).status).toBe(405);
    expect(await count()).toBe(before + 1);
  });
});
