/**
 * A citation worker thread: compiles and keeps citeproc engines (csl-engine.ts) and renders the
 * items the pool (citation-pool.ts) sends, one at a time, off the service's event loop.
 *
 * When to use: never directly; citation-pool.ts starts it with `new Worker(new URL('./citation-worker.ts', import.meta.url))`
 * (scripts/build.ts makes every such file an entry point of the production bundle).
 * Messages in: `{id, item, style, locale}` (render) or `{id, style, locale}` without item (compile
 * only); out: `{id, text}` or `{id, error}`.
 */
import { parentPort } from 'node:worker_threads';
import { compileEngine, renderCitation } from './csl-engine.js';

/** One job sent by the pool. */
export interface CitationJobMessage {
  id: number;
  style: string;
  locale: string;
  /** The capped CSL JSON item; absent: compile the engine only (warm-up). */
  item?: Record<string, unknown>;
}

/** The worker's answer to one job. */
export type CitationReplyMessage = { id: number; text: string } | { id: number; error: string };

parentPort?.on('message', (m: CitationJobMessage) => {
  let reply: CitationReplyMessage;
  try {
    if (m.item) reply = { id: m.id, text: renderCitation(m.item, m.style, m.locale) };
    else {
      compileEngine(m.style, m.locale);
      reply = { id: m.id, text: '' };
    }
  } catch (err) {
    reply = { id: m.id, error: err instanceof Error ? err.message : String(err) };
  }
  parentPort?.postMessage(reply);
});
