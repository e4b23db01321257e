/**
 * Refusals of an upload whose body is still coming (issue 19, item 1), at the service alone: the
 * real app on the platform's bounded HTTP server (as `serviceMain` runs it), a raw client that
 * keeps sending without `Expect: 100-continue`. Every refusal — before the body (404, 403, 415,
 * an oversized Content-Length) or in the middle of it (a chunked body passing the size limit) —
 * must reach the client whole, the client's body must be accepted to its end (no reset), and the
 * connection must serve the next request. The same through the real gateway:
 * e2e/specs/files/early-refusal.test.ts.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBoundedServer, DEFAULT_HTTP_SERVER_BOUNDS } from '@rdm/platform';
import { bodyParts, gatewayFront, MB, rawExchange } from '@rdm/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, identityHeader, makeEngine, SECRET } from './support.js';

const TRIES = 10;
const OWNER = 'user-owner';
const REC = 'early-00001';

let h: Harness;
let server: Server;
let port: number;

beforeAll(async () => {
  h = await createHarness(await makeEngine('local'), { FILES_MAX_FILE_BYTES: 6 * MB });
  server = createBoundedServer(gatewayFront(h.app.callback(), SECRET), DEFAULT_HTTP_SERVER_BOUNDS);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
  h.records.add(REC, { owner: OWNER, default_preview: null, order: [] });
  const init = await fetch(`http://127.0.0.1:${port}/api/records/${REC}/draft/files`, {
    method: 'POST',
    headers: { ...identityHeader(OWNER), 'content-type': 'application/json' },
    body: JSON.stringify([{ key: 'pending.bin' }]),
  });
  expect(init.status).toBe(201);
});

afterAll(async () => {
  server?.closeAllConnections();
  server?.close();
  await h?.close();
  await h?.engine.dispose();
});

/** The first answer on a connection, and how the connection went. */
interface Outcome {
  status?: number;
  body?: unknown;
  socketError?: string;
  sent: number;
  next?: number;
}

/**
 * One connection: `head`, then `size` body bytes in 1 MiB writes (chunk-framed when `chunked`),
 * honouring back-pressure, never waiting for the answer; then a GET of the file list. Resolves
 * once both answers came or the connection closed.
 */
async function exchange(head: string, size: number, chunked: boolean): Promise<Outcome> {
  const auth = Object.entries(identityHeader(OWNER))
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  const next = `GET /api/records/${REC}/draft/files HTTP/1.1\r\nHost: x\r\n${auth}\r\n`;
  const x = await rawExchange({ host: '127.0.0.1', port }, [head, ...bodyParts(size, { chunked }), next], {
    expect: 2,
    afterAnswers: 'destroy',
    timeoutMs: 10_000,
  });
  const [first, second] = x.responses;
  let body: unknown;
  try {
    body = first ? JSON.parse(first.body) : undefined;
  } catch {
    body = undefined;
  }
  return { status: first?.status, body, socketError: x.socketError, sent: x.sent, next: second?.status };
}

const headOf = (path: string, o: { user?: string | null; type?: string; length?: number }) => {
  const id = o.user === null ? {} : identityHeader(o.user ?? OWNER);
  const lines = [
    `PUT ${path} HTTP/1.1`,
    'Host: x',
    `Content-Type: ${o.type ?? 'application/octet-stream'}`,
    o.length === undefined ? 'Transfer-Encoding: chunked' : `Content-Length: ${o.length}`,
    ...Object.entries(id).map(([k, v]) => `${k}: ${v}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n`;
};

const content = (key: string) => `/api/records/${REC}/draft/files/${key}/content`;

describe('files service: refusals of an upload still being sent', { timeout: 120_000 }, () => {
  it.each([
    {
      name: '404 before the body: an unregistered key',
      head: () => headOf(content('nope.bin'), { length: 20 * MB }),
      size: 20 * MB,
      chunked: false,
      status: 404,
      body: { status: 404, message: `Record '${REC}' has no file 'nope.bin'.` },
    },
    {
      name: "403 before the body: another user's draft",
      head: () => headOf(content('pending.bin'), { length: 20 * MB, user: 'user-other' }),
      size: 20 * MB,
      chunked: false,
      status: 403,
      body: { status: 403, message: 'Permission denied.' },
    },
    {
      name: '415 before the body: not application/octet-stream',
      head: () => headOf(content('pending.bin'), { length: 20 * MB, type: 'text/plain' }),
      size: 20 * MB,
      chunked: false,
      status: 415,
      body: { status: 415, message: "Invalid 'Content-Type' header. Expected one of: application/octet-stream" },
    },
    {
      name: '400 before the body: a Content-Length over the file size limit',
      head: () => headOf(content('pending.bin'), { length: 20 * MB }),
      size: 20 * MB,
      chunked: false,
      status: 400,
      body: { status: 400, message: 'File size limit exceeded.' },
    },
    {
      name: '400 in the middle of the body: a chunked body passing the file size limit',
      head: () => headOf(content('pending.bin'), {}),
      size: 20 * MB,
      chunked: true,
      status: 400,
      body: { status: 400, message: 'File size limit exceeded.' },
    },
  ])('$name: the refusal every time, the body accepted to its end, the connection reused', async (c) => {
    const seen: Outcome[] = [];
    for (let i = 0; i < TRIES; i++) seen.push(await exchange(c.head(), c.size, c.chunked));
    const want: Outcome = { status: c.status, body: c.body, sent: c.size, next: 200 };
    const wrong = seen.filter(
      (o) =>
        o.status !== want.status ||
        JSON.stringify(o.body) !== JSON.stringify(want.body) ||
        o.socketError ||
        o.sent !== c.size ||
        o.next !== 200,
    );
    expect(wrong, `${wrong.length} of ${TRIES} wrong; statuses ${seen.map((o) => o.status).join(' ')}`).toEqual([]);
  });
});
