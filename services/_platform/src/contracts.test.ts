import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateContracts, PROTO_DIR } from '../../../proto/tools/gen-contracts.js';
import { DEFAULT_PORTS, RPC_SUBJECTS } from './contracts.js';

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
