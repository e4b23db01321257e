/**
 * The pids component: persistent identifiers of drafts and records (reference §3.5): DOIs from
 * the managed DataCite provider (`<DOI_PREFIX>/<id>`, reserved on request, registered at publish
 * of a public record) or external DOIs supplied by the client, OAI identifiers minted at publish
 * for public records, and the parent's concept DOI.
 *
 * With `doiProvider: 'datacite'` the managed DOIs are also registered at DataCite, never on the
 * request's path: each change (reserve, discard, publish of a record and of its concept DOI)
 * writes `rdm.records.doi.changed` in its transaction and the DOI consumer (`src/datacite/`)
 * brings DataCite up to date. `pids.doi.status` shows where it stands: `new` (reserved on a
 * draft; a DataCite draft DOI), `reserved` (published, registration pending; pid row `K`),
 * `registered` (findable at DataCite; row `R`). The local provider (default) shows no status.
 *
 * When to use: a lifecycle component (`createLocked`, `updateLocked`, `checkPublish`, `publish`,
 * `deleteDraft`), and the `…/draft/pids/<scheme>` operations. `validate`
 * gives the save-time field errors (also the publish-time 400s). Rows of `pids` through the repo.
 */
import { Errors, type FieldError, type Identity, type Knex, withTransaction, writeOutbox } from '@rdm/platform';
import * as repo from '../repo/records.repo.js';
import type { AccessComponent } from './access.component.js';
import { ctxOf } from './access.component.js';
import { draftDoc } from './builders.js';
import {
  type DraftDeletion,
  type DraftWrite,
  type ItemView,
  loadDraft,
  type PublishCheck,
  type PublishCommit,
  type RecordComponent,
  type RecordsServiceConfig,
} from './component.js';
import { fieldErrors, RecordErrors } from './errors.js';
import type { FilesComponent } from './files.component.js';
import { isDoi, normalizeDoi } from './identifiers.js';
import type { DraftRow, ParentRow, PidValue, RecordRow } from './model.js';
import type { SearchIndexPort } from './ports.js';

/** Providers per scheme. */
export const PROVIDERS: Record<string, string[]> = { doi: ['datacite', 'external'], oai: ['oai'] };

/** PID configuration. */
export interface PidsConfig {
  doiPrefix: string;
  siteName: string;
}

/** The managed DOI of an id. */
export function managedDoi(prefix: string, id: string): string {
  return `${prefix}/${id}`;
}

/** The OAI identifier of an id. */
export function oaiIdentifier(prefix: string, id: string): string {
  return `oai:${prefix}:${id}`;
}

const add = (errors: FieldError[], field: string, message: string) => fieldErrors.add(errors, { field, messages: [message] });

/**
 * Validate (and normalise in place) `pids` of the draft `recordId`. Returns field errors:
 * invalid DOI, duplicates, external DOIs under the managed prefix, missing publisher for
 * DataCite registration.
 */
async function validatePids(
  db: Knex | Knex.Transaction,
  pids: Record<string, PidValue>,
  ctx: { recordId: string; metadata: Record<string, any> },
  cfg: PidsConfig,
): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  for (const [scheme, pid] of Object.entries(pids ?? {})) {
    if (!pid || typeof pid !== 'object') continue;
    const field = `pids.${scheme}`;
    const providers = PROVIDERS[scheme] ?? [];
    if (typeof pid.provider === 'string' && !providers.includes(pid.provider)) {
      add(errors, field, `Invalid provider ${pid.provider}.`);
      continue;
    }
    if (scheme !== 'doi') continue;
    const identifier = typeof pid.identifier === 'string' ? pid.identifier : '';
    if (identifier) {
      if (!isDoi(identifier)) {
        add(errors, field, 'Invalid DOI');
        continue;
      }
      pid.identifier = normalizeDoi(identifier);
    }
    const doi = pid.identifier;
    if (doi) {
      const existing = await repo.findPid(db, 'doi', doi);
      if (existing && existing.record_id !== ctx.recordId) add(errors, field, `doi:${doi} already exists.`);
    }
    if (pid.provider === 'external') {
      if (!doi) add(errors, field, 'Missing DOI for required field.');
      else if (doi.startsWith(`${cfg.doiPrefix}/`)) {
        add(
          errors,
          field,
          `The prefix '${cfg.doiPrefix}' is managed by ${cfg.siteName}. Please supply an external DOI or select 'No' to have a DOI generated for you.`,
        );
      }
    } else if (pid.provider === 'datacite') {
      if (doi && !doi.startsWith(`${cfg.doiPrefix}/`)) {
        add(errors, field, `Wrong DOI ${doi} prefix provided, it should be ${cfg.doiPrefix} as defined in the rest client`);
      }
      const publisher = ctx.metadata?.publisher;
      if (typeof publisher !== 'string' || publisher === '') {
        add(errors, 'metadata.publisher', 'Missing publisher field required for DOI registration.');
      }
    }
  }
  return errors;
}

/** Dependencies of the pids component. */
export interface PidsDeps {
  db: Knex;
  index: SearchIndexPort;
  config: Pick<RecordsServiceConfig, 'doiPrefix' | 'siteName' | 'oaiPrefix' | 'doiProvider'>;
  access: AccessComponent;
  files: FilesComponent;
}

/** The pids of a publication: the record's and, when changed, the parent's. */
export interface PublishedPids {
  pids: Record<string, PidValue>;
  parentPids: Record<string, PidValue>;
  parentChanged: boolean;
}

/** `pids.doi.status` of a pid row status. */
const STATUS_OF = { N: 'new', K: 'reserved', R: 'registered' } as const;

/** Persistent identifiers through the lifecycle. */
export class PidsComponent implements RecordComponent {
  readonly name = 'pids';
  private readonly cfg: PidsConfig;
  private readonly datacite: boolean;

  constructor(private readonly d: PidsDeps) {
    this.cfg = { doiPrefix: d.config.doiPrefix, siteName: d.config.siteName };
    this.datacite = d.config.doiProvider === 'datacite';
  }

  /** Tell the DataCite provider that a managed DOI changed (DataCite mode only; inside `trx`). */
  private async changed(trx: Knex.Transaction, doi: string, recordId: string, reason: 'reserved' | 'discarded' | 'published') {
    if (!this.datacite) return;
    await writeOutbox(trx, {
      subject: 'rdm.records.doi.changed',
      aggregate: { type: 'pid', id: doi, revision: 0 },
      data: { doi, record_id: recordId, reason },
    });
  }

  /** `pids.doi.status` is the server's: a sent one is replaced by the stored one (DataCite mode) or dropped. */
  private async withStoredStatus(db: Knex | Knex.Transaction, pids: Record<string, PidValue>, id: string): Promise<void> {
    const doi = pids?.doi;
    if (!doi || typeof doi !== 'object') return;
    Reflect.deleteProperty(doi, 'status');
    if (!this.datacite || doi.provider !== 'datacite' || typeof doi.identifier !== 'string') return;
    const row = await repo.findPid(db, 'doi', doi.identifier);
    if (row && row.record_id === id) doi.status = STATUS_OF[row.status as keyof typeof STATUS_OF];
  }

  /** Create: the sent pids, validated (save-time errors). */
  async createLocked(trx: Knex.Transaction, w: DraftWrite, id: string): Promise<void> {
    const pids = (w.input.data.pids ?? {}) as Record<string, PidValue>;
    w.patch.pids = pids;
    for (const e of await validatePids(trx, pids, { recordId: id, metadata: w.patch.metadata ?? {} }, this.cfg))
      fieldErrors.add(w.errors, e);
    await this.withStoredStatus(trx, pids, id);
  }

  /** Update (locked draft): the sent pids (or the current ones), validated; a reserved DOI dropped is released. */
  async updateLocked(trx: Knex.Transaction, w: DraftWrite, locked: DraftRow): Promise<void> {
    const id = locked.id;
    const pids = w.input.present.pids ? ((w.input.data.pids ?? {}) as Record<string, PidValue>) : structuredClone(w.draft!.pids);
    w.patch.pids = pids;
    for (const e of await validatePids(trx, pids, { recordId: id, metadata: w.patch.metadata ?? {} }, this.cfg))
      fieldErrors.add(w.errors, e);
    await this.withStoredStatus(trx, pids, id);
    const oldDoi = locked.pids?.doi?.identifier;
    if (oldDoi && oldDoi !== pids?.doi?.identifier) {
      const row = await repo.findPid(trx, 'doi', oldDoi);
      if (row && row.status === 'N' && row.record_id === id) {
        await repo.deletePid(trx, 'doi', oldDoi);
        await this.changed(trx, oldDoi, id, 'discarded');
      }
    }
  }

  /** Publish: the draft's pids validated (a copy: nothing is normalised in place). */
  async checkPublish(c: PublishCheck): Promise<void> {
    const pids = structuredClone(c.draft.pids ?? {});
    c.errors.pids.push(...(await validatePids(this.d.db, pids, { recordId: c.draft.id, metadata: c.draft.metadata }, this.cfg)));
  }

  /**
   * Publish (locked rows): required pids removed on an edit draft come back from the record; a
   * restricted record drops an unregistered managed DOI; DOIs and the OAI id are registered; the
   * parent gets its concept DOI once a version has a managed one.
   */
  async publish(trx: Knex.Transaction, p: PublishCommit): Promise<void> {
    const published = await this.published(trx, p.draft, p.record, p.parent);
    p.pids = published.pids;
    p.parentPatch.pids = published.parentPids;
    p.parentChanged = published.parentChanged;
  }

  /** The pids a publication gives the record and its parent (rows written in `trx`). */
  private async published(
    trx: Knex.Transaction,
    draft: DraftRow,
    record: RecordRow | undefined,
    parent: ParentRow,
  ): Promise<PublishedPids> {
    const id = draft.id;
    const isPublic = draft.access.record === 'public';
    const pids: Record<string, PidValue> = structuredClone(draft.pids ?? {});
    for (const [scheme, pid] of Object.entries(record?.pids ?? {})) if (!pids[scheme]) pids[scheme] = pid;
    if (pids.doi) {
      const doi = pids.doi;
      const row = doi.identifier ? await repo.findPid(trx, 'doi', doi.identifier) : undefined;
      const registered = (row?.status === 'R' || row?.status === 'K') && row.record_id === id;
      if (!isPublic && doi.provider === 'datacite' && !registered) {
        // Restricted records get no DOI: an unregistered managed DOI is deleted.
        Reflect.deleteProperty(pids, 'doi');
        if (row && row.record_id === id) {
          await repo.deletePid(trx, 'doi', doi.identifier);
          await this.changed(trx, doi.identifier, id, 'discarded');
        }
      } else if (doi.identifier) {
        if (row && row.record_id !== id) throw RecordErrors.pidTaken('doi', doi.identifier);
        const managed = this.datacite && doi.provider === 'datacite';
        // DataCite mode: registered only once DataCite said so (the DOI consumer); until then reserved.
        const status = managed && row?.status !== 'R' ? 'K' : 'R';
        pids.doi = { ...doi };
        Reflect.deleteProperty(pids.doi, 'status');
        if (managed) pids.doi.status = STATUS_OF[status];
        await repo.upsertPid(trx, { scheme: 'doi', identifier: doi.identifier, record_id: id, provider: doi.provider, status });
        if (managed) await this.changed(trx, doi.identifier, id, 'published');
      }
    }
    if (isPublic && !pids.oai) pids.oai = { identifier: oaiIdentifier(this.d.config.oaiPrefix, id), provider: 'oai' };
    if (pids.oai?.identifier) {
      await repo.upsertPid(trx, { scheme: 'oai', identifier: pids.oai.identifier, record_id: id, provider: 'oai', status: 'R' });
    }
    let parentPids = parent.pids ?? {};
    const parentChanged = pids.doi?.provider === 'datacite' && !parentPids.doi;
    if (parentChanged) {
      const conceptDoi = managedDoi(this.d.config.doiPrefix, parent.id);
      const status = this.datacite ? 'K' : 'R';
      const pid: PidValue = { identifier: conceptDoi, provider: 'datacite', client: 'datacite' };
      if (this.datacite) pid.status = STATUS_OF[status];
      parentPids = { ...parentPids, doi: pid };
      await repo.upsertPid(trx, { scheme: 'doi', identifier: conceptDoi, record_id: parent.id, provider: 'datacite', status });
    }
    // The concept DOI follows the latest version's metadata (the consumer reads it after commit).
    if (parentPids.doi?.provider === 'datacite' && pids.doi?.provider === 'datacite' && isPublic) {
      await this.changed(trx, parentPids.doi.identifier, parent.id, 'published');
    }
    return { pids, parentPids, parentChanged };
  }

  /** Delete draft: its unregistered pids go with it (DataCite: its draft DOI too). */
  async deleteDraft(trx: Knex.Transaction, d: DraftDeletion): Promise<void> {
    const id = d.draft.id;
    if (this.datacite) for (const doi of await repo.newDoisOf(trx, id)) await this.changed(trx, doi, id, 'discarded');
    await repo.deleteNewPids(trx, id);
  }

  /** POST /api/records/{id}/draft/pids/{scheme}: reserve a managed DOI. */
  async reserve(identity: Identity, id: string, scheme: string): Promise<ItemView> {
    const { draft, parent, hasRecord } = await loadDraft(this.d.db, id);
    await this.d.access.require('pid_manage', identity, ctxOf(draft, parent), parent);
    requireDoi(scheme);
    if (draft.pids?.doi?.identifier) throw RecordErrors.pidExistsForType('doi');
    const { summary } = await this.d.files.summaryOf(draft, hasRecord);
    return withTransaction(this.d.db, async (trx) => {
      const locked = await repo.getDraft(trx, id, true);
      if (!locked) throw Errors.pidDoesNotExist();
      if (locked.pids?.doi?.identifier) throw RecordErrors.pidExistsForType('doi');
      const doi = managedDoi(this.d.config.doiPrefix, id);
      const existing = await repo.findPid(trx, 'doi', doi);
      if (existing && existing.record_id !== id) throw RecordErrors.pidTaken('doi', doi);
      if (!existing) await repo.upsertPid(trx, { scheme: 'doi', identifier: doi, record_id: id, provider: 'datacite', status: 'N' });
      const pid: PidValue = { identifier: doi, provider: 'datacite', client: 'datacite' };
      if (this.datacite) pid.status = 'new';
      const pids = { ...(locked.pids ?? {}), doi: pid };
      const doc = await this.writePids(trx, locked, pids, parent, hasRecord, summary);
      await this.changed(trx, doi, id, 'reserved');
      return { kind: 'draft' as const, doc };
    });
  }

  /** DELETE /api/records/{id}/draft/pids/{scheme}: discard a DOI that is not registered. */
  async discard(identity: Identity, id: string, scheme: string): Promise<void> {
    const { draft, parent, hasRecord } = await loadDraft(this.d.db, id);
    await this.d.access.require('pid_manage', identity, ctxOf(draft, parent), parent);
    requireDoi(scheme);
    const pid = draft.pids?.doi;
    if (!pid?.identifier) throw Errors.pidDoesNotExist();
    const row = await repo.findPid(this.d.db, 'doi', pid.identifier);
    if (row && row.status !== 'N') throw RecordErrors.cannotDiscardPid('doi');
    const { summary } = await this.d.files.summaryOf(draft, hasRecord);
    await withTransaction(this.d.db, async (trx) => {
      const locked = await repo.getDraft(trx, id, true);
      if (!locked) throw Errors.pidDoesNotExist();
      const pids = { ...(locked.pids ?? {}) };
      Reflect.deleteProperty(pids, 'doi');
      if (row && row.record_id === id) {
        await repo.deletePid(trx, 'doi', pid.identifier);
        await this.changed(trx, pid.identifier, id, 'discarded');
      }
      await this.writePids(trx, locked, pids, parent, hasRecord, summary);
    });
  }

  private async writePids(
    trx: Knex.Transaction,
    locked: DraftRow,
    pids: Record<string, PidValue>,
    parent: ParentRow,
    isPublished: boolean,
    summary: Parameters<typeof draftDoc>[3],
  ) {
    const now = new Date();
    const revision = await repo.updateDraft(trx, locked.id, { pids }, now);
    const updated: DraftRow = { ...locked, pids, updated: now, revision_id: revision };
    const doc = draftDoc(updated, parent, isPublished, summary);
    await this.d.index.index(trx, { kind: 'draft', row: updated, doc });
    return doc;
  }
}

function requireDoi(scheme: string): void {
  if (scheme !== 'doi') throw RecordErrors.invalidPidScheme();
}
