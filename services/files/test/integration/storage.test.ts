/**
 * The storage port contract, run against both engines on real servers: the local filesystem and
 * S3 (MinIO from scripts/infra/minio.sh). Without an S3 server the S3 half is skipped locally and
 * fails under CI.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ObjectNotFoundError, SizeLimitExceededError } from '../../src/storage/index.js';
import { CI, S3_MISSING, type TestEngine, makeEngine, s3Available, describeEngines } from './support.js';

const S3_UP = await s3Available();
if (!S3_UP && !CI) console.warn(`[files storage tests] skipping S3: ${S3_MISSING}`);

/** Deterministic pseudo-random bytes, generated as a stream (never a whole buffer). */
function generated(total: number, chunk = 256 * 1024, opts: { failAfter?: number } = {}): Readable {
  let sent = 0;
  let seed = 12345;
  return new Readable({
    read() {
      if (opts.failAfter !== undefined && sent >= opts.failAfter) {
        this.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
        return;
      }
      if (sent >= total) {
        this.push(null);
        return;
      }
      const n = Math.min(chunk, total - sent);
      const b = Buffer.allocUnsafe(n);
      for (let i = 0; i < n; i++) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        b[i] = seed & 0xff;
      }
      sent += n;
      this.push(b);
    },
  });
}

async function md5Of(stream: Readable): Promise<{ md5: string; size: number }> {
  const h = createHash('md5');
  let size = 0;
  for await (const c of stream) {
    h.update(c as Buffer);
    size += (c as Buffer).length;
  }
  return { md5: h.digest('hex'), size };
}

describeEngines(S3_UP, 'ObjectStorage (%s engine)', (kind) => {
  let engine: TestEngine;

  beforeAll(async () => {
    if (kind === 's3' && !S3_UP) throw new Error(S3_MISSING);
    engine = await makeEngine(kind);
  });
  afterAll(async () => {
    await engine?.dispose();
  });

  it('should store a stream, computing its md5 and size on the way', async () => {
    const total = 12 * 1024 * 1024 + 17; // several S3 parts (5 MiB in tests) plus a short last one
    const expected = await md5Of(generated(total));
    const sut = engine.storage;
    const put = await sut.put('objects/aa/bb/one', generated(total), { size: total });
    expect(put).toEqual(expected);
    expect(await sut.stat('objects/aa/bb/one')).toEqual({ size: total });
    expect(await md5Of(await sut.get('objects/aa/bb/one'))).toEqual(expected);
  });

  it('should store a stream of unknown length and an empty one', async () => {
    const sut = engine.storage;
    const put = await sut.put('objects/unknown', generated(7 * 1024 * 1024 + 3));
    expect(put.size).toBe(7 * 1024 * 1024 + 3);
    const empty = await sut.put('objects/empty', Readable.from([]));
    expect(empty).toEqual({ size: 0, md5: 'd41d8cd98f00b204e9800998ecf8427e' });
    expect(await sut.stat('objects/empty')).toEqual({ size: 0 });
  });

  it('should read inclusive byte ranges', async () => {
    const sut = engine.storage;
    await sut.put('objects/range', Readable.from([Buffer.from('0123456789abcdef')]));
    const read = async (start: number, end: number) => {
      const parts: Buffer[] = [];
      for await (const c of await sut.get('objects/range', { start, end })) parts.push(c as Buffer);
      return Buffer.concat(parts).toString();
    };
    expect(await read(0, 3)).toBe('0123');
    expect(await read(10, 15)).toBe('abcdef');
    expect(await read(5, 5)).toBe('5');
  });

  it('should copy without touching the source and delete idempotently', async () => {
    const sut = engine.storage;
    await sut.put('uploads/src', Readable.from([Buffer.from('hello')]));
    await sut.copy('uploads/src', 'objects/cc/dd/dst');
    expect(await sut.stat('uploads/src')).toEqual({ size: 5 });
    expect((await md5Of(await sut.get('objects/cc/dd/dst'))).size).toBe(5);
    await sut.delete('uploads/src');
    await sut.delete('uploads/src');
    expect(await sut.stat('uploads/src')).toBeNull();
    expect(await sut.stat('objects/cc/dd/dst')).toEqual({ size: 5 });
  });

  it('should report missing objects', async () => {
    const sut = engine.storage;
    expect(await sut.stat('objects/missing')).toBeNull();
    await expect(sut.get('objects/missing')).rejects.toBeInstanceOf(ObjectNotFoundError);
    await expect(sut.copy('objects/missing', 'objects/other')).rejects.toBeInstanceOf(ObjectNotFoundError);
  });

  it('should refuse keys that are not service-made ids', async () => {
    const sut = engine.storage;
    await expect(sut.put('../escape', Readable.from([]))).rejects.toThrow(/Invalid storage key/);
    await expect(sut.get('objects/../../etc/passwd')).rejects.toThrow(/Invalid storage key/);
    await expect(sut.stat('Objects/Upper')).rejects.toThrow(/Invalid storage key/);
  });

  it('should leave nothing behind when the limit is exceeded mid-stream', async () => {
    const before = await engine.leftovers();
    const sut = engine.storage;
    await expect(sut.put('uploads/too-big', generated(11 * 1024 * 1024), { limit: 10 * 1024 * 1024 })).rejects.toBeInstanceOf(
      SizeLimitExceededError,
    );
    expect(await sut.stat('uploads/too-big')).toBeNull();
    expect(await engine.leftovers()).toEqual(before);
  });

  it('should leave nothing behind when the source fails mid-stream (client abort)', async () => {
    const before = await engine.leftovers();
    const sut = engine.storage;
    await expect(sut.put('uploads/aborted', generated(20 * 1024 * 1024, 256 * 1024, { failAfter: 8 * 1024 * 1024 }))).rejects.toThrow(
      'aborted',
    );
    expect(await sut.stat('uploads/aborted')).toBeNull();
    expect(await engine.leftovers()).toEqual(before);
  });

  it('should list keys under a prefix', async () => {
    const sut = engine.storage;
    await sut.put('listing/a/one', Readable.from([Buffer.from('1')]));
    await sut.put('listing/b', Readable.from([Buffer.from('2')]));
    const keys: string[] = [];
    for await (const k of sut.list('listing/')) keys.push(k);
    expect(keys.sort()).toEqual(['listing/a/one', 'listing/b']);
    await sut.check();
  });
});
