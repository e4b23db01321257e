import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createHttpApp, jsonBody, mountRouter, Router } from './http.js';
import { requestIdOf } from './request-steps.js';
import { createLogger } from './logger.js';

function app() {
  const { app } = createHttpApp({ name: 'test', logger: createLogger('test', 'silent') });
  const router = new Router();
  router.get('/items/:id', (ctx) => {
    ctx.body = { id: ctx.params.id, q: ctx.query.q ?? null };
  });
  router.post('/items', async (ctx) => {
    ctx.body = { got: await jsonBody(ctx) };
  });
  mountRouter(app as any, router as any);
  return app.callback();
}

describe(createHttpApp.name, () => {
  it('should serve a route and add a request id', async () => {
    const res = await request(app()).get('/items/abc?q=x');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: 'abc', q: 'x' });
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('should answer 405 JSON for a known path with the wrong method and 404 JSON for an unknown one', async () => {
    const wrong = await request(app()).delete('/items/abc');
    expect(wrong.status).toBe(405);
    expect(wrong.body).toEqual({ status: 405, message: 'The method is not allowed for the requested URL.' });
    const unknown = await request(app()).get('/nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body.status).toBe(404);
  });

  it('should refuse NUL characters in path ids (404) and query values (400), never reaching the handler', async () => {
    const id = await request(app()).get('/items/a%00b');
    expect(id.status).toBe(404);
    expect(id.body).toEqual({ status: 404, message: 'The persistent identifier does not exist.' });
    const q = await request(app()).get('/items/abc?q=x%00');
    expect(q.status).toBe(400);
    expect(q.body).toEqual({
      status: 400,
      message: 'Invalid querystring parameters.',
      errors: [{ field: 'q', messages: ['Must not contain NUL characters.'] }],
    });
    expect((await request(app()).get('/items/%E0%A4%A')).status).toBe(400);
  });
});

describe(jsonBody.name, () => {
  it('should parse JSON and refuse bad JSON with the InvenioRDM message', async () => {
    expect((await request(app()).post('/items').send({ a: 1 })).body).toEqual({ got: { a: 1 } });
    const bad = await request(app()).post('/items').set('content-type', 'application/json').send('{nope');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ status: 400, message: 'Unable to decode JSON data in request body.' });
  });

  it('should refuse strings PostgreSQL cannot store, naming the field', async () => {
    const nul = await request(app()).post('/items').set('content-type', 'application/json').send('{"metadata":{"title":"a\\u0000b"}}');
    expect(nul.status).toBe(400);
    expect(nul.body.errors).toEqual([{ field: 'metadata.title', messages: ['Must not contain NUL characters or unpaired surrogates.'] }]);
    const surrogate = await request(app()).post('/items').set('content-type', 'application/json').send('{"list":["ok","x\\ud800y"]}');
    expect(surrogate.status).toBe(400);
    expect(surrogate.body.errors[0].field).toBe('list.1');
    const pair = await request(app()).post('/items').set('content-type', 'application/json').send('{"e":"\\ud83d\\ude00"}');
    expect(pair.status).toBe(200);
  });

  it('should refuse invalid UTF-8 with 400 instead of replacing it, and accept valid UTF-8 with a BOM', async () => {
    const invalid = Buffer.concat([Buffer.from('{"title":"caf'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    // `serialize`: superagent would JSON-encode a Buffer sent as application/json.
    const raw = (body: Buffer) =>
      request(app())
        .post('/items')
        .set('content-type', 'application/json')
        .serialize((b) => b)
        .send(body);
    const res = await raw(invalid);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 400, message: 'Unable to decode JSON data in request body.' });
    const ok = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"title":"café"}')]);
    const good = await raw(ok);
    expect(good.body).toEqual({ got: { title: 'café' } });
  });

  it('should refuse a binary Content-Type with 415', async () => {
    const res = await request(app()).post('/items').set('content-type', 'application/octet-stream').send(Buffer.from('x'));
    expect(res.status).toBe(415);
  });
});

describe('HttpApp.fastPath', () => {
  function withFastPath() {
    const { app } = createHttpApp({ name: 'test', logger: createLogger('test', 'silent') });
    const router = new Router();
    router.get('/items/:id', (ctx) => {
      ctx.body = { via: 'koa', id: ctx.params.id };
    });
    mountRouter(app as any, router as any);
    app.fastPath((req, res, viaKoa) => {
      if (req.url === '/items/lean') {
        const requestId = requestIdOf(req.headers['x-request-id']);
        res.writeHead(200, ['Content-Type', 'application/json', 'X-Request-Id', requestId]);
        res.end(JSON.stringify({ via: 'lean' }));
        return true;
      }
      if (req.url === '/items/handed-over') {
        setImmediate(() => viaKoa(req, res));
        return true;
      }
      return false;
    });
    return app.callback();
  }

  it('should answer what a fast path takes without koa, hand over what it passes on, and leave the rest to koa', async () => {
    const handler = withFastPath();
    const lean = await request(handler).get('/items/lean').set('X-Request-Id', 'rid-1');
    expect(lean.body).toEqual({ via: 'lean' });
    expect(lean.headers['x-request-id']).toBe('rid-1');
    expect((await request(handler).get('/items/handed-over')).body).toEqual({ via: 'koa', id: 'handed-over' });
    const other = await request(handler).get('/items/x');
    expect(other.body).toEqual({ via: 'koa', id: 'x' });
    expect(other.headers['x-request-id']).toBeTruthy();
  });
});
