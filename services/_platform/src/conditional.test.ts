import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { checkRevision, etagMatches, ifMatch, notModified } from './conditional.js';
import { isAppError } from './errors.js';
import { createHttpApp, mountRouter, Router } from './http.js';
import { createLogger } from './logger.js';

function app() {
  const { app } = createHttpApp({ name: 'test', logger: createLogger('test', 'silent') });
  const router = new Router();
  router.get('/thing', (ctx) => {
    if (notModified(ctx, '"abc"')) return;
    ctx.body = { ok: true };
  });
  router.put('/thing', (ctx) => {
    const given = ifMatch(ctx);
    checkRevision(given, 3);
    ctx.body = { given: given ?? null };
  });
  mountRouter(app as any, router as any);
  return app.callback();
}

describe(etagMatches.name, () => {
  it('should match exact, weak, listed and wildcard tags and nothing else', () => {
    expect(etagMatches('"abc"', '"abc"')).toBe(true);
    expect(etagMatches('W/"abc"', '"abc"')).toBe(true);
    expect(etagMatches('"x", "abc"', 'W/"abc"')).toBe(true);
    expect(etagMatches('*', '"abc"')).toBe(true);
    expect(etagMatches('"abd"', '"abc"')).toBe(false);
    expect(etagMatches(undefined, '"abc"')).toBe(false);
    expect(etagMatches('', '"abc"')).toBe(false);
  });
});

describe(notModified.name, () => {
  it('should answer 304 with the ETag on a matching If-None-Match and 200 otherwise', async () => {
    const hit = await request(app()).get('/thing').set('If-None-Match', 'W/"abc"');
    expect(hit.status).toBe(304);
    expect(hit.headers.etag).toBe('"abc"');
    const miss = await request(app()).get('/thing').set('If-None-Match', '"other"');
    expect(miss.status).toBe(200);
    expect(miss.headers.etag).toBe('"abc"');
    expect(miss.body).toEqual({ ok: true });
  });
});

describe(ifMatch.name, () => {
  it('should parse bare and quoted revisions, refuse garbage with 400 and a stale one with 412', async () => {
    expect((await request(app()).put('/thing')).body).toEqual({ given: null });
    expect((await request(app()).put('/thing').set('If-Match', '"3"')).body).toEqual({ given: 3 });
    const bad = await request(app()).put('/thing').set('If-Match', 'abc');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Invalid If-Match header.');
    const stale = await request(app()).put('/thing').set('If-Match', '2');
    expect(stale.status).toBe(412);
    expect(stale.body.message).toBe("Revision id provided(2) doesn't match record's one(3)");
  });
});

describe(checkRevision.name, () => {
  it('should accept an absent or equal revision', () => {
    expect(() => checkRevision(undefined, 7)).not.toThrow();
    expect(() => checkRevision(7, 7)).not.toThrow();
    try {
      checkRevision(6, 7);
      expect.unreachable();
    } catch (err) {
      expect(isAppError(err) && err.status).toBe(412);
    }
  });
});
