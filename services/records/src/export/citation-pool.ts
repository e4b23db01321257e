/**
 * Formatted citations rendered off the event loop: a small pool of worker threads
 * (citation-worker.ts), each keeping its compiled citeproc engines per (style, locale), fed from
 * one bounded queue. Compiling a CSL style is seconds of synchronous CPU (4–8 s on a loaded
 * machine), and 8 styles × 13 locales are each compiled anew on first use: on the service's own
 * thread every such request would stop all others (record reads, publishes) meanwhile.
 *
 * Rules: at most `workers` renderings run at once, one per thread; at most `queueMax` more wait,
 * and one beyond answers 503 with `Retry-After` at once; a rendering not done within `timeoutMs`
 * (waiting included) answers 503 with `Retry-After` (its worker finishes the compilation, which stays
 * cached; a worker still busy at 3 × `timeoutMs` is ended and started again on the next job). A job goes
 * preferably to an idle worker that has its engine compiled. The last `cacheMax` renderings are
 * kept here, on the service's thread, keyed by bibliography.ts's digest of (style, locale, item):
 * a landing page's citation box read again costs no thread hop. `warm()` compiles the default
 * style's engine in the first worker at start.
 *
 * When to use: the one way the service renders `text/x-bibliography` (export.routes.ts, through
 * the `citation` format of formats.ts); one pool per process (`sharedCitationPool`), tests build
 * their own.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { DEFAULT_CITATION_STYLE } from '@rdm/contracts';
import { Errors, type MsgLogger } from '@rdm/platform';
import { citationJob } from './bibliography.js';
import type { CitationJobMessage, CitationReplyMessage } from './citation-worker.js';

/** Bounds of a pool. */
export interface CitationPoolOptions {
  /** Worker threads (renderings at once). */
  workers: number;
  /** Renderings waiting beyond those running; one more → 503. */
  queueMax: number;
  /** Longest wait for one rendering (queue included) → 503. */
  timeoutMs: number;
  /** Renderings kept on the service's thread (LRU); default 2000. */
  cacheMax?: number;
  logger?: MsgLogger;
  /** The worker's module (tests); default citation-worker.ts next to this file. */
  workerUrl?: URL;
}

/** Seconds a refused client is told to wait. */
export const CITATION_RETRY_AFTER_SECONDS = 5;

interface Job {
  msg: CitationJobMessage;
  resolve(text: string): void;
  reject(err: Error): void;
  timer?: NodeJS.Timeout;
  settled: boolean;
}

interface Slot {
  worker?: Worker;
  job?: Job;
  compiled: Set<string>;
  kill?: NodeJS.Timeout;
}

const DEFAULT_WORKER = new URL('./citation-worker.ts', import.meta.url);

/**
 * A worker running `url`. A TypeScript module (tsx, vitest) is loaded through tsx's loader,
 * registered in the worker itself (tsx's `--import` hook of the main thread does not reach
 * workers); the production bundle names the built `.js` file.
 */
function startWorker(url: URL): Worker {
  if (!url.pathname.endsWith('.ts')) return new Worker(url);
  // Why through package.json: require.resolve answers the CommonJS build of `tsx/esm/api`, whose register() fails when imported.
  const api = new URL('dist/esm/api/index.mjs', pathToFileURL(createRequire(import.meta.url).resolve('tsx/package.json'))).href;
  const boot = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(boot, { eval: true });
}

/** The bounded pool of citation workers. */
export class CitationPool {
  private readonly slots: Slot[];
  private readonly queue: Job[] = [];
  private readonly cache = new Map<string, string>();
  private readonly cacheMax: number;
  private readonly workerUrl: URL;
  private serial = 0;
  private closed = false;

  constructor(private readonly o: CitationPoolOptions) {
    this.slots = Array.from({ length: Math.max(1, o.workers) }, () => ({ compiled: new Set<string>() }));
    this.cacheMax = o.cacheMax ?? 2000;
    this.workerUrl = o.workerUrl ?? DEFAULT_WORKER;
  }

  /** The formatted citation of one CSL JSON item in `style` (and `locale`, else the style's default). 503 when the pool is full or too slow. */
  async format(item: Record<string, any>, style: string, locale?: string): Promise<string> {
    const job = citationJob(item, style, locale);
    const hit = this.cache.get(job.key);
    if (hit !== undefined) {
      this.cache.delete(job.key);
      this.cache.set(job.key, hit);
      return hit;
    }
    const text = await this.submit({ id: 0, item: job.item, style: job.style, locale: job.locale });
    this.cache.set(job.key, text);
    if (this.cache.size > this.cacheMax) this.cache.delete(this.cache.keys().next().value as string);
    return text;
  }

  /** Compile `style`'s engine (in its default locale) in a worker now; failures are logged. */
  warm(style = DEFAULT_CITATION_STYLE): void {
    const { locale } = citationJob({}, style);
    this.submit({ id: 0, style, locale }).catch((err) => this.o.logger?.warn({ err }, 'citation engine warm-up failed'));
  }

  /** Renderings running and waiting. */
  get load(): { running: number; queued: number } {
    return { running: this.slots.filter((s) => s.job).length, queued: this.queue.length };
  }

  /** End every worker; waiting and running renderings answer 503. */
  async close(): Promise<void> {
    this.closed = true;
    for (const j of this.queue.splice(0)) this.settle(j, new Error('closed'));
    await Promise.all(
      this.slots.map(async (s) => {
        if (s.job) this.settle(s.job, new Error('closed'));
        const w = s.worker;
        s.worker = undefined;
        s.job = undefined;
        clearTimeout(s.kill);
        await w?.terminate();
      }),
    );
  }

  private submit(msg: CitationJobMessage): Promise<string> {
    if (this.closed) return Promise.reject(this.unavailable());
    const busy = this.slots.every((s) => s.job);
    if (busy && this.queue.length >= this.o.queueMax) return Promise.reject(this.unavailable());
    return new Promise<string>((resolve, reject) => {
      const job: Job = { msg: { ...msg, id: ++this.serial }, resolve, reject, settled: false };
      job.timer = setTimeout(() => {
        const i = this.queue.indexOf(job);
        if (i >= 0) this.queue.splice(i, 1);
        this.settle(job, this.unavailable());
      }, this.o.timeoutMs);
      job.timer.unref();
      this.queue.push(job);
      this.dispatch();
    });
  }

  private unavailable(): Error {
    return Errors.serviceUnavailable('Too many citations are being rendered. Try again later.', CITATION_RETRY_AFTER_SECONDS);
  }

  private settle(job: Job, result: string | Error): void {
    if (job.settled) return;
    job.settled = true;
    clearTimeout(job.timer);
    if (typeof result === 'string') job.resolve(result);
    else job.reject(result);
  }

  private dispatch(): void {
    while (this.queue.length) {
      const idle = this.slots.filter((s) => !s.job);
      if (!idle.length) return;
      const job = this.queue.shift() as Job;
      if (job.settled) continue;
      const key = `${job.msg.style}|${job.msg.locale}`;
      const slot = idle.find((s) => s.compiled.has(key)) ?? idle.find((s) => s.worker) ?? idle[0];
      this.run(slot, job, key);
    }
  }

  private run(slot: Slot, job: Job, key: string): void {
    slot.worker ??= this.start(slot);
    slot.job = job;
    slot.kill = setTimeout(() => {
      this.o.logger?.warn({ style: job.msg.style, locale: job.msg.locale }, 'citation worker stuck: ended');
      this.restart(slot);
    }, this.o.timeoutMs * 3);
    slot.kill.unref();
    slot.worker.postMessage(job.msg);
    // Why here and not on the reply: a second job of the same pair should wait for this worker, not compile elsewhere.
    slot.compiled.add(key);
  }

  private start(slot: Slot): Worker {
    const worker = startWorker(this.workerUrl);
    worker.unref();
    worker.on('message', (m: CitationReplyMessage) => {
      const job = slot.job;
      if (!job || job.msg.id !== m.id) return;
      clearTimeout(slot.kill);
      slot.job = undefined;
      this.settle(job, 'text' in m ? m.text : new Error(`citation rendering failed: ${m.error}`));
      this.dispatch();
    });
    const lost = (err: unknown) => {
      if (slot.worker !== worker) return;
      this.o.logger?.warn({ err }, 'citation worker ended');
      this.restart(slot);
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`exit ${code}`)));
    return worker;
  }

  private restart(slot: Slot): void {
    const { worker, job } = slot;
    slot.worker = undefined;
    slot.job = undefined;
    slot.compiled.clear();
    clearTimeout(slot.kill);
    if (job) this.settle(job, this.unavailable());
    void worker?.terminate();
    if (!this.closed) this.dispatch();
  }
}

let shared: CitationPool | undefined;

/** The process's pool (created on the first call with these bounds; later calls get the same one). */
export function sharedCitationPool(o: CitationPoolOptions): CitationPool {
  shared ??= new CitationPool(o);
  return shared;
}
