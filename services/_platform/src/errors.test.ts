import Koa from 'koa';
import request from 'supertest';
import { describe, expect, it, vi } from 'vitest';
import { AppError, Errors, isConnectionError, toAppError } from './errors.js';
import { errorMiddleware } from './request-steps.js';

function appThrowing(err: unknown) {
  const app = new Koa();
  const onError = vi.fn();
  app.on('error', onError);
  app.use(errorMiddleware());
  app.use(() => {
    throw err;
  });
  return { app, onError };
}

describe(errorMiddleware.name, () => {
  it('should render an AppError as the InvenioRDM body', async () => {
    const { app } = appThrowing(Errors.validation([{ field: 'metadata.title', messages: ['Missing data for required field.'] }]));
    const res = await request(app.callback()).get('/');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body).toEqual({
      status: 400,
      message: 'A validation error occurred.',
      errors: [{ field: 'metadata.title', messages: ['Missing data for required field.'] }],
    });
  });

  it('should omit errors when there are none', async () => {
    const { app } = appThrowing(Errors.permissionDenied());
    const res = await request(app.callback()).get('/');
    expect(res.body).toEqual({ status: 403, message: 'Permission denied.' });
  });

  it('should hide the message and stack of an unexpected error and emit it', async () => {
    const { app, onError } = appThrowing(new Error('db password is hunter2'));
    const res = await request(app.callback()).get('/');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ status: 500, message: 'Internal server error.' });
    expect(res.text).not.toContain('hunter2');
    expect(onError).toHaveBeenCalledOnce();
  });

  it('should render an unmatched route as a 404 JSON body', async () => {
    const app = new Koa();
    app.use(errorMiddleware());
    const res = await request(app.callback()).get('/nowhere');
    expect(res.status).toBe(404);
    expect(res.body.status).toBe(404);
    expect(typeof res.body.message).toBe('string');
  });

  it('should set extra headers and body keys', async () => {
    const { app } = appThrowing(Errors.tooManyRequests({ 'Retry-After': '12' }));
    const res = await request(app.callback()).get('/');
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('12');
  });
});

describe(toAppError.name, () => {
  it('should keep AppErrors', () => {
    const e = new AppError('x', 409, 'conflict');
    expect(toAppError(e)).toBe(e);
  });
  it('should map client http errors and hide unknown ones', () => {
    expect(toAppError(Object.assign(new Error('bad'), { status: 413 })).status).toBe(413);
    expect(toAppError(new TypeError('x')).status).toBe(500);
  });
});

describe(isConnectionError.name, () => {
  const pgError = (code: string) => Object.assign(new Error('pg'), { code });
  it.each([
    ['a refused socket', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['an admin shutdown (57P01)', pgError('57P01')],
    ['a database starting up (57P03)', pgError('57P03')],
    ['a connection exception (08006)', pgError('08006')],
    ['too many connections (53300)', pgError('53300')],
    [
      'a knex pool timeout',
      Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' }),
    ],
    ['a connection cut mid-query', new Error('Connection terminated unexpectedly')],
    // Seen in the PostgreSQL fault trial: knex prefixes the statement to pg's message.
    ['a rollback on a broken client', new Error('ROLLBACK - Client has encountered a connection error and is not queryable')],
    ['an AggregateError of refusals', new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })], 'x')],
    ['a wrapped cause', new Error('outer', { cause: pgError('57P01') })],
  ])('should recognise %s', (_, err) => {
    expect(isConnectionError(err)).toBe(true);
  });
  it.each([
    ['a unique violation', pgError('23505')],
    ['a syntax error', pgError('42601')],
    ['a plain bug', new TypeError('x')],
    ['a query mentioning the words', new Error('insert into notes values ($1) - relation "notes" does not exist')],
    ['nothing', undefined],
  ])('should not take %s for an outage', (_, err) => {
    expect(isConnectionError(err)).toBe(false);
  });
});

describe(`${toAppError.name} for database failures`, () => {
  it('should answer 503 Service unavailable. with Retry-After when the database is unreachable', async () => {
    const { app, onError } = appThrowing(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
    const res = await request(app.callback()).get('/');
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body).toEqual({ status: 503, message: 'Service unavailable.' });
    expect(onError).toHaveBeenCalledOnce();
  });
  it('should answer 413 to a value PostgreSQL cannot store or index (54000)', () => {
    const e = toAppError(Object.assign(new Error('string is too long for tsvector'), { code: '54000' }));
    expect(e.status).toBe(413);
    expect(e.message).toBe('The request is too large to be stored or indexed.');
  });
});
