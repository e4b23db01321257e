import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizations, writeRorZip } from '../../test/support/ror-dump.js';
import { openSource, pickRorMember, SourceError, type SourceElement } from './source.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ror-source-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const readAllOf = async (path: string) => {
  const source = await openSource('ror-v2', path);
  const out: SourceElement[] = [];
  try {
    for await (const el of source.elements()) out.push(el);
  } finally {
    source.close();
  }
  return { out, source };
};
const failure = async (path: string): Promise<Error> => {
  try {
    await readAllOf(path);
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
};

describe(openSource.name, () => {
  it('should stream the elements of the schema v2 member of ROR release zip, with positions and byte progress', async () => {
    const { out, source } = await readAllOf(new URL('../../test/fixtures/ror/ror-v2-small.zip', import.meta.url).pathname);
    expect(out).toHaveLength(40);
    expect(out.map((e) => e.position)).toEqual([...Array(40).keys()]);
    expect((out[0].value as { id: string }).id).toMatch(/^https:\/\/ror\.org\/0/);
    expect(source.bytesTotal).toBeGreaterThan(40_000);
    expect(source.bytesRead).toBe(source.bytesTotal);
  });

  it('should fail with a clear error for a truncated zip, a file that is not a zip and a missing file', async () => {
    const path = join(dir, 'truncated.zip');
    await writeRorZip(path, organizations(50));
    const size = (await readFile(path)).length;
    await truncate(path, Math.floor(size / 2));
    const err = await failure(path);
    expect(err).toBeInstanceOf(SourceError);
    expect(err.message).toMatch(/not a readable zip file \(truncated or corrupt\?\)/);
    const text = join(dir, 'text.zip');
    await writeFile(text, 'just text');
    expect((await failure(text)).message).toMatch(/not a readable zip file/);
    expect((await failure(join(dir, 'absent.zip'))).message).toMatch(/Cannot read the source file/);
  });

  it('should fail when the zip holds no schema v2 JSON, or its JSON is broken or not an array', async () => {
    const noMember = join(dir, 'nomember.zip');
    await writeRorZip(noMember, [], { member: 'README.txt', only: true });
    expect((await failure(noMember)).message).toMatch(/holds no ROR schema v2 JSON file/);
    const broken = join(dir, 'broken.zip');
    await writeRorZip(broken, [], { rawJson: '[{"id": "https://ror.org/01ggx4157"}, {"id": ' });
    const err = await failure(broken);
    expect(err).toBeInstanceOf(SourceError);
    expect(err.message).toMatch(/is not a readable JSON array/);
    const object = join(dir, 'object.zip');
    await writeRorZip(object, [], { rawJson: '{"items": []}' });
    expect((await failure(object)).message).toMatch(/is not a readable JSON array/);
  });

  it('should read a single JSON member of any name', async () => {
    const single = join(dir, 'single.zip');
    await writeRorZip(single, organizations(3), { member: 'ror.json', only: true });
    expect((await readAllOf(single)).out).toHaveLength(3);
  });
});

describe(pickRorMember.name, () => {
  it('should prefer the schema v2 JSON over the v1 JSON and the CSVs', () => {
    expect(pickRorMember(['v1.json', 'v1.csv', 'v1_schema_v2.csv', 'v1_schema_v2.json'])).toBe('v1_schema_v2.json');
    expect(pickRorMember(['a.json', 'b.json'])).toBeUndefined();
  });
});
