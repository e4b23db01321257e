/**
 * The jobs worker of the vocabularies service: a loop claiming queued runs (or runs whose worker
 * died: lease expired) with `FOR UPDATE SKIP LOCKED` and executing them one at a time
 * (`executeRun`). Every replica runs one; two never execute the same run.
 *
 * When to use: main.ts starts it after listen (`workers`); `wake()` makes it look at once (a run was
 * just queued in this process). Stopping waits for the current batch, then gives the run back to the
 * queue at its checkpoint.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Worker } from '@rdm/platform';
import { claimRun } from '../repo/jobs.repo.js';
import { executeRun, type RunnerDeps } from './import-runner.js';

/** Options of the worker. */
export interface JobsWorkerOptions extends RunnerDeps {
  /** Pause between looks at the queue when it is empty. */
  pollMs: number;
}

/** The worker, with `wake()` and `runOnce()` (tests). */
export interface JobsWorker extends Worker {
  wake(): void;
  /** Claim and execute one run; false when none was waiting. */
  runOnce(): Promise<boolean>;
  readonly id: string;
}

/** Build the jobs worker. */
export function jobsWorker(o: JobsWorkerOptions): JobsWorker {
  const id = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const abort = new AbortController();
  let wakeUp: (() => void) | undefined;
  let loop: Promise<void> | undefined;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        wakeUp = undefined;
        resolve();
      }
      wakeUp = done;
      abort.signal.addEventListener('abort', done, { once: true });
    });
  const runOnce = async () => {
    const run = await claimRun(o.db, id, o.leaseMs);
    if (!run) return false;
    o.logger.info({ run_id: run.id, job_id: run.job_id, attempt: run.attempts, position: run.position }, 'job run claimed');
    const outcome = await executeRun(o, run, id, { signal: abort.signal });
    o.logger.info({ run_id: run.id, outcome }, 'job run ended');
    return true;
  };
  return {
    name: 'vocabularies-jobs',
    id,
    wake: () => wakeUp?.(),
    runOnce,
    start() {
      loop = (async () => {
        while (!abort.signal.aborted) {
          let worked = false;
          try {
            worked = await runOnce();
          } catch (err) {
            o.logger.error({ err }, 'jobs worker: claim or run failed; retrying');
          }
          if (!worked && !abort.signal.aborted) await sleep(o.pollMs);
        }
      })();
    },
    async stop() {
      abort.abort();
      await loop;
    },
  };
}
