import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CitationPool } from '../../src/export/citation-pool.js';
import { publish } from './export-support.js';
import { type Env, startEnv } from './support.js';

// Compiling a style takes seconds on a loaded machine: generous bounds, no timing asserted.
const SLOW = 180_000;

describe(CitationPool.name, () => {
  let env: Env;
  let pool: CitationPool;
  let record: Record<string, any>;

  beforeAll(async () => {
    pool = new CitationPool({ workers: 1, queueMax: 1, timeoutMs: SLOW });
    env = await startEnv({ citations: pool });
    record = await publish(env);
  });
  afterAll(async () => {
    await env?.close();
    await pool?.close();
  });

  const cite = (style: string, locale: string) =>
    env.request.get(`/api/records/${record.id}?style=${style}&locale=${locale}`).set('Accept', 'text/x-bibliography');

  it('should answer record reads while an uncached style compiles', { timeout: SLOW }, async () => {
    let citedAt = 0;
    let seq = 0;
    // An uncached (style, locale) pair: its engine is compiled now, in the worker.
    const citation = cite('chicago-notes-bibliography', 'sv-SE').then((res) => {
      citedAt = ++seq;
      return res;
    });
    while (pool.load.running === 0) await new Promise((r) => setTimeout(r, 5));
    const reads: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await env.request.get(`/api/records/${record.id}`);
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(record.id);
      reads.push(++seq);
    }
    // Every read answered before the compilation ended (on the service's thread they would wait for it).
    expect(citedAt).toBe(0);
    const res = await citation;
    expect(res.status).toBe(200);
    expect(res.text).toContain('A Romans story');
    expect(reads).toEqual([1, 2, 3]);
    expect(citedAt).toBe(4);
  });

  it('should answer 503 with Retry-After when every worker is busy and the queue is full', { timeout: SLOW }, async () => {
    const running = cite('ieee', 'de-DE');
    const queued = cite('nature', 'fr-FR');
    const [a, b] = [running.then((r) => r), queued.then((r) => r)];
    while (pool.load.running + pool.load.queued < 2) await new Promise((r) => setTimeout(r, 5));
    const refused = await cite('apa', 'it-IT');
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.body).toEqual({ status: 503, message: 'Too many citations are being rendered. Try again later.' });
    expect((await a).status).toBe(200);
    expect((await b).status).toBe(200);
    // Once the pool has room again, the same request is answered.
    const later = await cite('apa', 'it-IT');
    expect(later.status).toBe(200);
    expect(later.text).toContain('A Romans story');
  });
});
