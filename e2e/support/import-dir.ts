/**
 * Where e2e specs write vocabulary dumps for import jobs: the vocabularies service's default
 * VOCABULARIES_IMPORT_DIR on this machine (processes runtime), bind-mounted read-only as its import
 * folder on containers (containers.ts).
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The import folder the e2e stack's vocabularies service reads API-named sources from. */
export const E2E_VOCABULARY_IMPORT_DIR = join(tmpdir(), 'rdm-vocabulary-imports');
