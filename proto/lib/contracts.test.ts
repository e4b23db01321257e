import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateContracts, PROTO_DIR } from '../tools/gen-contracts.js';
import { DEFAULT_PORTS, eventSubjects, RPC_SUBJECTS, SERVICE_REGISTRY, STREAMS, type StreamName } from '../index.js';

describe('generated contracts (proto/gen)', () => {
  it('should be current with proto/ (run `pnpm gen:contracts` and commit the result when this fails)', async () => {
    const root = join(PROTO_DIR, '..');
    for (const [path, code] of await generateContracts()) {
      expect(readFileSync(join(root, path), 'utf8'), `${path} is stale: run pnpm gen:contracts`).toBe(code);
    }
  }, 60_000);

  it('should name every RPC of proto/README.md and the registry ports', () => {
    const readme = readFileSync(join(PROTO_DIR, 'README.md'), 'utf8');
    const documented = [...readme.matchAll(/^\| `(rdm\.[a-z]+\.rpc\.[a-z-]+)` \|/gm)].map((m) => m[1]).sort();
    const generated = Object.values(RPC_SUBJECTS)
      .flatMap((s) => Object.values(s) as string[])
      .sort();
    expect(generated).toEqual(documented);
    expect(DEFAULT_PORTS).toMatchObject({ gateway: 5000, records: 5103, files: 5104 });
  });
});

describe('contracts at the call sites', () => {
  const root = join(PROTO_DIR, '..');
  const sources = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
    );
  const services = readdirSync(join(root, 'services')).filter((s) => s !== '_platform');

  it('should leave services no untyped way to serve or call an RPC or to write an event', () => {
    const offenders = services
      .flatMap((svc) => sources(join(root, 'services', svc, 'src')))
      .filter((file) => /\b(serveRpc|callRpc|writeOutboxUnchecked)\s*[<(]/.test(readFileSync(file, 'utf8')))
      .map((file) => file.slice(root.length + 1));
    expect(offenders, 'use serveContract / callContract / writeOutbox (typed by proto/)').toEqual([]);
  });

  it('should keep every event of a service in its stream, and no RPC subject in any stream', () => {
    for (const entry of SERVICE_REGISTRY) {
      const stream = STREAMS[entry.stream as StreamName];
      for (const subject of eventSubjects(entry.name)) {
        expect(
          stream.subjects.some((p) => matches(p, subject)),
          `${subject} in ${entry.stream}`,
        ).toBe(true);
      }
    }
    for (const subject of eventSubjects('stats')) expect(STREAMS.STATS.subjects.some((p) => matches(p, subject))).toBe(true);
    for (const [name, stream] of Object.entries(STREAMS)) {
      for (const p of stream.subjects) {
        expect(p, name).not.toMatch(/\.rpc(\.|$)|\.>$(?<=^rdm\.[a-z]+\.>)/);
        expect(
          eventSubjects().some((s) => matches(p, s)),
          `${p} of ${name} captures no event`,
        ).toBe(true);
      }
    }
  });
});

/** NATS subject matching (`*` one token, `>` the rest). */
function matches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}
