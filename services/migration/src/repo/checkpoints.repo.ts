/**
 * SQL of the migration's schema: checkpoints per source entity (`CheckpointPort`) and runs with
 * their report. Takes a Knex of the `migration` schema (createDb).
 */
import type { Knex } from '@rdm/platform';
import type { Checkpoint, CheckpointPort } from '../domain/ports.js';
import type { MigrationReport } from '../domain/report.js';

/** Checkpoints of one source in PostgreSQL. */
export class PgCheckpoints implements CheckpointPort {
  constructor(
    private readonly db: Knex,
    private readonly sourceUrl: string,
    private readonly runId: string | null,
  ) {}

  async get(entity: string, sourceId: string): Promise<Checkpoint | undefined> {
    const row = await this.db('checkpoints').where({ source_url: this.sourceUrl, entity, source_id: sourceId }).first();
    if (!row) return undefined;
    return { status: row.status, sourceUpdated: row.source_updated, versions: row.versions ?? [], reason: row.reason };
  }

  async put(entity: string, sourceId: string, c: Checkpoint): Promise<void> {
    await this.db('checkpoints')
      .insert({
        source_url: this.sourceUrl,
        entity,
        source_id: sourceId,
        status: c.status,
        source_updated: c.sourceUpdated,
        versions: c.versions,
        reason: c.reason,
        run_id: this.runId,
        updated: new Date(),
      })
      .onConflict(['source_url', 'entity', 'source_id'])
      .merge();
  }
}

/** Record the start of a run. */
export async function startRun(db: Knex, r: { id: string; sourceUrl: string; since?: string; dryRun: boolean }): Promise<void> {
  await db('runs').insert({ id: r.id, source_url: r.sourceUrl, since: r.since ?? null, dry_run: r.dryRun, status: 'running' });
}

/** Record the end of a run with its report. */
export async function finishRun(db: Knex, id: string, status: 'finished' | 'failed', report: MigrationReport | null): Promise<void> {
  await db('runs')
    .where({ id })
    .update({ status, finished: new Date(), report: report ? JSON.stringify(report) : null });
}
