/**
 * The report of a migration run (issue 26): counts per phase, what was copied, skipped and
 * failed with reasons, checksum mismatches; as JSON (kept in `runs.report` and written to a file)
 * and as a readable summary.
 */

/** The JSON report of a run. */
export interface MigrationReport {
  run_id: string;
  source: string;
  since: string | null;
  dry_run: boolean;
  started: string;
  finished: string | null;
  source_total: number;
  records: { copied: number; unchanged: number; skipped: number; failed: number };
  files: { copied: number; already_there: number; bytes: number; checksum_mismatches: number };
  copied: { id: string; versions: string[]; status: string }[];
  skipped: { id: string; reason: string }[];
  failures: { id: string; reason: string }[];
  /** What this run does not migrate (yet), said once so that no one takes silence for completeness. */
  not_migrated: string[];
}

/** What no run migrates yet. */
export const NOT_MIGRATED = [
  'communities and record-community membership',
  'users (and never passwords or tokens)',
  'deleted records (tombstones)',
  'requests, secret links and access grants',
  'drafts (unpublished)',
];

/** An empty report. */
export function newReport(runId: string, source: string, since: string | undefined, dryRun: boolean, started: string): MigrationReport {
  return {
    run_id: runId,
    source,
    since: since ?? null,
    dry_run: dryRun,
    started,
    finished: null,
    source_total: 0,
    records: { copied: 0, unchanged: 0, skipped: 0, failed: 0 },
    files: { copied: 0, already_there: 0, bytes: 0, checksum_mismatches: 0 },
    copied: [],
    skipped: [],
    failures: [],
    not_migrated: NOT_MIGRATED,
  };
}

/** The readable summary of a report. */
export function summary(r: MigrationReport): string {
  const lines = [
    `Migration ${r.run_id} from ${r.source}${r.since ? ` (since ${r.since})` : ''}${r.dry_run ? ' — DRY RUN: nothing written' : ''}`,
    `  records: ${r.records.copied} copied, ${r.records.unchanged} unchanged, ${r.records.skipped} skipped, ${r.records.failed} failed (source lists ${r.source_total} record versions)`,
    `  files:   ${r.files.copied} copied (${r.files.bytes} bytes), ${r.files.already_there} already there, checksum mismatches = ${r.files.checksum_mismatches}`,
  ];
  for (const f of r.failures) lines.push(`  FAILED  ${f.id}: ${f.reason}`);
  for (const s of r.skipped) lines.push(`  SKIPPED ${s.id}: ${s.reason}`);
  lines.push(`  not migrated by this version: ${r.not_migrated.join('; ')}`);
  return lines.join('\n');
}
