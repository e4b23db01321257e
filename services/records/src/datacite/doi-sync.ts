/**
 * The DataCite side of a managed DOI, brought up to date with what the records database says now
 * (convergent: the event that triggered a sync only names the DOI, so redeliveries, reordering and
 * retries all end in the same state):
 *
 * | locally | at DataCite |
 * |---|---|
 * | no pid row (discarded) | a `draft` DOI is deleted; anything else is left |
 * | pid of a draft only (reserved) | `draft` (created without metadata) |
 * | pid of a public, live record | `findable`, DataCite XML 4.5 of the public read form, URL = landing page |
 * | record deleted (tombstone) or restricted | `registered` (hidden: resolvable, not findable) |
 * | concept DOI of a parent | as its latest version, XML with the concept DOI, URL = the parent's landing page |
 *
 * After DataCite answered, the pid row becomes `R` (registered) when the DOI is findable or
 * registered, and the record's `pids.doi.status` (and the parent's for a concept DOI) says
 * `registered` (revision bumped, search document refreshed) — in the caller's transaction.
 *
 * When to use: the DOI consumer (`doi.consumer.ts`) calls `sync(trx, doi)`; never on a request path.
 */
import type { Knex, MsgLogger } from '@rdm/platform';
import { recordDoc } from '../domain/builders.js';
import type { ParentRow, PidValue, RecordRow } from '../domain/model.js';
import type { SearchIndexPort } from '../domain/ports.js';
import { parentDoc } from '../domain/serializers.js';
import { formatByName } from '../export/formats.js';
import { publicJsonOfDoc } from '../export/reader.js';
import type { RecordJson } from '../export/util.js';
import type { VocabPropsCache } from '../export/vocab-props.js';
import * as repo from '../repo/records.repo.js';
import { type DataCiteClient, DataCiteError, type DoiState } from './client.js';
import * as doiRepo from './doi.repo.js';

/** What the sync needs. */
export interface DoiSyncDeps {
  db: Knex;
  client: DataCiteClient;
  index: SearchIndexPort;
  props: VocabPropsCache;
  baseUrl: string;
  siteName: string;
  doiResolverUrl: string;
  logger?: MsgLogger;
}

/** What a sync did (tests, logs). */
export interface SyncOutcome {
  doi: string;
  target: DoiState | 'deleted' | 'none';
  call?: 'create' | 'update' | 'delete';
}

type Target =
  | { state: 'none' | 'deleted' | 'draft' }
  | { state: 'findable' | 'registered'; json: RecordJson; url: string; owner: 'record' | 'parent'; ownerId: string };

const DATACITE_XML = formatByName('datacite-xml')!;

/** Brings DataCite in line with the database, one DOI at a time. */
export class DoiSync {
  constructor(private readonly d: DoiSyncDeps) {}

  /** Sync `doi` inside `trx` (the consumer's inbox transaction); throws DataCiteError on failure. */
  async sync(trx: Knex.Transaction, doi: string): Promise<SyncOutcome> {
    // Why no row lock: DataCite may take seconds and a publication must never wait for it; a
    // concurrent change writes another event, whose sync converges on the newer state.
    const row = await doiRepo.getDoi(trx, doi);
    try {
      const target = await this.targetOf(trx, doi, row);
      const outcome = await this.apply(doi, target);
      if (row && target.state !== 'none' && target.state !== 'deleted') {
        const registered = target.state !== 'draft';
        await doiRepo.markSynced(trx, doi, { state: target.state, ...(registered ? { status: 'R' as const } : {}) });
        if (registered && 'owner' in target) await this.showRegistered(trx, target.owner, target.ownerId, doi);
      }
      return outcome;
    } catch (err) {
      // Why not awaited, outside trx: the inbox transaction rolls back (its locks go with it); the
      // failure must stay visible on the pid row.
      if (row) void doiRepo.markFailed(this.d.db, doi, String((err as Error)?.message ?? err)).catch(() => undefined);
      throw err;
    }
  }

  /** The managed DOI of a record (deleted/restored events name the record, not the DOI). */
  async doiOfRecord(db: Knex | Knex.Transaction, recordId: string): Promise<string | undefined> {
    const record = await repo.getRecord(db, recordId);
    const doi = record?.pids?.doi;
    if (!doi?.identifier || doi.provider !== 'datacite') return undefined;
    return doi.identifier;
  }

  private async targetOf(trx: Knex.Transaction, doi: string, row: doiRepo.DoiRow | undefined): Promise<Target> {
    if (!row) return { state: 'deleted' };
    if (row.provider !== 'datacite') return { state: 'none' };
    const found = await repo.getRecordWithParent(trx, row.record_id);
    if (found?.parent) {
      if (found.record.pids?.doi?.identifier !== doi) return { state: 'none' };
      return this.publishedTarget(found.record, found.parent, 'record', found.record.id);
    }
    const parent = await repo.getParent(trx, row.record_id);
    if (parent?.pids?.doi?.identifier === doi && parent.latest_id) {
      const latest = await repo.getRecordWithParent(trx, parent.latest_id);
      if (!latest?.parent) return { state: 'none' };
      return this.publishedTarget(latest.record, latest.parent, 'parent', parent.id, doi);
    }
    return { state: 'draft' };
  }

  private publishedTarget(record: RecordRow, parent: ParentRow, owner: 'record' | 'parent', ownerId: string, conceptDoi?: string): Target {
    const json = publicJsonOfDoc(recordDoc(record, parent), { baseUrl: this.d.baseUrl, doiResolverUrl: this.d.doiResolverUrl });
    let url = String((json.links as Record<string, string>)?.self_html ?? `${this.d.baseUrl}/records/${record.id}`);
    if (conceptDoi) {
      json.pids = { ...(json.pids as object), doi: { identifier: conceptDoi, provider: 'datacite', client: 'datacite' } };
      if (json.parent) json.parent = { ...(json.parent as object), pids: {} };
      url = `${this.d.baseUrl}/records/${ownerId}`;
    }
    const hidden = record.deletion_status !== 'P' || record.access?.record !== 'public';
    return { state: hidden ? 'registered' : 'findable', json, url, owner, ownerId };
  }

  private async apply(doi: string, t: Target): Promise<SyncOutcome> {
    const c = this.d.client;
    if (t.state === 'none') return { doi, target: 'none' };
    if (!('json' in t)) return this.applyUnpublished(doi, t.state as 'deleted' | 'draft');
    const remote = await c.get(doi);
    const xml = Buffer.from(await this.renderXml(t.json)).toString('base64');
    if (t.state === 'findable') {
      const attrs = { doi, event: 'publish' as const, url: t.url, xml };
      if (remote) await c.update(attrs);
      else await c.create(attrs);
      return { doi, target: 'findable', call: remote ? 'update' : 'create' };
    }
    if (!remote) await c.create({ doi, event: 'register', url: t.url, xml });
    else if (remote.state === 'draft') await c.update({ doi, event: 'register', url: t.url, xml });
    else if (remote.state === 'findable') await c.update({ doi, event: 'hide' });
    else return { doi, target: 'registered' };
    return { doi, target: 'registered', call: remote ? 'update' : 'create' };
  }

  private async applyUnpublished(doi: string, state: 'deleted' | 'draft'): Promise<SyncOutcome> {
    const c = this.d.client;
    const remote = await c.get(doi);
    if (state === 'deleted') {
      if (remote?.state !== 'draft') return { doi, target: 'deleted' };
      await c.delete(doi);
      return { doi, target: 'deleted', call: 'delete' };
    }
    if (remote) return { doi, target: 'draft' };
    await c.create({ doi });
    return { doi, target: 'draft', call: 'create' };
  }

  private async renderXml(json: RecordJson): Promise<string> {
    const props = await this.d.props.lookupFor([json]);
    return DATACITE_XML.render(json, { baseUrl: this.d.baseUrl, siteName: this.d.siteName, doiResolverUrl: this.d.doiResolverUrl, props });
  }

  /** `pids.doi.status` = registered on the live record (or the parent's concept DOI). */
  private async showRegistered(trx: Knex.Transaction, owner: 'record' | 'parent', id: string, doi: string): Promise<void> {
    const withStatus = (pid: PidValue | undefined): PidValue | undefined =>
      pid?.identifier === doi && pid.status !== 'registered' ? { ...pid, status: 'registered' } : undefined;
    if (owner === 'record') {
      const record = await repo.getRecord(trx, id, true);
      const pid = withStatus(record?.pids?.doi);
      if (!record || !pid) return;
      const pids = { ...record.pids, doi: pid };
      const now = new Date();
      const revision = await repo.updateRecord(trx, id, { pids }, now);
      if (record.deletion_status !== 'P') return;
      const parent = (await repo.getParent(trx, record.parent_id))!;
      const row: RecordRow = { ...record, pids, updated: now, revision_id: revision };
      await this.d.index.index(trx, { kind: 'record', row, doc: recordDoc(row, parent) });
      return;
    }
    const parent = await repo.getParent(trx, id, true);
    const pid = withStatus(parent?.pids?.doi);
    if (!parent || !pid) return;
    const pids = { ...parent.pids, doi: pid };
    await repo.updateParent(trx, id, { pids });
    await this.d.index.refreshParent(trx, id, parentDoc({ ...parent, pids }));
  }
}

/** Whether a failure is worth a retry (DataCite down, slow, rate-limited). */
export function isRetryable(err: unknown): boolean {
  return !(err instanceof DataCiteError) || err.retryable;
}
