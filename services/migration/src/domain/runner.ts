/**
 * One migration run (issue 26): records phase — every parent of the source with all its
 * published versions, their files streamed across and verified, then records' import RPC (the
 * record is there with everything, or not at all). A checkpoint per parent (`record`, keyed by
 * the source's parent id) makes a rerun skip what did not change and a killed run resume; a
 * record the target refuses is reported with the reason and skipped, the run goes on. `dryRun`:
 * everything is read and validated by the target (`dry_run`), no file is sent, nothing is
 * written, no checkpoint moves. `since`: only parents whose latest version was updated since.
 *
 * When to use: the CLI (main.ts) and tests, with real or fake ports.
 */
import type { Readable } from 'node:stream';
import { isAppError } from '@rdm/platform';
import { importRequest } from './mapping.js';
import type { CheckpointPort, SourceFile, SourcePort, SourceRecord, TargetPort } from './ports.js';
import { type MigrationReport, newReport } from './report.js';

/** Options of a run. */
export interface RunOptions {
  runId: string;
  since?: string;
  dryRun?: boolean;
  /** A progress line (counts, bytes, rate, ETA). */
  progress?: (line: string) => void;
  /** Stop after this many parents (tests: a killed run). */
  limit?: number;
  now?: () => number;
}

/** Is this error a checksum mismatch of the target? */
const isMismatch = (err: unknown) => (err as Error)?.name === 'ChecksumMismatch';

/** The reason of a failure, as the report tells it. */
export function reasonOf(err: unknown): string {
  if (isAppError(err)) {
    const fields = (err.fieldErrors ?? []).map((f) => `${f.field}: ${f.messages.join(' ')}`);
    return `${err.status} ${err.message}${fields.length ? ` (${fields.join('; ')})` : ''}`;
  }
  return (err as Error)?.message ?? String(err);
}

/** Count bytes flowing through (files phase of the report). */
function counted(body: Readable, onBytes: (n: number) => void): Readable {
  body.on('data', (c: Buffer) => onBytes(c.length));
  return body;
}

/** Run the records phase. */
export async function runMigration(
  source: SourcePort,
  target: TargetPort,
  checkpoints: CheckpointPort,
  o: RunOptions,
): Promise<MigrationReport> {
  const now = o.now ?? Date.now;
  const report = newReport(o.runId, source.url, o.since, o.dryRun === true, new Date(now()).toISOString());
  const { total } = await source.check();
  report.source_total = total;
  const started = now();
  const r = report.records;
  const line = (phase: string) => {
    const done = r.copied + r.unchanged + r.failed + r.skipped;
    const secs = Math.max(0.001, (now() - started) / 1000);
    const rate = done / secs;
    const eta = rate > 0 && total > done ? Math.round((total - done) / rate) : 0;
    o.progress?.(
      `[${phase}] ${done}/${total} copied=${r.copied} unchanged=${r.unchanged} skipped=${r.skipped} failed=${r.failed} ` +
        `files=${report.files.copied} bytes=${report.files.bytes} rate=${rate.toFixed(2)}/s eta=${eta}s`,
    );
  };
  let handled = 0;
  for await (const latest of source.latestRecords(o.since)) {
    if (o.limit !== undefined && handled >= o.limit) break;
    handled++;
    await migrateParent(latest);
    line('records');
  }
  report.finished = new Date(now()).toISOString();
  return report;

  async function migrateParent(latest: SourceRecord): Promise<void> {
    const parentId = latest.parent.id;
    const cp = await checkpoints.get('record', parentId);
    if (cp?.status === 'copied' && cp.sourceUpdated === latest.updated && cp.versions.includes(latest.id)) {
      r.unchanged++;
      return;
    }
    let versions: SourceRecord[];
    const filesOf = new Map<string, SourceFile[]>();
    try {
      versions = await source.versions(latest.id);
      if (versions.length === 0) versions = [latest];
      for (const v of versions) filesOf.set(v.id, v.files?.enabled === false ? [] : await source.files(v.id));
    } catch (err) {
      await fail(parentId, latest.updated, `reading the source: ${reasonOf(err)}`);
      return;
    }
    const req = importRequest(versions, filesOf, o.dryRun);
    if (o.dryRun) {
      try {
        const answer = await target.importRecord(req);
        r.copied++;
        report.copied.push({ id: parentId, versions: versions.map((v) => v.id), status: answer.status });
      } catch (err) {
        r.failed++;
        report.failures.push({ id: parentId, reason: reasonOf(err) });
      }
      return;
    }
    try {
      const done = new Set(cp?.status === 'copied' ? cp.versions : []);
      for (const v of versions) {
        if (done.has(v.id)) continue;
        for (const f of filesOf.get(v.id) ?? []) {
          const body = counted(await source.content(f), (n) => {
            report.files.bytes += n;
          });
          const { stored } = await target.putFile(v.id, f, body);
          if (stored) report.files.copied++;
          else report.files.already_there++;
        }
      }
      const answer = await target.importRecord(req);
      await checkpoints.put('record', parentId, {
        status: 'copied',
        sourceUpdated: latest.updated,
        versions: versions.map((v) => v.id),
        reason: null,
      });
      if (answer.status === 'unchanged') r.unchanged++;
      else {
        r.copied++;
        report.copied.push({ id: parentId, versions: answer.created, status: answer.status });
      }
    } catch (err) {
      if (isMismatch(err)) report.files.checksum_mismatches++;
      await fail(parentId, latest.updated, reasonOf(err));
    }
  }

  async function fail(parentId: string, updated: string, reason: string): Promise<void> {
    r.failed++;
    report.failures.push({ id: parentId, reason });
    await checkpoints.put('record', parentId, { status: 'failed', sourceUpdated: updated, versions: [], reason });
  }
}
