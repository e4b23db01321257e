import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapStack, originalPosition } from './stack-map.js';

// esbuild as the build uses it (shipped with tsx; scripts/build.ts resolves it the same way).
type Build = (o: Record<string, unknown>) => Promise<unknown>;
const root = new URL('../../../package.json', import.meta.url).pathname;
const { build } = createRequire(createRequire(root).resolve('tsx'))('esbuild') as { build: Build };

const dir = mkdtempSync(join(tmpdir(), 'stack-map-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe(mapStack.name, () => {
  let stack = '';
  beforeAll(async () => {
    writeFileSync(
      join(dir, 'deep.ts'),
      [
        '// line 1',
        'export function deep(n: number): never {',
        '  if (n > 0) return deep(n - 1);',
        "  throw new Error('boom');",
        '}',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'main.ts'),
      [
        "import { deep } from './deep.js';",
        '',
        'try {',
        '  deep(2);',
        '} catch (e) {',
        '  process.stdout.write((e as Error).stack ?? "");',
        '}',
        '',
      ].join('\n'),
    );
    await build({
      entryPoints: [join(dir, 'main.ts')],
      outfile: join(dir, 'out', 'main.js'),
      bundle: true,
      format: 'esm',
      platform: 'node',
      sourcemap: true,
      sourcesContent: false,
      logLevel: 'silent',
    });
    writeFileSync(join(dir, 'out', 'package.json'), '{"type":"module"}');
    // Run without --enable-source-maps: the stack names the bundle.
    stack = execFileSync(process.execPath, [join(dir, 'out', 'main.js')], { encoding: 'utf8' });
  });

  it('should turn bundled frames into the TypeScript lines they came from', () => {
    expect(stack).toContain('out/main.js:');
    const mapped = mapStack(stack);
    expect(mapped).toContain(`${join(dir, 'deep.ts')}:4:`); // the throw
    expect(mapped).toContain(`${join(dir, 'deep.ts')}:3:`); // the recursion
    expect(mapped).toContain(`${join(dir, 'main.ts')}:4:`); // the call
    expect(mapped).not.toContain('out/main.js:');
    expect(mapped.split('\n')[0]).toBe('Error: boom');
  });

  it('should leave frames without a map beside them as they are', () => {
    const s = 'Error: x\n    at f (/nowhere/a.js:1:2)\n    at node:internal/process/task_queues:95:5';
    expect(mapStack(s)).toBe(s);
  });
});

describe(originalPosition.name, () => {
  it('should agree with node:module SourceMap on every segment of a real bundle', async () => {
    const out = join(dir, 'platform.js');
    await build({
      entryPoints: [new URL('./errors.ts', import.meta.url).pathname],
      outfile: out,
      bundle: true,
      format: 'esm',
      platform: 'node',
      sourcemap: true,
      sourcesContent: false,
      logLevel: 'silent',
    });
    const payload = JSON.parse(readFileSync(`${out}.map`, 'utf8'));
    const reference = new SourceMap(payload);
    const lines = readFileSync(out, 'utf8').split('\n');
    let compared = 0;
    for (let l = 0; l < lines.length; l += 3) {
      for (let c = 0; c < lines[l].length; c += 7) {
        const want = reference.findEntry(l, c) as {
          generatedLine?: number;
          originalSource?: string;
          originalLine?: number;
          originalColumn?: number;
        };
        const got = originalPosition(payload.mappings, l + 1, c + 1);
        if (want.generatedLine !== l || want.originalSource === undefined) {
          // Node falls back to an earlier line (or to no source); this fold answers for this line only.
          if (want.generatedLine === l) expect(got).toBeNull();
          continue;
        }
        expect(got).not.toBeNull();
        expect(payload.sources[got!.sourceIndex]).toBe(
          want.originalSource.split('/').slice(-1)[0] === payload.sources[got!.sourceIndex].split('/').slice(-1)[0]
            ? payload.sources[got!.sourceIndex]
            : want.originalSource,
        );
        expect([got!.line - 1, got!.column - 1]).toEqual([want.originalLine, want.originalColumn]);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(200);
  });

  it('should answer null for a line past the end and for garbage', () => {
    expect(originalPosition('AAAA;AACA', 9, 1)).toBeNull();
    expect(originalPosition('!!!!', 1, 1)).toBeNull();
  });
});
