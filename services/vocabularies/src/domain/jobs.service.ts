/**
 * Jobs and runs of the vocabularies service (InvenioRDM's `/api/jobs` shape, invenio-jobs): an
 * administrator creates an import job (`task: vocabularies.import`, `run_args: {type, format,
 * source}`), starts runs of it and reads their status, progress, counts and rejected entries. The
 * runs execute in the background (the jobs worker). Administrators only: everyone else, anonymous
 * callers included, gets 403 (invenio-jobs' `Administration()` policy; InvenioRDM never sends 401).
 *
 * When to use: the jobs routes make one call here per request. A source named through the API must
 * be a file inside the configured import directory (`VOCABULARIES_IMPORT_DIR`); the `import` command
 * may name any file of the machine it runs on.
 */
import { randomUUID } from 'node:crypto';
import {
  administrator,
  AppError,
  definePolicy,
  Errors,
  type FieldError,
  type Identity,
  type Knex,
  listEnvelope,
  parseListArgs,
} from '@rdm/platform';
import { IMPORT_TASK, ImportArgsError, parseImportArgs, sourceInside } from '../jobs/import-runner.js';
import {
  getJob,
  getRun,
  insertJob,
  insertRun,
  type JobRow,
  lastRuns,
  listErrors,
  listJobs,
  listRuns,
  type RunRow,
} from '../repo/jobs.repo.js';

/** Actions on jobs and runs. */
export type JobAction = 'search' | 'create' | 'read';
/** invenio-jobs' policies: administration only. */
export const jobsPolicy = definePolicy<JobAction>({ search: [administrator], create: [administrator], read: [administrator] });

/** Tasks a job may run. */
export const TASKS = {
  [IMPORT_TASK]: {
    description:
      "Import a vocabulary from a published dump (ROR schema v2 zip → affiliations and funders; ORCID's public data file → names; OpenAIRE/CORDIS projects → awards; SKOS/MeSH → subjects; InvenioRDM's JSON lines, CSV, YAML → any vocabulary).",
    parameters: {
      type: 'affiliations | funders | awards | names | subjects',
      format: 'ror-v2 | jsonl | csv | yaml | orcid | openaire | cordis | skos | mesh',
      source: 'file name inside the import directory',
    },
  },
} as const;
/** Rejected entries shown with a run. */
const ERRORS_SHOWN = 100;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What the service needs. */
export interface JobsDeps {
  db: Knex;
  baseUrl: string;
  /** Directory the sources named through the API must be in. */
  importDir: string;
  /** Called after a run was queued (the in-process worker looks at once). */
  wake?: () => void;
}

/** The run as the API shows it. */
export function serializeRun(r: RunRow, baseUrl: string, errors?: { position: number; entry_id: string | null; reason: string }[]) {
  const percent =
    r.status === 'SUCCESS' || r.status === 'PARTIAL_SUCCESS'
      ? 100
      : r.bytes_total
        ? Math.min(99, Math.floor((100 * r.bytes_read) / r.bytes_total))
        : 0;
  return {
    id: r.id,
    job_id: r.job_id,
    title: r.title,
    args: r.args,
    status: r.status,
    message: r.message,
    created: r.created,
    updated: r.updated,
    started_at: r.started_at,
    finished_at: r.finished_at,
    started_by_id: r.started_by_id,
    total_entries: r.total_entries,
    errored_entries: r.errored_entries,
    progress: { phase: r.phase, percent, bytes_read: r.bytes_read, bytes_total: r.bytes_total, position: r.position },
    counts: r.counts,
    ...(errors ? { errors } : {}),
    links: { self: `${baseUrl}/api/jobs/${r.job_id}/runs/${r.id}` },
  };
}

/** The job as the API shows it. */
export function serializeJob(j: JobRow, baseUrl: string, last?: RunRow) {
  return {
    id: j.id,
    title: j.title,
    description: j.description,
    task: j.task,
    active: j.active,
    default_args: j.default_args,
    created: j.created,
    updated: j.updated,
    last_run: last ? serializeRun(last, baseUrl) : null,
    links: { self: `${baseUrl}/api/jobs/${j.id}`, runs: `${baseUrl}/api/jobs/${j.id}/runs` },
  };
}

/** The jobs API over the database. */
export class JobsService {
  constructor(private readonly d: JobsDeps) {}

  /** Import arguments checked, the source inside the import directory (400 otherwise). */
  private importArgs(raw: unknown, field: string) {
    try {
      const args = parseImportArgs(raw);
      sourceInside(this.d.importDir, args.source);
      return args;
    } catch (err) {
      if (err instanceof ImportArgsError) throw Errors.validation([{ field: err.field.replace(/^args/, field), messages: [err.message] }]);
      throw err;
    }
  }

  private async job(id: string): Promise<JobRow> {
    const job = UUID.test(id) ? await getJob(this.d.db, id) : undefined;
    if (!job) throw Errors.notFound('Job not found.');
    return job;
  }

  /** `GET /api/jobs`. */
  async list(identity: Identity, query: Record<string, unknown>, path: string) {
    jobsPolicy.require('search', identity);
    const args = parseListArgs(query as never, { sorts: ['created'], defaultSort: 'created', maxSize: 100 });
    const { rows, total } = await listJobs(this.d.db, { limit: args.size, offset: args.from });
    const last = await lastRuns(
      this.d.db,
      rows.map((r) => r.id),
    );
    return listEnvelope({
      hits: rows.map((j) => serializeJob(j, this.d.baseUrl, last.get(j.id))),
      total,
      args,
      baseUrl: this.d.baseUrl,
      path,
    });
  }

  /** `POST /api/jobs`: `{title, description?, task, active?, run_args}`. */
  async create(identity: Identity, body: unknown) {
    jobsPolicy.require('create', identity);
    if (!isObj(body)) throw Errors.validation([{ field: '_schema', messages: ['Invalid input type.'] }]);
    const errors: FieldError[] = [];
    const title = typeof body.title === 'string' ? body.title.trim() : '';
    if (!title || title.length > 250) errors.push({ field: 'title', messages: ['Field cannot be blank or longer than 250 characters.'] });
    if (body.description !== undefined && body.description !== null && typeof body.description !== 'string') {
      errors.push({ field: 'description', messages: ['Not a valid string.'] });
    }
    if (body.task !== IMPORT_TASK) errors.push({ field: 'task', messages: [`Must be one of: ${Object.keys(TASKS).join(', ')}.`] });
    if (body.active !== undefined && typeof body.active !== 'boolean') errors.push({ field: 'active', messages: ['Not a valid boolean.'] });
    let args: object = {};
    try {
      args = this.importArgs(body.run_args ?? body.args, 'run_args');
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      errors.push(...(err.fieldErrors ?? []));
    }
    if (errors.length) throw Errors.validation(errors);
    const job = await insertJob(this.d.db, {
      id: randomUUID(),
      title,
      description: typeof body.description === 'string' ? body.description : null,
      task: IMPORT_TASK,
      active: body.active !== false,
      default_args: args,
      created_by: identity.sub,
    });
    return serializeJob(job, this.d.baseUrl);
  }

  /** `GET /api/jobs/<id>`. */
  async read(identity: Identity, id: string) {
    jobsPolicy.require('read', identity);
    const job = await this.job(id);
    return serializeJob(job, this.d.baseUrl, (await lastRuns(this.d.db, [job.id])).get(job.id));
  }

  /** `GET /api/jobs/<id>/runs`. */
  async listRuns(identity: Identity, jobId: string, query: Record<string, unknown>, path: string) {
    jobsPolicy.require('search', identity);
    const job = await this.job(jobId);
    const args = parseListArgs(query as never, { sorts: ['created'], defaultSort: 'created', maxSize: 100 });
    const { rows, total } = await listRuns(this.d.db, job.id, { limit: args.size, offset: args.from });
    return listEnvelope({ hits: rows.map((r) => serializeRun(r, this.d.baseUrl)), total, args, baseUrl: this.d.baseUrl, path });
  }

  /** `POST /api/jobs/<id>/runs`: queue a run (`{title?, args?}`; the job's arguments by default). */
  async startRun(identity: Identity, jobId: string, body: unknown) {
    jobsPolicy.require('create', identity);
    const job = await this.job(jobId);
    const b = body === undefined || body === null ? {} : body;
    if (!isObj(b)) throw Errors.validation([{ field: '_schema', messages: ['Invalid input type.'] }]);
    if (!job.active) throw Errors.badRequest('The job is not active.');
    if (b.title !== undefined && (typeof b.title !== 'string' || !b.title.trim() || b.title.length > 250)) {
      throw Errors.validation([{ field: 'title', messages: ['Field cannot be blank or longer than 250 characters.'] }]);
    }
    const args = this.importArgs(b.args ?? job.default_args, 'args');
    const id = randomUUID();
    await insertRun(this.d.db, {
      id,
      job_id: job.id,
      title: typeof b.title === 'string' ? b.title.trim() : 'Manual run',
      args,
      started_by_id: identity.sub,
    });
    this.d.wake?.();
    return serializeRun((await getRun(this.d.db, job.id, id)) as RunRow, this.d.baseUrl, []);
  }

  /** `GET /api/jobs/<id>/runs/<run_id>`: status, progress, counts and the first rejected entries. */
  async readRun(identity: Identity, jobId: string, runId: string) {
    jobsPolicy.require('read', identity);
    const job = await this.job(jobId);
    const run = UUID.test(runId) ? await getRun(this.d.db, job.id, runId) : undefined;
    if (!run) throw Errors.notFound('Run not found.');
    return serializeRun(run, this.d.baseUrl, await listErrors(this.d.db, run.id, ERRORS_SHOWN));
  }
}
