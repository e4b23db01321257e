/**
 * Property-based API fuzzing from `/api/openapi.json` (schemathesis, e2e/fuzz/schemathesis.ts):
 * every operation gets generated valid and invalid requests, and each answer must be no 5xx, have
 * a documented status code and content type, and a body that matches its documented schema.
 *
 * Two runs, each with a fixed seed and a bounded number of examples per operation:
 * - as an administrator, with generated ids (mostly unknown: the 404/400 paths of every service);
 * - as an ordinary user, with the path ids pinned to real fixtures it owns (a published record
 *   with a file and its edit draft, a community, a request), so the deeper code runs too.
 *
 * `make fuzz` runs this spec with FUZZ_MAX_EXAMPLES (default here 5), FUZZ_PHASES
 * (`examples,fuzzing`), FUZZ_SEED (20261123) and FUZZ_MAX_TIME (seconds, unset) raised;
 * FUZZ_EXCLUDE / FUZZ_INCLUDE (path regexes) leave operations out or focus on some.
 * Reports: .data/fuzz/<run>/ (console.txt, JUnit, NDJSON of every request).
 * When python3/pip cannot install schemathesis, the spec fails under CI and is skipped elsewhere.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureFuzzVenv, type FixtureBinding, type FuzzResult, runFuzz } from '../../fuzz/schemathesis.js';
import { api, baseUrl } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { makeCommunity } from '../communities/support.js';
import { publishedRecord } from '../records/support.js';

const CI = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const MAX_EXAMPLES = Number(process.env.FUZZ_MAX_EXAMPLES ?? 5);
const PHASES = process.env.FUZZ_PHASES ?? 'examples,fuzzing';
const MAX_TIME = process.env.FUZZ_MAX_TIME ? Number(process.env.FUZZ_MAX_TIME) : undefined;
const RUN_TIMEOUT_MS = ((MAX_TIME ?? 0) + 900) * 1000;
/**
 * Operations left out (schemathesis --exclude-path-regex; none by default). The media-files
 * operations were left out while records granted no media buckets (every call a 501); they are
 * fuzzed since issue 19, item 9.
 */
const EXCLUDE = process.env.FUZZ_EXCLUDE ?? '';
/** Only these operations (--include-path-regex), for a focused run, e.g. FUZZ_INCLUDE=media-files. */
const INCLUDE = process.env.FUZZ_INCLUDE ?? '';
/** A whole run covers more than 100 operations; a focused one at least one. */
const MIN_OPERATIONS = INCLUDE ? 0 : 100;

/** A readable assertion message: each failing operation with schemathesis' report (curl included). */
function describeFailures(r: FuzzResult): string {
  const each = r.failures.map((f) => `### ${f.operation}\n${f.report.slice(0, 3000)}`);
  return `${r.failures.length} failing operation(s) of ${r.operations} (reports in ${r.reportDir}):\n\n${each.join('\n\n')}\n\n${r.summary}`;
}

describe('GET /api/openapi.json fuzzed (schemathesis)', () => {
  let skipReason: string | null = null;
  let admin: TestUser;
  let user: TestUser;
  const fixtures = { record: '', community: '', request: '' };

  beforeAll(async () => {
    skipReason = await ensureFuzzVenv();
    if (skipReason) {
      if (CI) throw new Error(skipReason);
      return;
    }
    admin = await createUser({ email: uniqueEmail('fuzz-admin'), admin: true });
    user = await createUser({ email: uniqueEmail('fuzz-user') });
    const rec = await publishedRecord(user.token);
    fixtures.record = rec.id;
    const edit = await api(`/api/records/${rec.id}/draft`, { method: 'POST', token: user.token });
    if (edit.status !== 201) throw new Error(`edit draft ${edit.status}: ${edit.text}`);
    const community = await makeCommunity(admin.token, 'Fuzzed community');
    fixtures.community = community.id;
    // A membership request of the user's (open community): a request the user may read and act on.
    const mr = await api(`/api/communities/${community.id}/membership-requests`, {
      method: 'POST',
      token: user.token,
      body: { message: 'Please let me in.' },
    });
    if (mr.status < 300) fixtures.request = mr.body?.id ?? '';
  }, 600_000);

  it(
    'should answer every generated request of an administrator with a documented status, type and body, never a 5xx',
    async (ctx) => {
      if (skipReason) return ctx.skip();
      const r = await runFuzz({
        baseUrl: baseUrl(),
        label: 'admin-generated-ids',
        token: admin.token,
        seed: SEED,
        maxExamples: MAX_EXAMPLES,
        phases: PHASES,
        maxTimeSeconds: MAX_TIME,
        excludePathRegex: EXCLUDE || undefined,
        includePathRegex: INCLUDE || undefined,
      });
      expect(r.operations).toBeGreaterThan(MIN_OPERATIONS);
      expect(r.failures, describeFailures(r)).toEqual([]);
      expect(r.exitCode, r.summary).toBe(0);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    "should answer every generated request of an ordinary user on the user's own fixtures likewise",
    async (ctx) => {
      if (skipReason) return ctx.skip();
      const bindings: FixtureBinding[] = [
        { pathRegex: '^/api/records/\\{id\\}', parameters: { 'path.id': fixtures.record, 'path.key': 'data.txt' } },
        { pathRegex: '^/api/communities/\\{id\\}', parameters: { 'path.id': fixtures.community } },
      ];
      if (fixtures.request) bindings.push({ pathRegex: '^/api/requests/\\{id\\}', parameters: { 'path.id': fixtures.request } });
      const r = await runFuzz({
        baseUrl: baseUrl(),
        label: 'user-fixtures',
        token: user.token,
        seed: SEED + 1,
        maxExamples: MAX_EXAMPLES,
        phases: PHASES,
        maxTimeSeconds: MAX_TIME,
        excludePathRegex: EXCLUDE || undefined,
        includePathRegex: INCLUDE || undefined,
        fixtures: bindings,
      });
      expect(r.operations).toBeGreaterThan(MIN_OPERATIONS);
      expect(r.failures, describeFailures(r)).toEqual([]);
      expect(r.exitCode, r.summary).toBe(0);
    },
    RUN_TIMEOUT_MS,
  );
});
