/**
 * Shared set-up of the integration tests: a fresh migrated schema (real PostgreSQL) with the
 * shipped fixtures loaded, and the app built over it.
 */
import { createLogger, type Identity } from '@rdm/platform';
import { testDb, type TestDb, testIdentityHeader } from '@rdm/platform/testing';
import { createApp } from '../../src/app.js';
import { type FixtureSet, readFixtures } from '../../src/domain/fixtures.js';
import { loadVocabularies } from '../../src/domain/loader.service.js';

/** Base URL the links are built from. */
export const BASE = 'http://127.0.0.1:5000';
/** Identity secret of the tests. */
export const SECRET = 'integration-test-secret-1234';

let fixtures: FixtureSet | undefined;
/** The shipped fixtures (parsed once per test file). */
export function fixtureSet(): FixtureSet {
  fixtures ??= readFixtures();
  return fixtures;
}

/** A migrated schema with every fixture loaded. */
export async function loadedDb(): Promise<TestDb> {
  const t = await testDb('vocabularies', { pool: { max: 5 } });
  await loadVocabularies(t.db, fixtureSet().vocabularies);
  return t;
}

/** The app over `t`. */
export function appOver(t: TestDb, cacheSize = 100) {
  return createApp({
    config: { PUBLIC_BASE_URL: BASE, IDENTITY_SECRET: SECRET, ENTRY_CACHE_SIZE: cacheSize, ENTRY_CACHE_TTL_MS: 60_000 },
    logger: createLogger('vocabularies-test', process.env.TEST_LOG_LEVEL ?? 'silent'),
    db: t.db,
  });
}

/** The identity header of `identity`. */
export function as(identity: Identity): Record<string, string> {
  return testIdentityHeader(identity, SECRET);
}
