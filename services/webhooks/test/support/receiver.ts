/**
 * A loopback HTTP receiver of webhook deliveries for tests: records every request (headers, raw
 * body, time) and answers by a script (`respond`: a status per call, or `hang` to never answer).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

/** One received request. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A running receiver. */
export interface Receiver {
  url: string;
  received: Received[];
  /** How to answer call n (0-based): a status, or 'hang'. Default 200. */
  respond: (n: number) => number | 'hang';
  close(): Promise<void>;
}

/** Start a receiver on 127.0.0.1 (a random port), answering after `delayMs`. */
export async function startReceiver(respond: Receiver['respond'] = () => 200, delayMs = 0): Promise<Receiver> {
  const received: Received[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const r: Receiver = { url: '', received, respond, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const n = received.length;
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const how = r.respond(n);
      if (how === 'hang') {
        hanging.add(res);
        return;
      }
      const answer = () => {
        res.writeHead(how, { 'content-type': 'text/plain' });
        res.end(`answer ${n} ${'x'.repeat(3000)}`);
      };
      if (delayMs > 0) setTimeout(answer, delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
  r.close = async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return r;
}
