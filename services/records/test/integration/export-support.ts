/**
 * Helpers of the export and OAI-PMH integration tests: publish records through the real HTTP
 * routes of the test environment (support.ts).
 */
import { expect } from 'vitest';
import { as, type Env, fullMetadata } from './support.js';

/** Owner of the published records. */
export const OWNER = '701';

/** Create and publish a record; `files` are committed into its bucket first (else metadata-only). */
export async function publish(
  env: Env,
  o: { access?: { record: string; files: string }; files?: string[]; metadata?: Record<string, unknown> } = {},
): Promise<Record<string, any>> {
  const withFiles = (o.files ?? []).length > 0;
  const created = await env.request
    .post('/api/records')
    .set(as(OWNER))
    .send({
      access: o.access ?? { record: 'public', files: 'public' },
      files: { enabled: withFiles },
      metadata: o.metadata ?? fullMetadata(),
    });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as string;
  for (const key of o.files ?? []) env.files.addFile(id, key, { size: 10 });
  const pub = await env.request.post(`/api/records/${id}/draft/actions/publish`).set(as(OWNER));
  expect(pub.status, JSON.stringify(pub.body)).toBe(202);
  return pub.body;
}

/** Make a published record restricted through an edit draft (within the grace period). */
export async function restrictAfterPublication(env: Env, id: string): Promise<void> {
  const draft = await env.request.post(`/api/records/${id}/draft`).set(as(OWNER));
  expect(draft.status).toBe(201);
  const put = await env.request
    .put(`/api/records/${id}/draft`)
    .set(as(OWNER))
    .send({ access: { record: 'restricted', files: 'restricted' }, files: { enabled: false }, metadata: draft.body.metadata });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  const pub = await env.request.post(`/api/records/${id}/draft/actions/publish`).set(as(OWNER));
  expect(pub.status, JSON.stringify(pub.body)).toBe(202);
}
