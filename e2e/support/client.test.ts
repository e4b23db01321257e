import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, overloadRetries } from './client.js';

describe(overloadRetries.name, () => {
  let server: Server;
  let seen: { at: number; body: string }[] = [];
  let unavailableFor = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        seen.push({ at: Date.now(), body });
        if (seen.length <= unavailableFor) {
          res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
          res.end('{"status":503,"message":"Service unavailable."}');
        } else {
          res.writeHead(201, { 'content-type': 'application/json' });
          res.end('{"ok":true}');
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    process.env.E2E_BASE_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const reset = (n: number) => {
    seen = [];
    unavailableFor = n;
  };

  it('should ask a 503 again after its Retry-After, with the same body, inside overloadRetries', async () => {
    reset(2);
    const res = await overloadRetries(3, () => api('/api/x', { body: { a: 1 } }));
    expect(res.status).toBe(201);
    expect(seen.map((s) => s.body)).toEqual(['{"a":1}', '{"a":1}', '{"a":1}']);
    expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(950);
  });

  it('should give up after n retries and return the 503', async () => {
    reset(5);
    const res = await overloadRetries(1, () => api('/api/x'));
    expect(res.status).toBe(503);
    expect(seen).toHaveLength(2);
  });

  it('should never retry outside overloadRetries', async () => {
    reset(1);
    const res = await api('/api/x');
    expect(res.status).toBe(503);
    expect(seen).toHaveLength(1);
  });
});
