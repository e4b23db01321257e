/**
 * `tsx src/main.ts import --type affiliations --source <file> [--format ror-v2|jsonl|csv|yaml|orcid|openaire|cordis|skos|mesh] [--keep-missing]` (`make
 * vocabularies-import TYPE=… SOURCE=… [FORMAT=…]`): creates an import job and a run claimed by this
 * process, executes it here and shows its progress — a bar with entries/s and ETA on a terminal,
 * a plain line every few seconds otherwise (CI logs) — then a summary: added, updated, deprecated,
 * unchanged per type, the rejected entries with their reasons, time and peak memory.
 *
 * When to use: an operator loading a published dump on the machine that holds it (the file may be
 * anywhere there). Ctrl-C stops after the current batch and gives the run back to the queue at its
 * checkpoint: a serving vocabularies service (whose worker reads the same path) or a new run of the
 * command continues it. The changes reach NATS through the outbox, relayed by the serving service.
 */
import { randomUUID } from 'node:crypto';
import { basename, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ServiceContext } from '@rdm/platform';
import { type Config, importDirOf } from '../config.js';
import { getRun, insertJob, insertRun, listErrors } from '../repo/jobs.repo.js';
import { executeRun, IMPORT_TASK, parseImportArgs, type RunProgress } from './import-runner.js';

const USAGE =
  'usage: tsx src/main.ts import --type <vocabulary type> --source <file> [--format ror-v2|jsonl|csv|yaml|orcid|openaire|cordis|skos|mesh] [--keep-missing] [--batch <n>]';

/** `h:mm:ss` of a duration in seconds. */
export function clock(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '--:--';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  return `${h > 0 ? `${h}:` : ''}${String(m).padStart(h > 0 ? 2 : 1, '0')}:${String(r).padStart(2, '0')}`;
}

/** The progress line: `[#####…] 45% 12,345 entries 2,345/s ETA 0:12 (3 rejected)`; `width` 0 leaves the bar out. */
export function progressLine(p: RunProgress, elapsedSeconds: number, width: number, startPosition = 0): string {
  const fraction = p.phase !== 'entries' ? 1 : p.bytesTotal ? Math.min(1, p.bytesRead / p.bytesTotal) : 0;
  const done = Math.round(fraction * width);
  const bar = width > 0 ? `[${'#'.repeat(done)}${'-'.repeat(width - done)}] ` : '';
  const rate = elapsedSeconds > 0 ? (p.position - startPosition) / elapsedSeconds : 0;
  const eta = fraction > 0 && fraction < 1 ? (elapsedSeconds * (1 - fraction)) / fraction : fraction >= 1 ? 0 : Number.NaN;
  const phase = p.phase === 'deprecate' ? ' marking missing entries deprecated' : '';
  return `${bar}${Math.floor(fraction * 100)}% ${p.totalEntries.toLocaleString('en')} entries ${Math.round(rate).toLocaleString('en')}/s ETA ${clock(eta)}${
    p.erroredEntries ? ` (${p.erroredEntries.toLocaleString('en')} rejected)` : ''
  }${phase}`;
}

/** The command. */
export async function importCommand({ config, logger, db }: ServiceContext<Config>): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(3),
    options: {
      type: { type: 'string' },
      source: { type: 'string' },
      format: { type: 'string' },
      batch: { type: 'string' },
      'keep-missing': { type: 'boolean' },
    },
    strict: true,
  });
  let args: ReturnType<typeof parseImportArgs>;
  try {
    args = parseImportArgs({
      type: values.type,
      source: values.source ? resolve(values.source) : undefined,
      format: values.format,
      deprecate_missing: (values.format ?? 'ror-v2') === 'ror-v2' ? !values['keep-missing'] : undefined,
    });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    throw err;
  }
  const worker = `import-command:${process.pid}:${randomUUID().slice(0, 8)}`;
  const jobId = randomUUID();
  const runId = randomUUID();
  await db.transaction(async (trx) => {
    await insertJob(trx, {
      id: jobId,
      title: `Import ${args.type} from ${basename(args.source)}`,
      description: `make vocabularies-import (${args.format})`,
      task: IMPORT_TASK,
      active: true,
      default_args: args,
      created_by: null,
    });
    await insertRun(trx, { id: runId, job_id: jobId, title: 'Command-line run', args, started_by_id: null, worker });
  });
  const run = await getRun(db, jobId, runId);
  if (!run) throw new Error('The run vanished.');
  const tty = process.stderr.isTTY === true;
  const started = Date.now();
  let lastPlain = 0;
  let last: RunProgress | undefined;
  const show = (p: RunProgress, final = false) => {
    last = p;
    const elapsed = (Date.now() - started) / 1000;
    if (tty) {
      const width = Math.max(10, Math.min(40, (process.stderr.columns ?? 80) - 60));
      process.stderr.write(`\r${progressLine(p, elapsed, width)}\x1b[K${final ? '\n' : ''}`);
    } else if (final || Date.now() - lastPlain >= 5000) {
      lastPlain = Date.now();
      process.stderr.write(`${progressLine(p, elapsed, 0)}\n`);
    }
  };
  const abort = new AbortController();
  const onSigint = () => {
    process.stderr.write('\nstopping after the current batch…\n');
    abort.abort();
  };
  process.once('SIGINT', onSigint);
  process.stderr.write(`job ${jobId} run ${runId}: importing ${args.type} (${args.format}) from ${args.source}\n`);
  const outcome = await executeRun(
    {
      db,
      logger,
      importDir: importDirOf(config),
      batchSize: values.batch ? Number(values.batch) : config.VOCABULARIES_JOBS_BATCH_SIZE,
      leaseMs: config.VOCABULARIES_JOBS_LEASE_MS,
      yamlMaxBytes: config.VOCABULARIES_IMPORT_YAML_MAX_BYTES,
    },
    run,
    worker,
    { signal: abort.signal, onProgress: (p) => show(p) },
  );
  process.off('SIGINT', onSigint);
  if (last) show(last, true);
  const end = await getRun(db, jobId, runId);
  const seconds = (Date.now() - started) / 1000;
  const peakMb = process.resourceUsage().maxRSS / 1024;
  const out = process.stdout;
  out.write(`\nstatus: ${end?.status}${outcome === 'released' ? ' (stopped: queued again at its checkpoint)' : ''}\n`);
  if (end?.status === 'FAILED' && end.message) out.write(`  error: ${end.message}\n`);
  out.write(`  entries read: ${end?.total_entries ?? 0}\n`);
  for (const [type, c] of Object.entries(end?.counts ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    out.write(`  ${type}: ${c.added} added, ${c.updated} updated, ${c.deprecated} deprecated, ${c.unchanged} unchanged\n`);
  }
  out.write(`  rejected: ${end?.errored_entries ?? 0}\n`);
  for (const e of await listErrors(db, runId, 20))
    out.write(`    entry ${e.position}${e.entry_id ? ` (${e.entry_id})` : ''}: ${e.reason}\n`);
  if ((end?.errored_entries ?? 0) > 20) out.write(`    … all of them: GET /api/jobs/${jobId}/runs/${runId}\n`);
  out.write(`  time: ${clock(seconds)} (${seconds.toFixed(1)} s), peak memory (RSS): ${peakMb.toFixed(0)} MB\n`);
  if (end?.status === 'FAILED') throw new Error(`import failed: ${end.message}`);
}
