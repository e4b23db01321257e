/**
 * Usage statistics: views (record reads by people) and downloads (file content reads) counted
 * from `rdm.stats.record.viewed` / `rdm.stats.file.downloaded` events, never by a write per
 * request. COUNTER rules: the same visitor (hash of address + user agent, made by the emitter)
 * and record within 30 s counts once (double-click); `unique_*` counts a visitor once per record
 * per UTC day; robots are filtered by the emitters (stats/visitor.ts).
 *
 * When to use: `apply` is the aggregating consumer's handler (inside its inbox transaction, so a
 * redelivered event counts once); `read` gives the `stats` block of a record (cached briefly:
 * counts lag by at most `ttlMs`).
 */
import type { Knex } from '@rdm/platform';
import * as repo from '../repo/stats.repo.js';
import type { SearchIndexPort } from '../domain/ports.js';

/** The event data both subjects carry. */
export interface UsageEvent {
  record_id: string;
  visitor: string;
  /** ISO time of the request. */
  at: string;
  /** Bytes sent (downloads). */
  size?: number;
}

/** COUNTER's double-click window. */
export const DOUBLE_CLICK_MS = 30_000;

type Part = { views: number; unique_views: number; downloads: number; unique_downloads: number; data_volume: number };
/** The API's `stats` block. */
export type StatsBlock = { this_version: Part; all_versions: Part };

const part = (p: Partial<repo.StatsRow>): Part => ({
  views: Number(p.views ?? 0),
  unique_views: Number(p.unique_views ?? 0),
  downloads: Number(p.downloads ?? 0),
  unique_downloads: Number(p.unique_downloads ?? 0),
  data_volume: Number(p.data_volume ?? 0),
});

/** Counts usage events and reads the counters. */
export class StatsService {
  private cache = new Map<string, { at: number; block: StatsBlock }>();

  constructor(private readonly d: { db: Knex; ttlMs?: number; index?: SearchIndexPort }) {}

  /** Count one event (consumer handler): `kind` v = view, d = download. */
  async apply(trx: Knex.Transaction, kind: 'v' | 'd', e: UsageEvent): Promise<void> {
    const parentId = await repo.parentIdOf(trx, e.record_id);
    if (!parentId) return; // unknown ids are not counted
    const at = new Date(e.at);
    if (Number.isNaN(at.getTime())) return;
    const day = at.toISOString().slice(0, 10);
    // Why: FOR UPDATE cannot lock a row that does not exist yet; two first visits at once must serialize.
    await repo.lockKey(trx, `stats:${kind}:${e.record_id}:${e.visitor}`);
    const seen = await repo.lockSeen(trx, kind, e.record_id, e.visitor);
    if (seen && Math.abs(at.getTime() - new Date(seen.last_counted).getTime()) < DOUBLE_CLICK_MS) return;
    const seenDay = seen ? (typeof seen.day === 'string' ? seen.day : new Date(seen.day).toISOString().slice(0, 10)) : undefined;
    const unique = seenDay !== day ? 1 : 0;
    await repo.upsertSeen(trx, kind, e.record_id, e.visitor, at, day);
    const view = kind === 'v';
    await repo.addCounts(trx, e.record_id, parentId, {
      views: view ? 1 : 0,
      unique_views: view ? unique : 0,
      downloads: view ? 0 : 1,
      unique_downloads: view ? 0 : unique,
      data_volume: view ? 0 : Math.max(0, Math.trunc(e.size ?? 0)),
    });
    // Sort keys (InvenioRDM sorts by all versions' unique views / downloads).
    if (unique && this.d.index?.setUsage) {
      // Why: the views and downloads consumers run side by side; without one writer per parent at a
      // time, each would sum before the other's commit and the last to write would undo the other's count.
      await repo.lockKey(trx, `stats-usage:${parentId}`);
      const sum = await repo.uniqueUsageOfParent(trx, parentId);
      await this.d.index.setUsage(trx, parentId, sum.views, sum.downloads);
    }
  }

  /** The `stats` block of a record (cached `ttlMs`, default 2 s). */
  async read(recordId: string): Promise<StatsBlock> {
    const now = Date.now();
    const hit = this.cache.get(recordId);
    if (hit && now - hit.at < (this.d.ttlMs ?? 2000)) return hit.block;
    const s = await repo.statsOf(this.d.db, recordId);
    const block = { this_version: part(s.this), all_versions: part(s.all) };
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(recordId, { at: now, block });
    return block;
  }
}
