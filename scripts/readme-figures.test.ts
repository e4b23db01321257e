/**
 * Every row of the README's benchmark table names the bench that printed its figures
 * (`scripts/bench/<name>.bench.ts`, which must exist) and the run each figure comes from, as
 * `[run <date> <commit>]` (issue 19 item 13): a figure nobody can trace to a run does not belong
 * there.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '..');
const README = readFileSync(join(REPO, 'README.md'), 'utf8');
const section = README.slice(README.indexOf('## Benchmarks'), README.indexOf('\n## ', README.indexOf('## Benchmarks') + 1));
const rows = section.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| benchmark') && !l.startsWith('|---'));
const RUN = /\[run (\d{4}-\d{2}-\d{2}) ([0-9a-f]{7,40})\]/g;

describe('README benchmark figures', () => {
  it('has rows to check', () => {
    expect(rows.length).toBeGreaterThan(20);
  });

  it('every row names an existing bench and at least one run; every run tag is well formed', () => {
    const bad: string[] = [];
    for (const row of rows) {
      const [what, result] = row.split(' | ').map((c) => c.replace(/^\| /, ''));
      const where = what.slice(0, 60);
      const benches = [...row.matchAll(/`([a-z-]+\.bench\.ts)`/g)].map((m) => m[1]);
      if (benches.length === 0) bad.push(`${where}: no bench named`);
      for (const b of benches) if (!existsSync(join(REPO, 'scripts', 'bench', b))) bad.push(`${where}: ${b} does not exist`);
      if ([...(result ?? '').matchAll(RUN)].length === 0) bad.push(`${where}: no [run <date> <commit>]`);
      const loose = (result ?? '').match(/\[run [^\]]*\]/g) ?? [];
      for (const tag of loose) if (!/^\[run \d{4}-\d{2}-\d{2} [0-9a-f]{7,40}\]$/.test(tag)) bad.push(`${where}: malformed ${tag}`);
    }
    expect(bad).toEqual([]);
  });
});
