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
import net, { type AddressInfo, type Socket } from 'node:net';
import { createBoundedServer, DEFAULT_HTTP_SERVER_BOUNDS } from '@rdm/platform';
import { gatewayFront } from '@rdm/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, identityHeader, makeEngine, SECRET } from './support.js';

const MB = 1024 * 1024;
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
function exchange(head: string, size: number, chunked: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    const out: Outcome = { sent: 0 };
    let received = '';
    let done = false;
    const statuses = () => [...received.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const [first, next] = statuses();
      out.status = first;
      out.next = next;
      const m = /\r\n\r\n(\{[^\r]*?\})(?:HTTP|$)/.exec(received);
      out.body = m ? JSON.parse(m[1]) : undefined;
      socket.destroy();
      resolve(out);
    };
    const timer = setTimeout(finish, 10_000);
    socket.on('data', (c: Buffer) => {
      received += c.toString('latin1');
      if (statuses().length >= 2 && received.endsWith('}')) finish();
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      out.socketError = e.code ?? e.message;
    });
    socket.on('close', finish);
    void (async () => {
      const write = async (b: Buffer | string) => {
        if (socket.destroyed) return false;
        if (!socket.write(b)) await drained(socket);
        return !socket.destroyed;
      };
      await write(head);
      const chunk = Buffer.alloc(MB, 0x61);
      for (let left = size; left > 0; left -= MB) {
        const part = left >= MB ? chunk : chunk.subarray(0, left);
        if (!(await write(chunked ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]) : part)))
          return;
        out.sent += part.length;
      }
      if (chunked && !(await write('0\r\n\r\n'))) return;
      const id = identityHeader(OWNER);
      const auth = Object.entries(id)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('');
      await write(`GET /api/records/${REC}/draft/files HTTP/1.1\r\nHost: x\r\n${auth}\r\n`);
    })();
  });
}

/** Until `socket` can take more (or closed); both listeners removed either way. */
function drained(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.once('drain', done);
    socket.once('close', done);
  });
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
