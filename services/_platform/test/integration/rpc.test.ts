import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, Errors } from '../../src/errors.js';
import { serveContract } from '../../src/contracts.js';
import { callRpc, RpcError, type RpcServer, serveRpc } from '../../src/nats.js';
import { testLogger, testNats, uniqueId } from '../../src/testing/index.js';

let nats: Awaited<ReturnType<typeof testNats>>;
const servers: RpcServer[] = [];
const logger = testLogger('rpc');
const ns = `rdmtest.${uniqueId()}.rpc`;

beforeAll(async () => {
  nats = await testNats();
  servers.push(
    serveRpc<{ a: number; b: number }, { sum: number; trace?: string }>(
      nats.nc,
      `${ns}.add`,
      async (req, { headers }) => ({ sum: req.a + req.b, trace: headers.traceparent }),
      {
        queue: 'test',
        logger,
        validate: {
          type: 'object',
          required: ['a', 'b'],
          additionalProperties: false,
          properties: { a: { type: 'integer' }, b: { type: 'integer' } },
        },
      },
    ),
    serveRpc(
      nats.nc,
      `${ns}.forbidden`,
      async () => {
        throw Errors.permissionDenied();
      },
      { queue: 'test', logger },
    ),
    serveRpc(
      nats.nc,
      `${ns}.fields`,
      async () => {
        throw Errors.validation([{ field: 'metadata.title', messages: ['Missing data for required field.'] }]);
      },
      { queue: 'test', logger },
    ),
    serveRpc(
      nats.nc,
      `${ns}.bug`,
      async () => {
        throw new Error('secret internals: password=hunter2');
      },
      { queue: 'test', logger },
    ),
    serveRpc(
      nats.nc,
      `${ns}.db-down`,
      async () => {
        // What pg throws when PostgreSQL is gone mid-request.
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5947'), { code: 'ECONNREFUSED' });
      },
      { queue: 'test', logger },
    ),
    serveRpc(nats.nc, `${ns}.slow`, () => new Promise((r) => setTimeout(() => r('late'), 1500)), { queue: 'test', logger }),
    serveRpc(nats.nc, `${ns}.nothing`, async () => undefined, { queue: 'test', logger }),
    // The requests comment contract on a private subject: the proto schema itself checks requests.
    serveContract(nats.nc, 'rdm.requests.rpc.comment', async (req) => ({ comment: { id: req.id, content: req.payload.content } }), {
      queue: 'test',
      logger,
      subject: `${ns}.comment`,
    }),
  );
});

afterAll(async () => {
  for (const s of servers) await s.stop();
  await nats.close();
});

async function caught(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected a rejection');
}

describe(callRpc.name, () => {
  it('should return the data of an ok reply and carry headers to the handler', async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const sut = await callRpc<{ sum: number; trace: string }>(nats.nc, `${ns}.add`, { a: 2, b: 3 }, { headers: { traceparent } });
    expect(sut).toEqual({ sum: 5, trace: traceparent });
  });

  it('should return null for a handler returning nothing', async () => {
    expect(await callRpc(nats.nc, `${ns}.nothing`, {})).toBeNull();
  });

  it('should re-throw an AppError reply with the same status, code and message', async () => {
    const sut = await caught(callRpc(nats.nc, `${ns}.forbidden`, {}));
    expect(sut).toBeInstanceOf(AppError);
    expect(sut).toMatchObject({ status: 403, code: 'permission_denied', message: 'Permission denied.' });
  });

  it('should carry field errors', async () => {
    const sut = await caught(callRpc(nats.nc, `${ns}.fields`, {}));
    expect(sut).toMatchObject({ status: 400, code: 'validation_error' });
    expect(sut.fieldErrors).toEqual([{ field: 'metadata.title', messages: ['Missing data for required field.'] }]);
  });

  it('should answer a request failing the schema with a 400 naming the fields', async () => {
    const sut = await caught(callRpc(nats.nc, `${ns}.add`, { a: 'x', c: 1 }));
    expect(sut).toMatchObject({ status: 400, code: 'validation_error' });
    expect(sut.fieldErrors).toEqual(
      expect.arrayContaining([
        { field: 'a', messages: ['must be integer'] },
        { field: 'b', messages: ['Missing data for required field.'] },
        { field: 'c', messages: ['Unknown field.'] },
      ]),
    );
  });

  it('should check a contract request against its proto schema: 400 naming the fields it breaks', async () => {
    const identity = { sub: '1', roles: [] };
    const ok = await callRpc(nats.nc, `${ns}.comment`, { id: 'r1', identity, payload: { content: 'hi', format: 'html' } });
    expect(ok).toEqual({ comment: { id: 'r1', content: 'hi' } });
    // What the hand-written schema of requests let through: a payload without content, an identity with extra keys.
    const sut = await callRpc(nats.nc, `${ns}.comment`, {
      id: 'r1',
      identity: { ...identity, admin: true },
      payload: { text: 'hi' },
    }).catch((e) => e);
    expect(sut).toBeInstanceOf(AppError);
    expect(sut).toMatchObject({ status: 400, code: 'validation_error' });
    expect((sut as AppError).fieldErrors).toEqual(
      expect.arrayContaining([
        { field: 'identity.admin', messages: ['Unknown field.'] },
        { field: 'payload.content', messages: ['Missing data for required field.'] },
      ]),
    );
  });

  it('should answer a request that is not JSON with a 400', async () => {
    const msg = await nats.nc.request(`${ns}.add`, new TextEncoder().encode('{nope'), { timeout: 2000 });
    expect(msg.json()).toEqual({
      ok: false,
      error: { code: 'invalid_json', status: 400, message: 'Unable to decode JSON data in request body.' },
    });
  });

  it('should turn an unexpected handler error into a generic 500', async () => {
    const sut = await caught(callRpc(nats.nc, `${ns}.bug`, {}));
    expect(sut).toMatchObject({ status: 500, code: 'internal_error' });
    expect(sut.message).not.toContain('hunter2');
  });

  it('should answer a lost database connection in the handler as 503 with Retry-After, not 500', async () => {
    const sut = await caught(callRpc(nats.nc, `${ns}.db-down`, {}));
    expect(sut).toMatchObject({ status: 503, message: 'Service unavailable.' });
    expect(sut.headers?.['Retry-After']).toMatch(/^\d+$/);
    expect(sut.message).not.toContain('ECONNREFUSED');
  });

  it('should throw RpcError (503) when nobody serves the subject', async () => {
    const started = Date.now();
    const sut = await caught(callRpc(nats.nc, `${ns}.missing`, {}));
    expect(sut).toBeInstanceOf(RpcError);
    expect(sut).toMatchObject({ status: 503, code: 'service_unavailable', message: 'Service unavailable.' });
    // Every 503 tells the client when to come back (the kind pod-kill trial met one without it).
    expect(sut.headers?.['Retry-After']).toMatch(/^\d+$/);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('should throw RpcError (503) on timeout', async () => {
    const started = Date.now();
    const sut = await caught(callRpc(nats.nc, `${ns}.slow`, {}, { timeoutMs: 300 }));
    expect(sut).toBeInstanceOf(RpcError);
    expect(sut.status).toBe(503);
    expect(sut.headers?.['Retry-After']).toMatch(/^\d+$/);
    expect(Date.now() - started).toBeLessThan(1200);
  });

  it('should share requests between servers of one queue group', async () => {
    const hits: string[] = [];
    const subject = `${ns}.shared`;
    const a = serveRpc(
      nats.nc,
      subject,
      async () => {
        hits.push('a');
        return 'a';
      },
      { queue: 'grp', logger },
    );
    const b = serveRpc(
      nats.nc,
      subject,
      async () => {
        hits.push('b');
        return 'b';
      },
      { queue: 'grp', logger },
    );
    servers.push(a, b);
    await nats.nc.flush();
    const replies = await Promise.all(Array.from({ length: 40 }, () => callRpc(nats.nc, subject, {})));
    expect(replies).toHaveLength(40);
    expect(hits).toHaveLength(40);
  });
});
