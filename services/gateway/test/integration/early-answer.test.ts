/**
 * Answers sent before the request body was read (issue 10, defect 1): a service refusing an
 * upload at once (404/403/415), a service's own body limit (413) and the gateway's (413). A client
 * that reuses sockets and sends its whole body before reading (Python `requests`, urllib3) must
 * get each answer promptly, and the next request on the same connection must be answered too.
 */
import http from 'node:http';
import { createLogger, loadConfig } from '@rdm/platform';
import { bodyParts, MB, rawExchange, requestHead } from '@rdm/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { configProperties } from '../../src/config.js';
import type { ServiceName } from '../../src/routes.js';
import { listen, type StubUpstream, startUpstreams, upstreamEnv } from './stubs.js';

let stubs: Record<ServiceName, StubUpstream>;
const closers: (() => Promise<void>)[] = [];

async function startGateway(env: Record<string, string> = {}): Promise<{ host: string; port: number; url: string }> {
  const config = loadConfig(configProperties, {
    IDENTITY_SECRET: 'early-answer-secret',
    LOG_LEVEL: 'silent',
    OPENAPI_FETCH_ATTEMPTS: '0',
    ...upstreamEnv(stubs),
    ...env,
  });
  const gw = createApp({ config, logger: createLogger('gateway', 'silent'), verifyToken: async () => null });
  const server = http.createServer(gw.app.callback());
  const url = await listen(server);
  closers.push(async () => {
    gw.proxy.close();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port), url };
}

beforeAll(async () => {
  stubs = await startUpstreams();
});

afterAll(async () => {
  for (const c of closers) await c();
  for (const s of Object.values(stubs ?? {})) await s.close();
});

/**
 * On ONE raw keep-alive connection, write every request in full (honouring back-pressure,
 * reading nothing in between, as a client that sends before it reads), then collect `expect`
 * responses. Resolves with what arrived when the connection closes early.
 */
const exchange = (target: { host: string; port: number }, requests: (string | Buffer)[][], expect: number) =>
  rawExchange(target, requests.flat(), { expect, afterAnswers: 'destroy' });

/** Request head with a Content-Length, then its body in 1 MiB chunks. */
const withBody = (method: string, path: string, type: string, size: number, host: string): (string | Buffer)[] => [
  requestHead(method, path, host, size, { 'Content-Type': type }),
  ...bodyParts(size),
];

/** A chunked request of `size` bytes. */
const chunked = (method: string, path: string, type: string, size: number, host: string): (string | Buffer)[] => [
  requestHead(method, path, host, 'chunked', { 'Content-Type': type }),
  ...bodyParts(size, { fill: 0x62, chunked: true }),
];

const get = (path: string, host: string): string[] => [`GET ${path} HTTP/1.1\r\nHost: ${host}\r\n\r\n`];

describe('gateway answers sent before the body was read', { timeout: 30_000 }, () => {
  it.each([
    ['404, the service discarding the body', '/api/records/abcde-fgh12/draft/files/early-404/a.bin/content', 404],
    ['403, the service no longer reading', '/api/records/abcde-fgh12/draft/files/early-stall-403/a.bin/content', 403],
  ])('should relay an early %s to a 20 MB upload, then answer the next request on the same connection', async (_, path, status) => {
    const gw = await startGateway();
    const host = `${gw.host}:${gw.port}`;
    const out = await exchange(
      gw,
      [withBody('PUT', path, 'application/octet-stream', 20 * MB, host), get('/api/records/abcde-fgh12', host)],
      2,
    );
    expect(out.responses.map((r) => r.status)).toEqual([status, 200]);
    expect(JSON.parse(out.responses[0].body)).toEqual({ status, message: `Refused early with ${status}.` });
    expect(JSON.parse(out.responses[1].body)).toMatchObject({ service: 'records' });
  });

  it('should relay an early 415 to a chunked 20 MB upload, then answer the next request on the same connection', async () => {
    const gw = await startGateway();
    const host = `${gw.host}:${gw.port}`;
    const out = await exchange(
      gw,
      [
        chunked('PUT', '/api/records/abcde-fgh12/draft/files/early-stall-415/a.bin/content', 'text/x-odd', 20 * MB, host),
        get('/api/users/1', host),
      ],
      2,
    );
    expect(out.responses.map((r) => r.status)).toEqual([415, 200]);
  });

  it("should relay a service's own 413 for a 3 MB JSON body, then answer the next request on the same connection", async () => {
    const gw = await startGateway();
    const host = `${gw.host}:${gw.port}`;
    const out = await exchange(
      gw,
      [withBody('POST', '/api/records/early-stall-413/draft', 'application/json', 3 * MB, host), get('/api/records/abcde-fgh12', host)],
      2,
    );
    expect(out.responses.map((r) => r.status)).toEqual([413, 200]);
  });

  it("should answer the gateway's own 413 over BODY_LIMIT, then the next request on the same connection", async () => {
    const gw = await startGateway({ BODY_LIMIT: String(MB) });
    const host = `${gw.host}:${gw.port}`;
    const out = await exchange(
      gw,
      [withBody('POST', '/api/records', 'application/json', 3 * MB, host), get('/api/records/abcde-fgh12', host)],
      2,
    );
    expect(out.responses.map((r) => r.status)).toEqual([413, 200]);
    expect(JSON.parse(out.responses[0].body)).toEqual({ status: 413, message: 'Request entity too large.' });
  });

  it('should answer at once and close the connection when the unread body is larger than the drain bound', async () => {
    const gw = await startGateway({ BODY_LIMIT: String(MB), EARLY_ANSWER_DRAIN_BYTES: String(2 * MB) });
    const host = `${gw.host}:${gw.port}`;
    for (const req of [
      withBody('POST', '/api/records', 'application/json', 20 * MB, host),
      withBody('PUT', '/api/records/abcde-fgh12/draft/files/early-stall-404/a.bin/content', 'application/octet-stream', 20 * MB, host),
    ]) {
      const out = await exchange(gw, [req], 1);
      expect(out.responses).toHaveLength(1);
      expect([413, 404]).toContain(out.responses[0].status);
      expect(out.responses[0].headers.connection).toBe('close');
    }
  });

  it('should serve a keep-alive http.Agent (one socket) through a refused 20 MB upload and a follow-up request', async () => {
    const gw = await startGateway();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const call = (method: string, path: string, body?: Buffer) =>
        new Promise<{ status: number; text: string; port: number }>((resolve, reject) => {
          const headers = body ? { 'content-type': 'application/octet-stream' } : {};
          const req = http.request(`${gw.url}${path}`, { method, agent, headers }, (res) => {
            const port = res.socket.localPort ?? 0;
            let text = '';
            res.on('data', (c: Buffer) => {
              text += c.toString();
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text, port }));
          });
          req.on('error', reject);
          req.end(body);
        });
      const refused = await call('PUT', '/api/records/abcde-fgh12/draft/files/early-stall-404/a.bin/content', Buffer.alloc(20 * MB));
      expect(refused.status).toBe(404);
      const next = await call('GET', '/api/records/abcde-fgh12');
      expect(next.status).toBe(200);
      // The same connection served both.
      expect(next.port).toBe(refused.port);
    } finally {
      agent.destroy();
    }
  });
});
