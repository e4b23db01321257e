/**
 * Inputs at the edges of the records service's limits (issue 10, defects 3 and 9): a record too
 * large to index fully, a JSON `null` body, a `q` over the length limit.
 */
import { MAX_QUERY_LENGTH } from '@rdm/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, type Env, fullMetadata, startEnv } from './support.js';

const OWNER = '401';

describe('records limits', () => {
  let env: Env;

  beforeAll(async () => {
    env = await startEnv();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('should save (201, not 500) a valid record of about 1.9 MB of distinct words, searchable by its first words', async () => {
    // ~240,000 distinct words in 20 descriptions of under 100,000 characters each: far over
    // PostgreSQL's 1 MiB tsvector limit once indexed, under the 2 MB body limit.
    const words: string[] = [];
    const descriptions: string[] = [];
    let chunk: string[] = [];
    let chunkLength = 0;
    for (let i = 0; descriptions.length < 20; i++) {
      const w = `w${i.toString(36)}z`;
      words.push(w);
      chunk.push(w);
      chunkLength += w.length + 1;
      if (chunkLength > 95_000) {
        descriptions.push(chunk.join(' '));
        chunk = [];
        chunkLength = 0;
      }
    }
    const metadata = {
      ...fullMetadata(),
      title: 'Boundless vocabulary',
      additional_descriptions: descriptions.map((description) => ({ description, type: { id: 'methods' }, lang: { id: 'eng' } })),
    };
    const res = await env.request.post('/api/records').set(as(OWNER)).send({ metadata });
    expect(res.status).toBe(201);
    expect(res.body.errors).toBeUndefined();
    expect(JSON.stringify(res.body.metadata.additional_descriptions).length).toBeGreaterThan(1_900_000);
    const found = await env.request.get('/api/user/records').query({ q: words[1] }).set(as(OWNER));
    expect(found.status).toBe(200);
    expect(found.body.hits.hits.map((h: { id: string }) => h.id)).toEqual([res.body.id]);
    // An update of the same draft is bounded the same way.
    const put = await env.request
      .put(`/api/records/${res.body.id}/draft`)
      .set(as(OWNER))
      .send({ metadata: { ...metadata, version: 'v2' } });
    expect(put.status).toBe(200);
  });

  it('should refuse a JSON null body with 400, creating nothing', async () => {
    const res = await env.request.post('/api/records').set(as(OWNER)).set('content-type', 'application/json').send('null');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      status: 400,
      message: 'A validation error occurred.',
      errors: [{ field: '_schema', messages: ['Invalid input type.'] }],
    });
  });

  it('should say the limit when q is too long', async () => {
    const res = await env.request.get('/api/records').query({ q: 'a'.repeat(MAX_QUERY_LENGTH + 1) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      status: 400,
      message: `Invalid query string syntax: query is longer than ${MAX_QUERY_LENGTH} characters.`,
      errors: [{ field: 'q', messages: [`Query is longer than ${MAX_QUERY_LENGTH} characters.`] }],
    });
  });
});
