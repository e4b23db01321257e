import { createHash } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { HashingLimiter, SizeLimitExceededError } from './hashing.js';

const sink = () =>
  new Writable({
    write(_c, _e, cb) {
      cb();
    },
  });

function* chunks(total: number, size: number, seed = 7): Generator<Buffer> {
  let left = total;
  let i = seed;
  while (left > 0) {
    const n = Math.min(size, left);
    yield Buffer.alloc(n, i++ % 251);
    left -= n;
  }
}

describe(HashingLimiter.name, () => {
  it('should compute the md5 and size of what streams through', async () => {
    const sut = new HashingLimiter();
    const expected = createHash('md5');
    for (const c of chunks(3_000_000, 65_536)) expected.update(c);
    await pipeline(Readable.from(chunks(3_000_000, 65_536)), sut, sink());
    expect(sut.size).toBe(3_000_000);
    expect(sut.md5).toBe(expected.digest('hex'));
  });

  it('should give the md5 of the empty file for no bytes', async () => {
    const sut = new HashingLimiter();
    await pipeline(Readable.from([]), sut, sink());
    expect(sut.md5).toBe('d41d8cd98f00b204e9800998ecf8427e');
  });

  it('should accept exactly the limit and fail one byte over it', async () => {
    const ok = new HashingLimiter(100);
    await pipeline(Readable.from([Buffer.alloc(60), Buffer.alloc(40)]), ok, sink());
    expect(ok.size).toBe(100);
    const sut = new HashingLimiter(100);
    await expect(pipeline(Readable.from([Buffer.alloc(60), Buffer.alloc(41)]), sut, sink())).rejects.toBeInstanceOf(SizeLimitExceededError);
  });

  it('should refuse to give an md5 before the end', () => {
    expect(() => new HashingLimiter().md5).toThrow(/before the stream ended/);
  });
});
