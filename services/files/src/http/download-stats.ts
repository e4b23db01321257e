/**
 * Download statistics at the files service's edge: a person's (not a robot's) successful read of
 * a published record's file content (`GET /api/records/<id>/files/<key>/content`, 200, or a 206
 * starting at byte 0) publishes `rdm.stats.file.downloaded` to JetStream (stream `STATS`, created
 * by records) without waiting; records' aggregating consumer counts it (COUNTER rules there).
 *
 * When to use: mounted by app.ts when a JetStream client is given. Loss is bounded: at most
 * `maxInFlight` unacknowledged publishes; beyond that (NATS slow or down) events are dropped and
 * counted, never queued without bound. The visitor is an HMAC of address + user agent (the same
 * rule as records' `stats/visitor.ts`; the address is platform `clientAddress`'s); the raw values
 * never leave the process.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { type AppState, clientAddress, type NatsHandle } from '@rdm/platform';
import type { Middleware } from 'koa';

const CONTENT = /^\/api\/records\/([^/]+)\/files\/.+\/content$/;
// Same abridged COUNTER-Robots list as records' stats/visitor.ts.
const BOT =
  /bot|crawl|spider|slurp|archiver|facebookexternalhit|bingpreview|mediapartners|curl\/|wget|python-requests|python-urllib|httpclient|java\/|go-http-client|libwww|okhttp|axios\/|node-fetch|headlesschrome|phantomjs|lighthouse|pingdom|uptime|monitor|scrapy|ahrefs|semrush|yandex|baidu|bytespider|petalbot|gptbot|ccbot/i;

/** Publish a download event per counted content read. */
export function downloadStatsMiddleware(o: { js: NatsHandle['js']; secret: string; maxInFlight?: number }): Middleware<AppState> {
  let inFlight = 0;
  return async (ctx, next) => {
    await next();
    if (ctx.method !== 'GET') return;
    const m = CONTENT.exec(ctx.path);
    if (!m) return;
    const partial = ctx.status === 206 && /^bytes 0-/.test(String(ctx.response.get('Content-Range')));
    if (ctx.status !== 200 && !partial) return;
    const ua = ctx.get('user-agent');
    if (!ua || BOT.test(ua) || inFlight >= (o.maxInFlight ?? 1000)) return;
    // The address the gateway signed (never the client-written X-Forwarded-For).
    const address = clientAddress(ctx.state.identity, ctx.req);
    const total = partial ? Number(String(ctx.response.get('Content-Range')).split('/')[1]) : Number(ctx.length ?? 0);
    const id = randomUUID();
    const at = new Date().toISOString();
    const data = {
      record_id: decodeURIComponent(m[1]!),
      visitor: createHmac('sha256', o.secret).update(`${address}\n${ua}`).digest('base64url').slice(0, 32),
      at,
      size: Number.isFinite(total) ? total : 0,
    };
    const envelope = {
      id,
      type: 'rdm.stats.file.downloaded',
      version: 1,
      occurred_at: at,
      aggregate: { type: 'record', id: data.record_id, revision: 0 },
      data,
    };
    inFlight += 1;
    o.js
      .publish('rdm.stats.file.downloaded', JSON.stringify(envelope), { msgID: id })
      .catch(() => undefined)
      .finally(() => {
        inFlight -= 1;
      });
  };
}
