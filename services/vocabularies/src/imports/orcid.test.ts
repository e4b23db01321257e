import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orcidId, orcidMembers, orcidRecordXml, persons, writeOrcidTarGz } from '../../test/support/orcid-dump.js';
import { normalizeEntry } from '../domain/entry.js';
import { orcidChecksumOk } from './orcid.js';
import { openSource, SourceError, type SourceElement } from './source.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orcid-source-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const readAll = async (path: string) => {
  const source = await openSource('orcid', path);
  const out: SourceElement[] = [];
  try {
    for await (const el of source.elements()) out.push(el);
  } finally {
    source.close();
  }
  return { out, source };
};

describe('ORCID public data file', () => {
  it('should know valid ORCID iDs by their check character', () => {
    expect(orcidChecksumOk('0000-0002-1825-0097')).toBe(true);
    expect(orcidChecksumOk('0000-0002-1694-233X')).toBe(true);
    expect(orcidChecksumOk('0000-0002-1825-0098')).toBe(false);
    expect(orcidChecksumOk(orcidId(42))).toBe(true);
  });

  it('should stream the record summaries of a tar.gz into names entries as invenio-vocabularies maps them', async () => {
    const people = persons(3, 0, (i) =>
      i === 1
        ? {
            employments: [
              { name: 'CERN', ror: '01ggx4157' },
              { name: 'CERN', ror: '01ggx4157' },
              { name: 'Old place', ror: '05h7xva58', ended: true },
              { name: 'Gridded', grid: 'grid.9132.9' },
              { name: 'Café & Co', ringgold: '12345' },
            ],
          }
        : {},
    );
    const path = join(dir, 'summaries.tar.gz');
    await writeOrcidTarGz(path, [{ name: 'ORCID_2024_10_summaries/README.txt', body: 'not a record' }, ...orcidMembers(people)]);
    const { out, source } = await readAll(path);
    expect(out.map((e) => e.position)).toEqual([0, 1, 2]);
    expect(out.every((e) => e.error === undefined)).toBe(true);
    expect(out[0].value).toEqual({
      id: people[0].orcid,
      given_name: 'Given0',
      family_name: 'Müller-Ñúñez0',
      identifiers: [{ scheme: 'orcid', identifier: people[0].orcid }],
      affiliations: [{ id: '01ggx4157' }],
      props: { other_names: 'G. F. 0' },
      name: undefined,
    } as unknown as Record<string, unknown>);
    expect((out[1].value as { affiliations: unknown[] }).affiliations).toEqual([
      { id: '01ggx4157' },
      { grid: 'grid.9132.9', name: 'Gridded' },
      { name: 'Café & Co' },
    ]);
    const doc = normalizeEntry('names', out[0].value);
    expect(doc.name).toBe('Müller-Ñúñez0, Given0');
    expect(source.bytesRead).toBe(source.bytesTotal);
  });

  it('should reject a malformed member, one without an iD, a name or a family name, and read on', async () => {
    const ok = persons(2);
    const path = join(dir, 'bad.tar.gz');
    await writeOrcidTarGz(path, [
      orcidMembers([ok[0]])[0],
      { name: 's/001/broken.xml', body: orcidRecordXml(ok[1]).replace('</person:person>', '') },
      { name: 's/002/noname.xml', body: orcidRecordXml({ orcid: orcidId(7), noName: true }) },
      { name: 's/003/nofamily.xml', body: orcidRecordXml({ orcid: orcidId(8), given: 'Only' }) },
      { name: 's/004/badid.xml', body: orcidRecordXml({ orcid: '0000-0002-1825-0098', family: 'X' }) },
      orcidMembers([ok[1]])[0],
    ]);
    const { out } = await readAll(path);
    expect(out).toHaveLength(6);
    expect((out[0].value as { id: string }).id).toBe(ok[0].orcid);
    expect(out[1].error).toMatch(/^s\/001\/broken\.xml: Malformed XML/);
    expect(out[2].error).toMatch(/Name not found/);
    expect(out[3].error).toMatch(/Family name not found/);
    expect(out[4].error).toMatch(/Not an ORCID iD/);
    expect((out[5].value as { id: string }).id).toBe(ok[1].orcid);
  });

  it('should fail on a truncated archive after the members it could read', async () => {
    const path = join(dir, 'trunc.tar.gz');
    await writeOrcidTarGz(path, orcidMembers(persons(200)));
    const bytes = await readFile(path);
    await writeFile(path, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const out: SourceElement[] = [];
    const source = await openSource('orcid', path);
    const err = await (async () => {
      try {
        for await (const el of source.elements()) out.push(el);
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err).toBeInstanceOf(SourceError);
    expect(err?.message).toMatch(/trunc\.tar\.gz cannot be read \(corrupt or truncated gzip\?\)/);
    expect(out.length).toBeGreaterThan(0);
    expect(out.length).toBeLessThan(200);
  });
});
