/**
 * InvenioRDM's multipart transfer through the gateway (black box): init with
 * `transfer: {type: "M", parts, part_size}` answering `links.parts`, parts uploaded in parallel
 * and out of order to those URLs (`PUT …/content/<part>`, our own routes, not presigned URLs),
 * commit assembling the file (md5 of the whole), the published file served; and the errors
 * (part number, part size, missing parts, whole content to a multipart file, permissions).
 */
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { walkthroughMetadata } from '../records/support.js';

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');

function bytes(n: number, seed: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    b[i] = x & 0xff;
  }
  return b;
}

async function newDraft(token: string): Promise<string> {
  const res = await api('/api/records', {
    method: 'POST',
    token,
    body: { access: { record: 'public', files: 'public' }, files: { enabled: true }, metadata: walkthroughMetadata() },
  });
  if (res.status !== 201) throw new Error(`create draft ${res.status}: ${res.text}`);
  return res.body.id;
}

let owner: TestUser;
let other: TestUser;

beforeAll(async () => {
  owner = await createUser({ email: uniqueEmail('mp-owner') });
  other = await createUser({ email: uniqueEmail('mp-other') });
});

describe('multipart transfer', () => {
  const P = 256 * 1024;
  const content = bytes(3 * P + 4321, 11);
  let id: string;

  beforeAll(async () => {
    id = await newDraft(owner.token);
  });

  it('init answers the part links, parts go up in parallel in any order, commit assembles, publish serves it', async () => {
    const init = await api(`/api/records/${id}/draft/files`, {
      method: 'POST',
      token: owner.token,
      body: [{ key: 'big/data.bin', size: content.length, transfer: { type: 'M', parts: 4, part_size: P } }],
    });
    expect(init.status).toBe(201);
    const e = init.body.entries[0];
    const self = `${baseUrl()}/api/records/${id}/draft/files/big/data.bin`;
    expect(e).toMatchObject({
      key: 'big/data.bin',
      status: 'pending',
      size: content.length,
      transfer: { type: 'M', parts: 4, part_size: P },
    });
    expect(e.links.content).toBeNull();
    expect(e.links.parts.map((p: { part: number; url: string }) => [p.part, p.url])).toEqual(
      [1, 2, 3, 4].map((i) => [i, `${self}/content/${i}`]),
    );

    const parts = e.links.parts as { part: number; url: string }[];
    const answers = await Promise.all(
      [...parts]
        .reverse()
        .map((p) =>
          api(p.url, { method: 'PUT', token: owner.token, raw: content.subarray((p.part - 1) * P, Math.min(p.part * P, content.length)) }),
        ),
    );
    for (const a of answers) expect(a.status, a.text).toBe(200);
    // Nothing to download before the commit.
    expect((await api(`/api/records/${id}/draft/files/big/data.bin/content`, { token: owner.token })).status).toBe(404);

    const commit = await api(`/api/records/${id}/draft/files/big/data.bin/commit`, { method: 'POST', token: owner.token });
    expect(commit.status, commit.text).toBe(200);
    expect(commit.body).toMatchObject({
      status: 'completed',
      size: content.length,
      checksum: `md5:${md5(content)}`,
      transfer: { type: 'L' },
    });

    const pub = await api(`/api/records/${id}/draft/actions/publish`, { method: 'POST', token: owner.token });
    expect(pub.status, pub.text).toBe(202);
    const res = await fetch(`${baseUrl()}/api/records/${id}/files/big/data.bin/content`);
    expect(res.status).toBe(200);
    expect(md5(Buffer.from(await res.arrayBuffer()))).toBe(md5(content));
  });
});

describe('multipart transfer errors', () => {
  let id: string;
  const files = () => `/api/records/${id}/draft/files`;

  beforeAll(async () => {
    id = await newDraft(owner.token);
    const init = await api(files(), {
      method: 'POST',
      token: owner.token,
      body: [{ key: 'm.bin', size: 1500, transfer: { type: 'M', parts: 2, part_size: 1000 } }, { key: 'plain.txt' }],
    });
    if (init.status !== 201) throw new Error(`init ${init.status}: ${init.text}`);
  });

  it('init without size or parts, or with a plan that cannot hold the size → 400', async () => {
    const post = (item: Record<string, unknown>) => api(files(), { method: 'POST', token: owner.token, body: [{ key: 'n.bin', ...item }] });
    expect((await post({ transfer: { type: 'M', parts: 2 } })).body).toEqual({
      status: 400,
      message: 'Multipart file transfer requires file size.',
    });
    expect((await post({ size: 5, transfer: { type: 'M' } })).body).toEqual({
      status: 400,
      message: 'Multipart file transfer requires parts.',
    });
    expect((await post({ size: 5, transfer: { type: 'M', parts: 2, part_size: 2 } })).status).toBe(400);
  });

  it('a part number out of range, a part of the wrong size → 400', async () => {
    const high = await api(`${files()}/m.bin/content/3`, { method: 'PUT', token: owner.token, raw: bytes(500, 1) });
    expect(high.body).toEqual({ status: 400, message: 'Part number is higher than total parts sent in multipart initialization.' });
    const size = await api(`${files()}/m.bin/content/1`, { method: 'PUT', token: owner.token, raw: bytes(999, 1) });
    expect(size.body).toEqual({ status: 400, message: 'Size of this part must be equal to part_size sent in multipart initialization.' });
    expect((await api(`${files()}/m.bin/content/2`, { method: 'PUT', token: owner.token, raw: bytes(501, 1) })).status).toBe(400);
  });

  it('commit with missing parts → 400; whole content to a multipart file, a part to a local one → 400', async () => {
    expect((await api(`${files()}/m.bin/content/2`, { method: 'PUT', token: owner.token, raw: bytes(500, 2) })).status).toBe(200);
    const commit = await api(`${files()}/m.bin/commit`, { method: 'POST', token: owner.token });
    expect(commit.body).toEqual({ status: 400, message: 'File with key m.bin is missing parts: 1.' });
    const whole = await api(`${files()}/m.bin/content`, { method: 'PUT', token: owner.token, raw: bytes(1500, 2) });
    expect(whole.body).toEqual({ status: 400, message: 'Can not set content for multipart file, use the parts instead.' });
    const notM = await api(`${files()}/plain.txt/content/1`, { method: 'PUT', token: owner.token, raw: 'x' });
    expect(notM.body).toEqual({ status: 400, message: 'Transfer type "L" does not support multipart uploads.' });
  });

  it('parts need the same permission as any upload: anonymous and other users are refused', async () => {
    expect((await api(`${files()}/m.bin/content/1`, { method: 'PUT', raw: bytes(1000, 3) })).status).toBe(403);
    expect((await api(`${files()}/m.bin/content/1`, { method: 'PUT', token: other.token, raw: bytes(1000, 3) })).status).toBe(403);
  });

  it('deleting the entry before its commit drops the upload (the key can be initialised again)', async () => {
    expect((await api(`${files()}/m.bin`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    const again = await api(files(), {
      method: 'POST',
      token: owner.token,
      body: [{ key: 'm.bin', size: 10, transfer: { type: 'M', parts: 1 } }],
    });
    expect(again.status).toBe(201);
    expect((await api(`${files()}/m.bin/content/1`, { method: 'PUT', token: owner.token, raw: bytes(10, 4) })).status).toBe(200);
    const commit = await api(`${files()}/m.bin/commit`, { method: 'POST', token: owner.token });
    expect(commit.body).toMatchObject({ status: 'completed', checksum: `md5:${md5(bytes(10, 4))}` });
  });
});
