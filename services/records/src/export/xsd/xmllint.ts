/**
 * XML Schema validation with a real validator: Debian's `xmllint` (libxml2) against the official
 * XSDs kept beside this file (SOURCE.md), offline (`--nonet`, remote imports mapped by catalog.xml).
 * Used by the export and OAI-PMH tests. When xmllint is missing it is installed once through
 * `scripts/infra/xmllint.sh install` (apt-get, as the other infrastructure tools), so a clean CI
 * machine validates too; if that fails the validation throws (a test never silently skips).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('.', import.meta.url));
const REPO = fileURLToPath(new URL('../../../../../', import.meta.url));

/** Schemas by name (paths relative to this folder). */
export const XSD = {
  datacite: 'datacite-kernel-4.5/metadata.xsd',
  oaiDc: 'oai_dc.xsd',
  marc21: 'MARC21slim.xsd',
  /** OAI-PMH.xsd plus every metadata format's schema (oai-pmh-all.xsd). */
  oaiPmh: 'oai-pmh-all.xsd',
} as const;

let checked = false;

function ensureXmllint(): void {
  if (checked) return;
  if (spawnSync('xmllint', ['--version']).status !== 0) {
    execFileSync('bash', [`${REPO}scripts/infra/xmllint.sh`, 'install'], { stdio: 'inherit' });
  }
  checked = true;
}

/** Validate `xml` against a schema; returns the validator's errors (empty when valid). */
export function validateXml(xml: string, schema: string): string[] {
  ensureXmllint();
  const r = spawnSync('xmllint', ['--noout', '--nonet', '--schema', `${DIR}${schema}`, '-'], {
    input: xml,
    env: { ...process.env, XML_CATALOG_FILES: `${DIR}catalog.xml` },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status === 0) return [];
  const lines = `${r.stderr}`.split('\n').filter((l) => l.trim() !== '' && !l.includes('Skipping import') && !/validates$/.test(l));
  return lines.length ? lines : [`xmllint exited with ${r.status}`];
}

/** Only check that `xml` is well-formed (RDF/XML has no XSD); returns the parser's errors. */
export function wellFormed(xml: string): string[] {
  ensureXmllint();
  const r = spawnSync('xmllint', ['--noout', '--nonet', '-'], { input: xml, encoding: 'utf8' });
  return r.status === 0 ? [] : `${r.stderr}`.split('\n').filter((l) => l.trim() !== '');
}
