/**
 * Generated InvenioRDM vocabulary files, in the formats invenio-vocabularies' readers and
 * invenio-rdm-records' fixture iterators read (the shipped `src/fixtures/vocabularies/*.yaml` and
 * `licenses.csv` are the model): a YAML list of entries (`subjects`, `resourcetypes`, …) and a CSV
 * file with a header row, `a__b` columns for nested fields and a comma-separated `tags` column.
 *
 * When to use: tests and benches of the `yaml` and `csv` import formats build their files here
 * (`yamlSubjects`, `csvLicenses`), with accents, quotes, commas and line breaks inside fields.
 */
import { stringify } from 'yaml';

/** A subject entry as InvenioRDM's subject YAML files hold it (EuroSciVoc/MeSH-like ids). */
export function subject(i: number, scheme = 'EuroSciVoc'): Record<string, unknown> {
  return {
    id: `http://data.europa.eu/8mn/euroscivoc/${String(i).padStart(8, '0')}`,
    scheme,
    subject: i % 3 === 0 ? `Écologie «${i}»` : `Natural sciences ${i}: physics, "optics"`,
    title: { en: `Natural sciences ${i}`, de: `Naturwissenschaften ${i}` },
    props: { parents: i > 1 ? `http://data.europa.eu/8mn/euroscivoc/${String(i - 1).padStart(8, '0')}` : '' },
    identifiers: [{ scheme: 'url', identifier: `http://data.europa.eu/8mn/euroscivoc/${String(i).padStart(8, '0')}` }],
    synonyms: [`sciences ${i}`],
  };
}

/** A YAML list of `n` subjects (InvenioRDM's YAML vocabulary file layout). */
export function yamlSubjects(n: number, from = 0): string {
  return stringify(
    Array.from({ length: n }, (_, i) => subject(from + i)),
    { lineWidth: 0 },
  );
}

/** The header of InvenioRDM's licenses.csv. */
export const LICENSES_HEADER = 'id,title__en,description__en,icon,tags,props__url,props__scheme,props__osi_approved';

/** CSV quoting (RFC 4180): quoted when it holds a comma, a quote or a line break. */
export const csvField = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/** One licenses.csv row. */
export function licenseRow(i: number): string {
  return [
    `lic-${i}`,
    i % 4 === 0 ? `Licence «${i}», version "2"` : `License ${i}`,
    i % 5 === 0 ? `Line one\nline two of ${i}` : '',
    '',
    i % 2 === 0 ? 'all,software' : 'all,data',
    `https://opensource.org/license/lic-${i}`,
    'spdx',
    i % 2 === 0 ? 'y' : '',
  ]
    .map(csvField)
    .join(',');
}

/** A licenses.csv of `n` rows (CRLF line ends, as spreadsheets write them, when `crlf`). */
export function csvLicenses(n: number, o: { crlf?: boolean; from?: number } = {}): string {
  const eol = o.crlf ? '\r\n' : '\n';
  return [LICENSES_HEADER, ...Array.from({ length: n }, (_, i) => licenseRow((o.from ?? 0) + i))].join(eol) + eol;
}
