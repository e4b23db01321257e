/**
 * SQL of jobs and runs (migration 20261128000000_create_jobs). Takes a `Knex` or a transaction; no
 * business rules here. A run is claimed with `FOR UPDATE SKIP LOCKED` and fenced by its `worker`
 * token: every batch first re-reads the run row `FOR UPDATE` with that token, so a worker whose
 * lease was taken over can never apply another batch.
 */
import type { Knex } from '@rdm/platform';
import { ENTRY_COLUMNS, pgTextArray } from './vocabularies.repo.js';
import type { EntryRow } from '../domain/documents.js';

type Db = Knex | Knex.Transaction;

/** ISO 8601 with microseconds and `+00:00`. */
const ts = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"')`;

/** A job row. */
export interface JobRow {
  id: string;
  title: string;
  description: string | null;
  task: string;
  active: boolean;
  default_args: Record<string, unknown>;
  created_by: string | null;
  created: string;
  updated: string;
}

/** Per vocabulary type, what a run did to its entries. */
export interface TypeCounts {
  added: number;
  updated: number;
  unchanged: number;
  deprecated: number;
}

/** A run row. */
export interface RunRow {
  id: string;
  job_id: string;
  title: string;
  args: Record<string, unknown>;
  status: 'QUEUED' | 'RUNNING' | 'SUCCESS' | 'PARTIAL_SUCCESS' | 'FAILED' | 'CANCELLED';
  message: string | null;
  started_by_id: string | null;
  created: string;
  updated: string;
  started_at: string | null;
  finished_at: string | null;
  worker: string | null;
  attempts: number;
  phase: 'entries' | 'deprecate' | 'done';
  position: number;
  bytes_read: number;
  bytes_total: number | null;
  total_entries: number;
  errored_entries: number;
  counts: Record<string, TypeCounts>;
}

const JOB_COLUMNS = `j.id, j.title, j.description, j.task, j.active, j.default_args, j.created_by, ${ts('j.created')} AS created,
  ${ts('j.updated')} AS updated`;
const RUN_COLUMNS = `r.id, r.job_id, r.title, r.args, r.status, r.message, r.started_by_id, ${ts('r.created')} AS created,
  ${ts('r.updated')} AS updated, ${ts('r.started_at')} AS started_at, ${ts('r.finished_at')} AS finished_at, r.worker, r.attempts,
  r.phase, r.position::float8 AS position, r.bytes_read::float8 AS bytes_read, r.bytes_total::float8 AS bytes_total,
  r.total_entries, r.errored_entries, r.counts`;

/** Insert a job; returns it. */
export async function insertJob(
  db: Db,
  j: {
    id: string;
    title: string;
    description: string | null;
    task: string;
    active: boolean;
    default_args: object;
    created_by: string | null;
  },
): Promise<JobRow> {
  await db('jobs').insert({ ...j, default_args: JSON.stringify(j.default_args) });
  return (await getJob(db, j.id)) as JobRow;
}

/** A job by id (undefined when unknown). */
export async function getJob(db: Db, id: string): Promise<JobRow | undefined> {
  const res = await db.raw(`SELECT ${JOB_COLUMNS} FROM jobs j WHERE j.id = ?`, [id]);
  return res.rows[0] as JobRow | undefined;
}

/** A page of jobs (oldest first) and the total. */
export async function listJobs(db: Db, o: { limit: number; offset: number }): Promise<{ rows: JobRow[]; total: number }> {
  const res = await db.raw(`SELECT ${JOB_COLUMNS} FROM jobs j ORDER BY j.created, j.id LIMIT ? OFFSET ?`, [o.limit, o.offset]);
  const c = await db.raw('SELECT count(*)::int AS n FROM jobs');
  return { rows: res.rows as JobRow[], total: (c.rows[0] as { n: number }).n };
}

/** The last run of each of these jobs, by job id. */
export async function lastRuns(db: Db, jobIds: string[]): Promise<Map<string, RunRow>> {
  if (jobIds.length === 0) return new Map();
  const res = await db.raw(
    `SELECT DISTINCT ON (r.job_id) ${RUN_COLUMNS} FROM job_runs r WHERE r.job_id = ANY(?::uuid[]) ORDER BY r.job_id, r.created DESC, r.id DESC`,
    [pgTextArray(jobIds)],
  );
  return new Map((res.rows as RunRow[]).map((r) => [r.job_id, r]));
}

/** Insert a run, queued, or already claimed by `worker` (a command running it in-process). */
export async function insertRun(
  db: Db,
  r: { id: string; job_id: string; title: string; args: object; started_by_id: string | null; worker?: string },
): Promise<void> {
  await db.raw(
    `INSERT INTO job_runs (id, job_id, title, args, started_by_id, status, worker, heartbeat_at, started_at, attempts)
     VALUES (?, ?, ?, ?::jsonb, ?, ?, ?, CASE WHEN ?::text IS NULL THEN NULL ELSE clock_timestamp() END,
             CASE WHEN ?::text IS NULL THEN NULL ELSE clock_timestamp() END, CASE WHEN ?::text IS NULL THEN 0 ELSE 1 END)`,
    [
      r.id,
      r.job_id,
      r.title,
      JSON.stringify(r.args),
      r.started_by_id,
      r.worker ? 'RUNNING' : 'QUEUED',
      r.worker ?? null,
      r.worker ?? null,
      r.worker ?? null,
      r.worker ?? null,
    ],
  );
}

/** A run of a job (undefined when unknown). */
export async function getRun(db: Db, jobId: string, runId: string): Promise<RunRow | undefined> {
  const res = await db.raw(`SELECT ${RUN_COLUMNS} FROM job_runs r WHERE r.id = ? AND r.job_id = ?`, [runId, jobId]);
  return res.rows[0] as RunRow | undefined;
}

/** A page of a job's runs (newest first) and the total. */
export async function listRuns(db: Db, jobId: string, o: { limit: number; offset: number }): Promise<{ rows: RunRow[]; total: number }> {
  const res = await db.raw(`SELECT ${RUN_COLUMNS} FROM job_runs r WHERE r.job_id = ? ORDER BY r.created DESC, r.id DESC LIMIT ? OFFSET ?`, [
    jobId,
    o.limit,
    o.offset,
  ]);
  const c = await db.raw('SELECT count(*)::int AS n FROM job_runs WHERE job_id = ?', [jobId]);
  return { rows: res.rows as RunRow[], total: (c.rows[0] as { n: number }).n };
}

/**
 * Claim the oldest run that is queued, or running under a lease older than `leaseMs` (its worker
 * died): it becomes `worker`'s. `SKIP LOCKED`: concurrent workers never claim the same run.
 */
export async function claimRun(db: Db, worker: string, leaseMs: number): Promise<RunRow | undefined> {
  const res = await db.raw(
    `WITH c AS (
       SELECT id FROM job_runs
        WHERE status = 'QUEUED' OR (status = 'RUNNING' AND heartbeat_at < clock_timestamp() - make_interval(secs => ?::float8 / 1000))
        ORDER BY created, id
        LIMIT 1
        FOR UPDATE SKIP LOCKED)
     UPDATE job_runs r SET status = 'RUNNING', worker = ?, heartbeat_at = clock_timestamp(), attempts = r.attempts + 1,
            started_at = coalesce(r.started_at, clock_timestamp()), updated = clock_timestamp()
       FROM c WHERE r.id = c.id
     RETURNING r.id, r.job_id`,
    [leaseMs, worker],
  );
  const row = res.rows[0] as { id: string; job_id: string } | undefined;
  return row ? getRun(db, row.job_id, row.id) : undefined;
}

/** Lock the run for this batch if it is still `worker`'s and running; undefined when the lease was lost. */
export async function fenceRun(trx: Knex.Transaction, runId: string, worker: string): Promise<RunRow | undefined> {
  const res = await trx.raw(`SELECT ${RUN_COLUMNS} FROM job_runs r WHERE r.id = ? AND r.worker = ? AND r.status = 'RUNNING' FOR UPDATE`, [
    runId,
    worker,
  ]);
  return res.rows[0] as RunRow | undefined;
}

/** Renew `worker`'s lease on the run; false when it is no longer its. */
export async function heartbeat(db: Db, runId: string, worker: string): Promise<boolean> {
  const n = await db('job_runs')
    .where({ id: runId, worker, status: 'RUNNING' })
    .update({ heartbeat_at: db.raw('clock_timestamp()') });
  return n > 0;
}

/** Record a committed batch: checkpoint, progress and counts (inside the batch's transaction). */
export async function saveProgress(
  trx: Knex.Transaction,
  runId: string,
  p: {
    position: number;
    bytes_read: number;
    bytes_total: number | null;
    total_entries: number;
    errored_entries: number;
    counts: object;
    phase?: RunRow['phase'];
  },
): Promise<void> {
  await trx('job_runs')
    .where({ id: runId })
    .update({
      position: p.position,
      bytes_read: p.bytes_read,
      bytes_total: p.bytes_total,
      total_entries: p.total_entries,
      errored_entries: p.errored_entries,
      counts: JSON.stringify(p.counts),
      ...(p.phase ? { phase: p.phase } : {}),
      heartbeat_at: trx.raw('clock_timestamp()'),
      updated: trx.raw('clock_timestamp()'),
    });
}

/** End the run (`worker`'s only): final status and message; the run's id memory is dropped. */
export async function finishRun(db: Db, runId: string, worker: string, status: RunRow['status'], message: string | null): Promise<boolean> {
  const n = await db('job_runs')
    .where({ id: runId, worker, status: 'RUNNING' })
    .update({
      status,
      message,
      phase: status === 'FAILED' ? db.raw('phase') : 'done',
      finished_at: db.raw('clock_timestamp()'),
      updated: db.raw('clock_timestamp()'),
      worker: null,
    });
  if (n > 0 && status !== 'FAILED') await db('job_run_entries').where({ run_id: runId }).delete();
  return n > 0;
}

/** Give the run back to the queue (a graceful stop): the next worker continues from its checkpoint. */
export async function releaseRun(db: Db, runId: string, worker: string): Promise<void> {
  await db('job_runs')
    .where({ id: runId, worker, status: 'RUNNING' })
    .update({ status: 'QUEUED', worker: null, updated: db.raw('clock_timestamp()') });
}

/** Ids of `type` this run already wrote, with their content hash and position. */
export async function seenEntries(
  db: Db,
  runId: string,
  type: string,
  ids: string[],
): Promise<Map<string, { hash: string; position: number }>> {
  if (ids.length === 0) return new Map();
  const res = await db.raw(
    'SELECT id, content_hash, position::float8 AS position FROM job_run_entries WHERE run_id = ? AND type = ? AND id = ANY(?::text[])',
    [runId, type, pgTextArray(ids)],
  );
  return new Map(
    (res.rows as { id: string; content_hash: string; position: number }[]).map((r) => [
      r.id,
      { hash: r.content_hash, position: r.position },
    ]),
  );
}

/** Remember ids this run wrote (one statement: the rows travel as four arrays). */
export async function insertSeen(
  db: Db,
  rows: { run_id: string; type: string; id: string; content_hash: string; position: number }[],
): Promise<void> {
  const byRun = new Map<string, typeof rows>();
  for (const r of rows) {
    const list = byRun.get(r.run_id);
    if (list) list.push(r);
    else byRun.set(r.run_id, [r]);
  }
  for (const [runId, list] of byRun) {
    await db.raw(
      `INSERT INTO job_run_entries (run_id, type, id, content_hash, position)
       SELECT ?::uuid, t, i, h, p FROM unnest(?::text[], ?::text[], ?::text[], ?::bigint[]) AS r(t, i, h, p)
       ON CONFLICT (run_id, type, id) DO NOTHING`,
      [
        runId,
        pgTextArray(list.map((r) => r.type)),
        pgTextArray(list.map((r) => r.id)),
        pgTextArray(list.map((r) => r.content_hash)),
        `{${list.map((r) => r.position).join(',')}}`,
      ],
    );
  }
}

/**
 * Refresh the planner's statistics of `job_run_entries` (a run adds one row per source element):
 * the deprecation's anti-join over them is planned as a hash join only when the planner knows
 * their number, and as a nested loop over the whole table per entry otherwise (minutes).
 */
export async function analyzeRunEntries(db: Db): Promise<void> {
  await db.raw('ANALYZE job_run_entries');
}

/** Record rejected source elements with their reasons. */
export async function insertErrors(
  db: Db,
  rows: { run_id: string; position: number; entry_id: string | null; reason: string }[],
): Promise<void> {
  for (let i = 0; i < rows.length; i += 1000) {
    await db('job_run_errors')
      .insert(rows.slice(i, i + 1000))
      .onConflict(['run_id', 'position'])
      .ignore();
  }
}

/** The first `limit` rejected elements of a run, in source order. */
export async function listErrors(
  db: Db,
  runId: string,
  limit: number,
): Promise<{ position: number; entry_id: string | null; reason: string }[]> {
  const res = await db.raw(
    'SELECT position::float8 AS position, entry_id, reason FROM job_run_errors WHERE run_id = ? ORDER BY position LIMIT ?',
    [runId, limit],
  );
  return res.rows as { position: number; entry_id: string | null; reason: string }[];
}

/** Content hashes of existing entries of `type` among `ids`. */
export async function existingHashes(db: Db, type: string, ids: string[]): Promise<Map<string, { hash: string; tags: string[] }>> {
  if (ids.length === 0) return new Map();
  const res = await db.raw('SELECT id, content_hash, tags FROM entries WHERE type = ? AND id = ANY(?::text[])', [type, pgTextArray(ids)]);
  return new Map(
    (res.rows as { id: string; content_hash: string; tags: string[] }[]).map((r) => [r.id, { hash: r.content_hash, tags: r.tags }]),
  );
}

/**
 * Up to `limit` entries of `type` from this source (a `scheme` identifier, e.g. ror) whose id the
 * run did not read (no `job_run_entries` row under `seenKey`) and that are not yet tagged `tag`:
 * missing from the dump.
 */
export async function missingEntries(
  db: Db,
  runId: string,
  type: string,
  scheme: string,
  tag: string,
  limit: number,
  seenKey: string = type,
): Promise<EntryRow[]> {
  const res = await db.raw(
    `SELECT ${ENTRY_COLUMNS} FROM entries e
      WHERE e.type = ? AND e.identifiers @> ?::jsonb AND NOT (? = ANY(e.tags))
        AND NOT EXISTS (SELECT 1 FROM job_run_entries s WHERE s.run_id = ? AND s.type = ? AND s.id = e.id)
      ORDER BY e.id LIMIT ?`,
    [type, JSON.stringify([{ scheme }]), tag, runId, seenKey, limit],
  );
  return res.rows as EntryRow[];
}
