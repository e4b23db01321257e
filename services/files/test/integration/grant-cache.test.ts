/**
 * Records' draft grants reused for writes to registered entries (domain/grant-cache.ts, issue 14):
 * the real app over PostgreSQL, local storage and the records stub on NATS, counting what the
 * stub is asked.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, identityHeader, makeEngine } from './support.js';
import { listenBehindFront } from '@rdm/platform/testing';
import { SECRET } from './support.js';

const OWNER = 'user-owner';

describe('files with remembered draft grants (FILES_GRANT_CACHE_MS)', () => {
  let h: Harness;
  let server: Server;
  let base: string;

  const call = async (method: string, path: string, init: { json?: unknown; raw?: Buffer } = {}) => {
    const headers: Record<string, string> = identityHeader(OWNER);
    let body: Buffer | string | undefined;
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers['content-type'] = 'application/json';
    } else if (init.raw) {
      body = init.raw;
      headers['content-type'] = 'application/octet-stream';
    }
    const res = await fetch(`${base}${path}`, { method, headers, body });
    return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
  };
  const draftUpdates = (rec: string) => h.records.calls.filter((c) => c.record_id === rec && c.scope === 'draft' && c.action === 'update');

  beforeAll(async () => {
    // Why a TTL of a minute: the test must never see a grant expire on its own (no timing in tests).
    h = await createHarness(await makeEngine('local'), {}, { grantCacheMs: 60_000 });
    server = listenBehindFront(h.app.callback(), SECRET);
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server?.close();
    await h?.close();
    await h?.engine.dispose();
  });

  it("should ask records once for a deposit's init, upload and commit", async () => {
    const rec = 'grant-00001';
    h.records.add(rec, { owner: OWNER });
    const draft = `/api/records/${rec}/draft/files`;
    expect((await call('POST', draft, { json: [{ key: 'a.csv' }] })).status).toBe(201);
    expect((await call('PUT', `${draft}/a.csv/content`, { raw: Buffer.from('x,y\n') })).status).toBe(200);
    const committed = await call('POST', `${draft}/a.csv/commit`);
    expect(committed.status).toBe(200);
    expect(committed.body).toMatchObject({ key: 'a.csv', status: 'completed', size: 4 });
    expect(draftUpdates(rec)).toHaveLength(1);
  });

  it('should refuse new registrations at once after a withdrawn permission, and writes once the grant is forgotten', async () => {
    const rec = 'grant-00002';
    const stub = h.records.add(rec, { owner: OWNER });
    const draft = `/api/records/${rec}/draft/files`;
    expect((await call('POST', draft, { json: [{ key: 'a.csv' }] })).status).toBe(201);
    stub.owner = 'someone-else';
    // Registering asks records every time.
    expect((await call('POST', draft, { json: [{ key: 'b.csv' }] })).status).toBe(403);
    // A write to the entry registered under the grant reuses it (the documented window).
    expect((await call('PUT', `${draft}/a.csv/content`, { raw: Buffer.from('1') })).status).toBe(200);
    // Publication or deletion of the draft forgets it (the consumers call this): records decides again.
    h.service.forgetGrants(rec);
    expect((await call('POST', `${draft}/a.csv/commit`)).status).toBe(403);
    expect(draftUpdates(rec)).toHaveLength(3);
  });

  it('should never reuse a grant for reads and listings', async () => {
    const rec = 'grant-00003';
    h.records.add(rec, { owner: OWNER });
    const draft = `/api/records/${rec}/draft/files`;
    expect((await call('POST', draft, { json: [{ key: 'a.csv' }] })).status).toBe(201);
    const before = h.records.calls.filter((c) => c.record_id === rec).length;
    expect((await call('GET', draft)).status).toBe(200);
    expect((await call('GET', `${draft}/a.csv`)).status).toBe(200);
    expect(h.records.calls.filter((c) => c.record_id === rec).length).toBe(before + 2);
  });
});
