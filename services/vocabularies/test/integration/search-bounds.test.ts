/**
 * Bounded work per request (issue 18, findings 4 and 5) on the vocabularies service, over the real
 * PostgreSQL: the regex term that cost ~12 s of CPU is refused at once, so are 85 regex terms in one
 * `q`, a costly query that passes the checks stops at the search statement timeout (503, never 500),
 * and the service's own HTTP server cuts a body that trickles (408). Bounded in count and time.
 */
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import {
  createLogger,
  DEFAULT_SEARCH_STATEMENT_TIMEOUT_MS,
  httpServerBounds,
  loadConfig,
  runService,
  setSearchStatementTimeout,
} from '@rdm/platform';
import { statementWatch, type TestDb, waitFor } from '@rdm/platform/testing';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configProperties } from '../../src/config.js';
import { appOver, loadedDb } from './setup.js';

let t: TestDb;
let http: ReturnType<typeof request>;

beforeAll(async () => {
  t = await loadedDb();
  http = request(appOver(t).app.callback());
});
afterAll(async () => {
  setSearchStatementTimeout(DEFAULT_SEARCH_STATEMENT_TIMEOUT_MS);
  await t?.destroy();
});

describe('search cost (GET /api/vocabularies/<type>?q=…)', () => {
  it('should refuse /(.*){255}x/ at once with a 400 on q (it cost ~10 s of PostgreSQL CPU over 243 languages)', async () => {
    const t0 = Date.now();
    const res = await http.get('/api/vocabularies/languages').query({ q: '/(.*){255}x/' });
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      status: 400,
      message: 'Invalid query string syntax: nested quantifiers are not supported in regular expressions.',
      errors: [{ field: 'q', messages: ['Nested quantifiers are not supported in regular expressions.'] }],
    });
  });

  it('should refuse 85 regex terms in one q with a 400 on q', async () => {
    const t0 = Date.now();
    const res = await http.get('/api/vocabularies/languages').query({ q: Array(85).fill('/a.*x/').join(' ') });
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'q', messages: ['A query may hold at most 5 regular expression or wildcard terms.'] }]);
  });

  it('should stop a query that passes the checks at the search statement timeout with a 503', async () => {
    // ~470 ms on the shipped languages (243 entries) on the 2-core dev machine; 50 ms lets it start, not finish.
    const q = '/.{0,32}[a-z]{0,31}x/';
    setSearchStatementTimeout(50);
    try {
      const res = await http.get('/api/vocabularies/languages').query({ q });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: 503, message: 'The search took too long; please refine it.' });
    } finally {
      setSearchStatementTimeout(DEFAULT_SEARCH_STATEMENT_TIMEOUT_MS);
    }
    expect((await http.get('/api/vocabularies/languages').query({ q })).status).toBe(200);
  });

  it('should cancel a running search in PostgreSQL when its client disconnects', async () => {
    // Three costly terms within the limits: ~2.4 s on the shipped languages on the 2-core dev machine.
    const q = '/.{0,32}[a-z]{0,31}x/ OR /[a-z]{0,32}.{0,31}y/ OR /.{0,32}[a-z]{0,31}z/';
    const watch = await statementWatch(); // the entries search with a regex match
    const running = () => watch.running('%FROM entries e%', '%~%');
    const { app, health } = appOver(t);
    const { server, stop } = await runService({
      name: 'vocabularies-cancel',
      app,
      health,
      logger: createLogger('vocabularies-test', 'silent'),
      host: '127.0.0.1',
      port: 0,
    });
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    socket.on('error', () => undefined);
    try {
      socket.write(`GET /api/vocabularies/languages?q=${encodeURIComponent(q)} HTTP/1.1\r\nHost: x\r\n\r\n`);
      await waitFor(async () => (await running()) > 0, { timeoutMs: 5000, intervalMs: 20, message: 'the search never ran' });
      const gone = Date.now();
      socket.destroy();
      await waitFor(async () => (await running()) === 0, { timeoutMs: 5000, intervalMs: 20, message: 'the search kept running' });
      // Without the cancel it runs on for most of its ~2.4 s.
      expect(Date.now() - gone).toBeLessThan(600);
    } finally {
      socket.destroy();
      await stop('test');
      await watch.close();
    }
  });
});

describe('HTTP server bounds of the service (runService with its configuration)', () => {
  it('should cut a request body trickling a byte at a time with a JSON 408 and close the connection', async () => {
    const config = loadConfig(configProperties, {
      HTTP_BODY_IDLE_TIMEOUT_MS: '400',
      HTTP_BODY_MIN_BYTES_PER_SECOND: '100',
      HTTP_BODY_RATE_WINDOW_MS: '600',
    });
    const { app, health } = appOver(t);
    const { server, stop } = await runService({
      name: 'vocabularies-bounds',
      app,
      health,
      logger: createLogger('vocabularies-test', 'silent'),
      host: '127.0.0.1',
      port: 0,
      bounds: httpServerBounds(config),
    });
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    socket.on('error', () => undefined);
    let received = '';
    socket.on('data', (c) => {
      received += c.toString();
    });
    const closed = new Promise<number>((r) => {
      const t0 = Date.now();
      socket.on('close', () => r(Date.now() - t0));
    });
    // The create route reads its JSON body before anything else: anyone can make it wait.
    socket.write('POST /api/vocabularies/languages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
    const trickle = setInterval(() => socket.writable && socket.write(' '), 200); // 5 bytes/s: never idle, far too slow
    try {
      const after = await Promise.race([closed, new Promise<number>((r) => setTimeout(() => r(-1), 5000))]);
      expect(after, 'the connection was not closed within 5 s').toBeGreaterThan(0);
      expect(after).toBeLessThan(3000);
    } finally {
      clearInterval(trickle);
      socket.destroy();
      await stop('test');
    }
    const [head, body] = received.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 408 /);
    expect(head.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(body)).toEqual({ status: 408, message: 'Request timeout: the request body was not received in time.' });
  });
});
