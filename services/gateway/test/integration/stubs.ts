/**
 * Test doubles for the gateway's peers: plain HTTP upstreams on loopback that record what they
 * receive, and a users verify-token responder over a private NATS server.
 */
import { createHash } from 'node:crypto';
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Identity, verifyIdentity } from '@rdm/platform';
import { SERVICES, type ServiceName } from '../../src/routes.js';

/** What an upstream saw of one request. */
export interface Seen {
  service: ServiceName;
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
}

/**
 * The identity the gateway signed for a request a stub saw, verified as a service would (bound to
 * its method, target and request id), or why it was refused.
 */
export function identityOf(seen: Seen | undefined, secret: string): Identity | string {
  if (seen === undefined) return 'not seen';
  const value = seen.headers['x-rdm-identity'];
  if (typeof value !== 'string') return 'missing';
  const rid = seen.headers['x-request-id'];
  const v = verifyIdentity(value, secret, { method: seen.method, target: seen.url, requestId: typeof rid === 'string' ? rid : '' });
  return 'refused' in v ? v.refused : v.identity;
}

/** A running stub upstream. */
export interface StubUpstream {
  service: ServiceName;
  url: string;
  server: Server;
  seen: Seen[];
  /** Requests whose body was cut by the client (gateway) before it ended. */
  aborted: number;
  /** Requests left unanswered whose connection the gateway closed (the client went away). */
  abandoned: number;
  /** `/readyz` answers 503 while set. */
  notReady?: boolean;
  close(): Promise<void>;
}

/** Listen on an ephemeral loopback port. */
export async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A loopback port nothing listens on. */
export async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
};

function handler(stub: StubUpstream) {
  return (req: IncomingMessage, res: ServerResponse) => {
    stub.seen.push({ service: stub.service, method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    const path = (req.url ?? '').split('?')[0];
    res.setHeader('x-stub-service', stub.service);

    if (path === '/readyz') {
      return json(res, stub.notReady ? 503 : 200, { status: stub.notReady ? 'unavailable' : 'ready', checks: {} });
    }
    if (path === '/openapi.json') {
      if (stub.service !== 'vocabularies') return json(res, 404, { status: 404, message: 'Not found.' });
      return json(res, 200, {
        openapi: '3.1.0',
        info: { title: 'vocabularies', version: '1' },
        paths: {
          '/api/vocabularies/{type}/{id}': {
            get: {
              operationId: 'vocabularies_read_entry',
              summary: 'Read an entry (vocabularies fragment)',
              responses: { '200': { description: 'The entry.' } },
            },
          },
        },
      });
    }
    if (path.endsWith('/never') || path.endsWith('/never/content')) {
      // Never answers nor reads a body (headers/upload timeout tests).
      res.once('close', () => {
        if (!res.writableEnded) stub.abandoned++;
      });
      return;
    }
    if (path.includes('/hang-after-body/')) {
      // Reads the whole body, then never answers (upload idle tests).
      req.on('data', () => undefined);
      req.on('end', () => stub.seen.push({ service: stub.service, method: 'END', url: req.url ?? '', headers: {} }));
      req.on('close', () => {
        if (!res.writableEnded) stub.aborted++;
      });
      return;
    }
    if (path.endsWith('/missing')) return json(res, 404, { status: 404, message: 'The persistent identifier does not exist.' });
    if (path.endsWith('/cut-me/files-archive')) {
      // Headers and part of the body, then the connection dies.
      res.writeHead(200, { 'content-type': 'application/zip', 'content-length': '1000000' });
      res.write(Buffer.alloc(1000));
      setTimeout(() => res.socket?.destroy(), 50);
      return;
    }
    if (path.endsWith('/files-archive')) {
      res.writeHead(200, { 'content-type': 'application/zip' });
      const chunk = Buffer.alloc(1024 * 1024, 7);
      let n = 0;
      const pump = () => {
        while (n < 20) {
          n++;
          if (!res.write(chunk)) return res.once('drain', pump);
        }
        res.end();
      };
      pump();
      return;
    }
    // Early refusals, before the body is read (files: unknown key 404, not the owner 403, bad
    // type 415). `/early-<status>/`: answer at once and leave the body to node (it discards it);
    // `/early-stall-<status>/`: read 1 MB, stop reading (as raw-body does over its limit), answer.
    const early = /\/early-(stall-)?(\d{3})\//.exec(path);
    if (early && (req.method === 'PUT' || req.method === 'POST')) {
      const status = Number(early[2]);
      const answer = () => json(res, status, { status, message: `Refused early with ${status}.` });
      if (!early[1]) return answer();
      let size = 0;
      const onData = (c: Buffer) => {
        size += c.length;
        if (size < 1024 * 1024) return;
        req.off('data', onData);
        req.pause();
        answer();
      };
      req.on('data', onData);
      return;
    }
    if (req.method === 'PUT' || req.method === 'POST') {
      // Stream the body through md5 without keeping it.
      const md5 = createHash('md5');
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        md5.update(c);
      });
      req.on('end', () => {
        const answer = () =>
          json(res, req.method === 'POST' ? 201 : 200, { size, checksum: `md5:${md5.digest('hex')}`, service: stub.service });
        // `/slow/` paths think for a while after the body (uploads must not time out).
        if (path.includes('/slow/')) setTimeout(answer, 600);
        else answer();
      });
      req.on('close', () => {
        if (!req.complete) stub.aborted++;
      });
      return;
    }
    if (req.method === 'DELETE') {
      res.writeHead(204);
      res.end();
      return;
    }
    json(
      res,
      200,
      { service: stub.service, url: req.url },
      // A hop-by-hop header named by Connection must not reach the client.
      { etag: '"3"', connection: 'keep-alive, x-hop', 'x-hop': 'secret', 'keep-alive': 'timeout=65' },
    );
  };
}

/** Start one stub per service; returns them by name. */
export async function startUpstreams(): Promise<Record<ServiceName, StubUpstream>> {
  const out = {} as Record<ServiceName, StubUpstream>;
  for (const service of SERVICES) {
    const stub: StubUpstream = {
      service,
      url: '',
      server: http.createServer(),
      seen: [],
      aborted: 0,
      abandoned: 0,
      close: async () => undefined,
    };
    stub.server.on('request', handler(stub));
    stub.url = await listen(stub.server);
    stub.close = () =>
      new Promise<void>((r) => {
        stub.server.closeAllConnections();
        stub.server.close(() => r());
      });
    out[service] = stub;
  }
  return out;
}

/** Environment variables pointing the gateway at the stubs. */
export function upstreamEnv(stubs: Record<ServiceName, StubUpstream>): Record<string, string> {
  return Object.fromEntries(SERVICES.map((s) => [`${s.toUpperCase()}_URL`, stubs[s].url]));
}
