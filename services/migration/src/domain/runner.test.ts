import { describe, expect, it } from 'vitest';
import { FakeSource, FakeTarget, MapCheckpoints, version } from '../../test/support/fakes.js';
import { summary } from './report.js';
import { runMigration } from './runner.js';

function corpus() {
  const source = new FakeSource();
  source.add(
    [version('par01-00000', 'rec01-00001', 1), version('par01-00000', 'rec01-00002', 2), version('par01-00000', 'rec01-00003', 3)],
    {
      'rec01-00001': { 'a.txt': 'version one' },
      'rec01-00002': { 'a.txt': 'version two', 'data/b.csv': 'x,y\n1,2\n' },
      'rec01-00003': { 'a.txt': 'version three' },
    },
  );
  source.add([version('par02-00000', 'rec02-00001', 1)], { 'rec02-00001': { 'z.bin': 'zzz' } });
  source.add([version('par03-00000', 'rec03-00001', 1, { files: { enabled: false } })]);
  return source;
}

describe(runMigration.name, () => {
  it('should copy every parent with its versions in order and every file, checksums verified', async () => {
    const source = corpus();
    const target = new FakeTarget();
    const lines: string[] = [];
    const report = await runMigration(source, target, new MapCheckpoints(), { runId: 'r1', progress: (l) => lines.push(l) });
    expect(report.records).toEqual({ copied: 3, unchanged: 0, skipped: 0, failed: 0 });
    expect(report.files).toMatchObject({ copied: 5, checksum_mismatches: 0 });
    expect(report.files.bytes).toBe(['version one', 'version two', 'x,y\n1,2\n', 'version three', 'zzz'].join('').length);
    const first = target.requests[0]!;
    expect(first.parent).toMatchObject({ id: 'par01-00000', owner_id: '3', created: '2021-01-01T00:00:00.000000+00:00' });
    expect(first.versions.map((v) => [v.id, v.index])).toEqual([
      ['rec01-00001', 1],
      ['rec01-00002', 2],
      ['rec01-00003', 3],
    ]);
    expect((first.versions[0]!.record as any).metadata.resource_types).toEqual([{ id: 'dataset' }]);
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatch(/^\[records\] 3\/5 copied=3 .* files=5 bytes=\d+ rate=[\d.]+\/s eta=\d+s$/);
  });

  it('should change nothing on a second run and send no file again', async () => {
    const source = corpus();
    const target = new FakeTarget();
    const cps = new MapCheckpoints();
    await runMigration(source, target, cps, { runId: 'r1' });
    source.calls = [];
    const again = await runMigration(source, target, cps, { runId: 'r2' });
    expect(again.records).toEqual({ copied: 0, unchanged: 3, skipped: 0, failed: 0 });
    expect(again.files.copied).toBe(0);
    expect(source.calls.filter((c) => c.startsWith('content'))).toEqual([]);
  });

  it('should resume a killed run where it stopped', async () => {
    const source = corpus();
    const target = new FakeTarget();
    const cps = new MapCheckpoints();
    const killed = await runMigration(source, target, cps, { runId: 'r1', limit: 1 });
    expect(killed.records.copied).toBe(1);
    const resumed = await runMigration(source, target, cps, { runId: 'r2' });
    expect(resumed.records).toMatchObject({ copied: 2, unchanged: 1 });
    expect(target.records.size).toBe(5);
  });

  it('should copy only the new version of a changed parent', async () => {
    const source = corpus();
    const target = new FakeTarget();
    const cps = new MapCheckpoints();
    await runMigration(source, target, cps, { runId: 'r1' });
    const vs = source.parents.get('par01-00000')!;
    source.add([...vs, version('par01-00000', 'rec01-00004', 4)], { 'rec01-00004': { 'a.txt': 'four' } });
    source.calls = [];
    const delta = await runMigration(source, target, cps, { runId: 'r2', since: '2024-01-01' });
    expect(source.calls[0]).toBe('list 2024-01-01');
    expect(delta.records).toMatchObject({ copied: 1, unchanged: 0 });
    expect(delta.copied).toEqual([{ id: 'par01-00000', versions: ['rec01-00004'], status: 'updated' }]);
    expect(source.calls.filter((c) => c.startsWith('content'))).toEqual(['content rec01-00004/a.txt']);
  });

  it('should report a record the target rejects and a checksum mismatch, and go on', async () => {
    const source = corpus();
    const target = new FakeTarget();
    target.reject.add('par01-00000');
    source.corrupt.add('rec02-00001/z.bin');
    const cps = new MapCheckpoints();
    const report = await runMigration(source, target, cps, { runId: 'r1' });
    expect(report.records).toEqual({ copied: 1, unchanged: 0, skipped: 0, failed: 2 });
    expect(report.files.checksum_mismatches).toBe(1);
    expect(report.failures).toEqual([
      { id: 'par01-00000', reason: '400 A validation error occurred. (versions.0.metadata.publication_date: Invalid date.)' },
      { id: 'par02-00000', reason: expect.stringMatching(/^Checksum mismatch for z\.bin/) },
    ]);
    expect(await cps.get('record', 'par01-00000')).toMatchObject({ status: 'failed' });
    expect(summary(report)).toContain('checksum mismatches = 1');
    // Fixed at the source side: the next run copies them.
    target.reject.clear();
    source.corrupt.clear();
    expect((await runMigration(source, target, cps, { runId: 'r2' })).records).toMatchObject({ copied: 2, unchanged: 1, failed: 0 });
  });

  it('should read and validate everything on a dry run and write nothing', async () => {
    const source = corpus();
    const target = new FakeTarget();
    const cps = new MapCheckpoints();
    const report = await runMigration(source, target, cps, { runId: 'r1', dryRun: true });
    expect(report.dry_run).toBe(true);
    expect(report.records.copied).toBe(3);
    expect(target.files.size).toBe(0);
    expect(target.records.size).toBe(0);
    expect(target.requests.every((r) => r.dry_run === true)).toBe(true);
    expect(cps.rows.size).toBe(0);
  });
});
