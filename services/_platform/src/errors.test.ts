import Koa from 'koa';
import request from 'supertest';
import { describe, expect, it, vi } from 'vitest';
import { AppError, Errors, errorMiddleware, toAppError } from './errors.js';

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
