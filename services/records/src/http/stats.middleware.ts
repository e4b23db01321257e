/**
 * Usage statistics at the HTTP edge of records: a successful `GET /api/records/<id>` by a person
 * (not a robot) publishes `rdm.stats.record.viewed` without waiting, and its body gets the live
 * `stats` block (the rendered record, possibly from the read cache, carries zero counters: they
 * are spliced in here from `StatsService.read`, cached 2 s, so the read cache's stamp need not
 * change with every view).
 *
 * When to use: mounted by app.ts before the router when statistics are on (`STATS_ENABLED`).
 */
import { type AppState, clientAddress } from '@rdm/platform';
import type { Middleware } from 'koa';
import { DOUBLE_CLICK_MS, type StatsBlock, type StatsService } from '../stats/stats.service.js';
import type { StatsPublisher } from '../stats/publisher.js';
import { RepeatFilter } from '../stats/repeat-filter.js';
import { isBot, visitorHash } from '../stats/visitor.js';

const RECORD = /^\/api\/records\/([^/]+)$/;
const Z = '{"views":0,"unique_views":0,"downloads":0,"unique_downloads":0,"data_volume":0}';
/** The zero block the serializer writes for every record (serializers.ts `statsBlock`). */
const ZERO_STATS = Buffer.from(`"stats":{"this_version":${Z},"all_versions":${Z}}`);

/**
 * The last spliced body per rendered body (a read-cache hit hands out the same Buffer each time,
 * and `StatsService.read` the same block while its 2 s cache holds): splicing again would
 * build the same bytes.
 */
const SPLICED = new WeakMap<Buffer, { block: StatsBlock; out: Buffer }>();

/** `body` with its zero stats block replaced by `block` (undefined: no zero block in it). */
function splice(body: Buffer, block: StatsBlock): Buffer | undefined {
  const memo = SPLICED.get(body);
  if (memo !== undefined && memo.block === block) return memo.out;
  const at = body.indexOf(ZERO_STATS);
  if (at < 0) return undefined;
  const live = Buffer.from(`"stats":${JSON.stringify(block)}`);
  const out = Buffer.concat([body.subarray(0, at), live, body.subarray(at + ZERO_STATS.length)]);
  SPLICED.set(body, { block, out });
  return out;
}

/** The two steps of a counted read, shared by the middleware and the lean read path (record-read-lean.ts). */
export interface StatsEdge {
  /** Publish the view unless a robot or a repeat (fire and forget); `address` is platform `clientAddress`'s. */
  viewed(recordId: string, userAgent: string, address: string): void;
  /** `body` with the live stats block, or undefined when it holds no zero block. */
  live(recordId: string, body: Buffer): Promise<Buffer | undefined>;
}

/** The steps behind `statsMiddleware`. */
export function statsEdge(o: { stats: StatsService; publisher?: StatsPublisher; secret: string }): StatsEdge {
  // Repeat views the consumer would not count are not published at all (stats/repeat-filter.ts).
  const repeats = new RepeatFilter(DOUBLE_CLICK_MS);
  return {
    viewed(recordId, ua, address) {
      if (!o.publisher || isBot(ua)) return;
      const visitor = visitorHash(address, ua, o.secret);
      const now = Date.now();
      if (repeats.admit(visitor, recordId, now)) {
        o.publisher.publish('rdm.stats.record.viewed', { record_id: recordId, visitor, at: new Date(now).toISOString() });
      }
    },
    async live(recordId, body) {
      return splice(body, await o.stats.read(recordId));
    },
  };
}

/** Count views and show live counters. */
export function statsMiddleware(edge: StatsEdge): Middleware<AppState> {
  return async (ctx, next) => {
    await next();
    if (ctx.method !== 'GET' || ctx.status !== 200) return;
    const m = RECORD.exec(ctx.path);
    if (!m) return;
    const recordId = decodeURIComponent(m[1]!);
    edge.viewed(recordId, ctx.get('user-agent'), clientAddress(ctx.state.identity, ctx.req));
    const body = ctx.body;
    if (!Buffer.isBuffer(body)) return;
    const out = await edge.live(recordId, body);
    if (out === undefined) return;
    ctx.body = out;
    ctx.type = 'application/json';
  };
}
