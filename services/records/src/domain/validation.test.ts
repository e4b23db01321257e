import { describe, expect, it } from 'vitest';
import { parseCustomFields } from './custom-fields.js';
import { loadWriteForm, reduceVocabRefs, validateStored } from './validation.js';

const errorsOf = (body: unknown) => loadWriteForm(body).errors;
const field = (body: unknown, f: string) => errorsOf(body).find((e) => e.field === f)?.messages;

describe(loadWriteForm.name, () => {
  it('should accept an empty body without errors (metadata not sent)', () => {
    const sut = loadWriteForm({});
    expect(sut.errors).toEqual([]);
    expect(sut.hardErrors).toEqual([]);
    expect(sut.data).toEqual({});
  });

  it('should report required metadata fields with marshmallow messages', () => {
    const errors = errorsOf({ metadata: {} });
    expect(errors).toEqual([
      { field: 'metadata.resource_type', messages: ['Missing data for required field.'] },
      { field: 'metadata.creators', messages: ['Missing data for required field.'] },
      { field: 'metadata.title', messages: ['Missing data for required field.'] },
      { field: 'metadata.publication_date', messages: ['Missing data for required field.'] },
    ]);
  });

  it('should report the spec key when the client used resource_types', () => {
    expect(field({ metadata: { resource_types: [] } }, 'metadata.resource_types')).toEqual(['Missing data for required field.']);
    expect(field({ metadata: { resource_types: 'x' } }, 'metadata.resource_types')).toEqual(['Not a valid list.']);
    expect(field({ metadata: { resource_type: 'x' } }, 'metadata.resource_type._schema')).toEqual(['Invalid input type.']);
  });

  it('should give creators/contributors InvenioRDM messages', () => {
    const body = {
      metadata: {
        creators: [
          { person_or_org: { type: 'personal', given_name: 'A' } },
          { person_or_org: { type: 'organizational' } },
          { person_or_org: { type: 'robot', name: 'x' } },
          { person_or_org: {} },
          { affiliations: [{ name: 'X' }, { name: 'X' }], person_or_org: { type: 'organizational', name: 'O' } },
        ],
        contributors: [{ person_or_org: { type: 'personal', family_name: 'B' } }],
      },
    };
    const errors = errorsOf(body);
    const get = (f: string) => errors.find((e) => e.field === f)?.messages;
    expect(get('metadata.creators.0.person_or_org.family_name')).toEqual(['Family name cannot be blank.']);
    expect(get('metadata.creators.1.person_or_org.name')).toEqual(['Name cannot be blank.']);
    expect(get('metadata.creators.2.person_or_org.type')).toEqual(["Invalid value. Choose one of ['organizational', 'personal']."]);
    expect(get('metadata.creators.3.person_or_org.type')).toEqual(['Missing data for required field.']);
    expect(get('metadata.creators.4.affiliations')).toEqual(['Duplicated affiliations: X']);
    expect(get('metadata.contributors.0.role')).toEqual(['Missing data for required field.']);
  });

  it('should compute person names and drop given/family names of organizations', () => {
    const { data } = loadWriteForm({
      metadata: {
        creators: [
          { person_or_org: { type: 'personal', given_name: 'Troy', family_name: 'Brown', name: 'ignored' } },
          { person_or_org: { type: 'personal', family_name: 'Solo' } },
          { person_or_org: { type: 'organizational', name: 'Org', given_name: 'x', family_name: 'y' } },
        ],
      },
    });
    expect(data.metadata?.creators.map((c: any) => c.person_or_org)).toEqual([
      { type: 'personal', given_name: 'Troy', family_name: 'Brown', name: 'Brown, Troy' },
      { type: 'personal', family_name: 'Solo', name: 'Solo' },
      { type: 'organizational', name: 'Org' },
    ]);
  });

  it('should validate EDTF dates and report "Please provide a valid date or interval."', () => {
    const msg = ['Please provide a valid date or interval.'];
    expect(field({ metadata: { publication_date: '2020-13' } }, 'metadata.publication_date')).toEqual(msg);
    expect(field({ metadata: { publication_date: '2021/2020' } }, 'metadata.publication_date')).toEqual(msg);
    expect(field({ metadata: { publication_date: '2020-01-01T10:00:00' } }, 'metadata.publication_date')).toEqual(msg);
    expect(field({ metadata: { publication_date: '2020/..' } }, 'metadata.publication_date')).toBeUndefined();
    expect(
      field({ metadata: { dates: [{ date: '2020-01-01T10:00:00Z', type: { id: 'other' } }] } }, 'metadata.dates.0.date'),
    ).toBeUndefined();
    expect(field({ metadata: { dates: [{ date: 'soon', type: { id: 'other' } }] } }, 'metadata.dates.0.date')).toEqual(msg);
  });

  it('should drop invalid values and keep valid ones (lax load)', () => {
    const sut = loadWriteForm({
      metadata: { title: 12, publisher: 'P', version: 'x'.repeat(200), foo: 'bar', languages: [{ id: 'eng' }, 5] },
    });
    expect(sut.data.metadata).toEqual({ publisher: 'P', languages: [{ id: 'eng' }] });
    const get = (f: string) => sut.errors.find((e) => e.field === f)?.messages;
    expect(get('metadata.title')).toEqual(['Not a valid string.']);
    expect(get('metadata.version')).toEqual(['Longer than maximum length 191.']);
    expect(get('metadata.foo')).toEqual(['Unknown field.']);
    expect(get('metadata.languages.1._schema')).toEqual(['Invalid input type.']);
  });

  it('should check titles and descriptions length after trimming', () => {
    expect(field({ metadata: { title: '  ab  ' } }, 'metadata.title')).toEqual(['Shorter than minimum length 3.']);
    expect(field({ metadata: { description: 'ab' } }, 'metadata.description')).toEqual(['Shorter than minimum length 3.']);
  });

  it('should say "Field may not be null." for nulls', () => {
    expect(field({ metadata: { title: null } }, 'metadata.title')).toEqual(['Field may not be null.']);
  });

  it('should validate identifiers by scheme and detect missing schemes', () => {
    const sut = loadWriteForm({
      metadata: {
        identifiers: [
          { identifier: 'not-a-doi', scheme: 'doi' },
          { identifier: 'https://doi.org/10.1234/abc' },
          { identifier: 'x', scheme: 'nope' },
        ],
        creators: [
          { person_or_org: { type: 'personal', family_name: 'A', identifiers: [{ scheme: 'orcid', identifier: '0000-0002-1825-0098' }] } },
        ],
      },
    });
    const get = (f: string) => sut.errors.find((e) => e.field === f)?.messages;
    expect(get('metadata.identifiers.0.identifier')).toEqual(['Invalid DOI identifier.']);
    expect(get('metadata.identifiers.2.scheme')).toEqual(['Invalid scheme.']);
    expect(get('metadata.creators.0.person_or_org.identifiers.0.identifier')).toEqual(['Invalid ORCID identifier.']);
    expect(sut.data.metadata?.alternate_identifiers[1]).toEqual({ identifier: '10.1234/abc', scheme: 'doi' });
  });

  it('should refuse duplicated identifiers', () => {
    expect(
      field(
        {
          metadata: {
            identifiers: [
              { identifier: 'https://a.org', scheme: 'url' },
              { identifier: 'https://a.org', scheme: 'url' },
            ],
          },
        },
        'metadata.identifiers',
      ),
    ).toEqual(['Duplicated identifier entry is not allowed.']);
  });

  it('should make access errors hard and force restricted files on restricted records', () => {
    expect(loadWriteForm({ access: { record: 'secret', files: 'public' } }).hardErrors).toEqual([
      { field: 'access.record', messages: ["'record' must be either 'public' or 'restricted'"] },
    ]);
    expect(loadWriteForm({ access: { record: 'public' } }).hardErrors).toEqual([
      { field: 'access.files', messages: ['Missing data for required field.'] },
    ]);
    expect(loadWriteForm({ access: { record: 'restricted', files: 'public' } }).data.access?.files).toBe('restricted');
  });

  it('should validate embargo dates', () => {
    const future = `${new Date().getUTCFullYear() + 2}-01-01`;
    expect(field({ access: { record: 'public', files: 'public', embargo: { active: true } } }, 'access.embargo.until')).toEqual([
      'Embargo end date must be set to a future date.',
    ]);
    expect(
      field({ access: { record: 'public', files: 'public', embargo: { active: false, until: future } } }, 'access.embargo.until'),
    ).toEqual(['Embargo end date must be unset or in the past.']);
    const sut = loadWriteForm({ access: { record: 'public', files: 'restricted', embargo: { until: future } } });
    expect(sut.data.access?.embargo).toEqual({ until: future, active: true, reason: null });
  });

  it('should reject unknown pid schemes and keep known ones', () => {
    const sut = loadWriteForm({
      pids: { ark: { identifier: 'x', provider: 'y' }, doi: { identifier: '10.5281/zenodo.1', provider: 'external' } },
    });
    expect(sut.errors).toEqual([{ field: 'pids.ark', messages: ['Invalid persistent identifier scheme.'] }]);
    expect(Object.keys(sut.data.pids ?? {})).toEqual(['doi']);
    expect(field({ pids: { doi: { provider: 'external' } } }, 'pids.doi.identifier')).toEqual(['Missing data for required field.']);
  });

  it('should collect vocabulary references with their paths', () => {
    const sut = loadWriteForm({
      metadata: {
        resource_type: { id: 'image-photo', title: { en: 'ignored' } },
        creators: [
          {
            person_or_org: { type: 'organizational', name: 'O' },
            role: { id: 'researcher' },
            affiliations: [{ id: 'aff' }, { name: 'free' }],
          },
        ],
        rights: [{ id: 'cc-by-4.0' }, { title: { en: 'custom' } }],
        subjects: [{ subject: 'free' }, { id: 'sub' }],
      },
    });
    expect(sut.vocabRefs.map((r) => [r.type, r.id, r.path.join('.')])).toEqual([
      ['resourcetypes', 'image-photo', 'metadata.resource_types.0'],
      ['creatorsroles', 'researcher', 'metadata.creators.0.role'],
      ['affiliations', 'aff', 'metadata.creators.0.affiliations.0'],
      ['licenses', 'cc-by-4.0', 'metadata.rights.0'],
      ['subjects', 'sub', 'metadata.subjects.1'],
    ]);
  });

  it('should sanitize HTML descriptions', () => {
    const sut = loadWriteForm({
      metadata: { description: '<p onclick="x()">Hello <script>alert(1)</script><a href="javascript:x">l</a></p>' },
    });
    expect(sut.data.metadata?.description).toBe('<p>Hello <a>l</a></p>');
  });

  it('should refuse a body that is not an object', () => {
    for (const body of [[], 'x', 5, true, null]) {
      expect(loadWriteForm(body).hardErrors).toEqual([{ field: '_schema', messages: ['Invalid input type.'] }]);
    }
  });

  it('should refuse pathological nesting without recursing', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(loadWriteForm({ custom_fields: { a: deep } }).hardErrors).toEqual([
      { field: '_schema', messages: ['Nesting deeper than 32 levels.'] },
    ]);
    let ok: unknown = 'x';
    for (let i = 0; i < 20; i++) ok = { a: ok };
    expect(loadWriteForm({ custom_fields: ok as object }).hardErrors).toEqual([]);
  });

  it('should never throw on odd input (fuzz)', () => {
    const odd = [null, 0, -1, 1e308, '', 'x'.repeat(200_000), [], [[]], {}, { a: { b: {} } }, true, [null], [{}], { id: 5 }];
    const keys = [
      'resource_types',
      'resource_type',
      'title',
      'publication_date',
      'creators',
      'contributors',
      'description',
      'rights',
      'subjects',
      'languages',
      'dates',
      'version',
      'publisher',
      'identifiers',
      'related_identifiers',
      'locations',
      'funding',
      'references',
      'additional_titles',
      'additional_descriptions',
      'copyright',
      'instruments',
      'contact_emails',
      'temporal_coverage',
      'community_extension',
      'community_extension_schema',
      'sizes',
      'formats',
    ];
    for (const k of keys) {
      for (const v of odd) {
        for (const wrap of [(x: unknown) => x, (x: unknown) => [x], (x: unknown) => [{ person_or_org: x, role: x, affiliations: [x] }]]) {
          const body = { metadata: { [k]: wrap(v) }, access: v, files: v, pids: v, custom_fields: v };
          expect(() => loadWriteForm(body)).not.toThrow();
        }
      }
    }
  });
});

describe(validateStored.name, () => {
  it('should re-validate a stored (dereferenced) draft without false errors', () => {
    const metadata = {
      resource_types: [{ id: 'image-photo', title: { en: 'Photo' } }],
      title: 'Title',
      publication_date: '2020',
      creators: [{ person_or_org: { type: 'personal', family_name: 'B', name: 'B' }, affiliations: [{ id: 'a', name: 'A' }] }],
      rights: [{ id: 'cc-by-4.0', title: { en: 'CC' }, props: { url: 'https://x.org', scheme: 'spdx' } }],
      subjects: [{ id: 's', subject: 'S', scheme: 'MeSH' }],
      funding: [{ funder: { id: 'f', name: 'F' }, award: { id: 'a', number: '1', title: { en: 'T' } } }],
    };
    expect(validateStored({ metadata, access: { record: 'public', files: 'public', embargo: { active: false, reason: null } } })).toEqual(
      [],
    );
  });

  it('should list every missing required field at once', () => {
    expect(validateStored({ metadata: { title: 'Ok title' } }).map((e) => e.field)).toEqual([
      'metadata.resource_type',
      'metadata.creators',
      'metadata.publication_date',
    ]);
  });
});

describe(reduceVocabRefs.name, () => {
  it('should reduce dereferenced references to their ids', () => {
    expect(reduceVocabRefs({ languages: [{ id: 'eng', title: { en: 'English' } }] })).toEqual({ languages: [{ id: 'eng' }] });
  });
});

describe('custom_fields (RDM_CUSTOM_FIELDS)', () => {
  const customErrors = (errors: { field: string }[]) => errors.filter((e) => e.field.startsWith('custom_fields'));
  const configured = parseCustomFields(
    JSON.stringify([
      { name: 'cern:experiment', type: 'text' },
      { name: 'cern:tags', type: 'keyword', multiple: true, max_items: 3, max_length: 8 },
      { name: 'cern:public', type: 'boolean' },
      { name: 'cern:runs', type: 'integer' },
      { name: 'cern:when', type: 'date' },
      { name: 'cern:beam', type: 'vocabulary', vocabulary: 'beams', multiple: true },
      {
        name: 'journal:journal',
        type: 'object',
        fields: [
          { name: 'title', type: 'text' },
          { name: 'issue', type: 'keyword' },
        ],
      },
    ]),
    4096,
  );

  it('should drop unknown keys with `Unknown field.` when none is configured (InvenioRDM default)', () => {
    const sut = loadWriteForm({ custom_fields: { 'x:y': 1, big: Array.from({ length: 1000 }, (_, i) => i) } });
    expect(sut.hardErrors).toEqual([]);
    expect(sut.errors).toEqual([
      { field: 'custom_fields.x:y', messages: ['Unknown field.'] },
      { field: 'custom_fields.big', messages: ['Unknown field.'] },
    ]);
    expect(sut.data.custom_fields).toEqual({});
    expect(customErrors(validateStored({ custom_fields: { 'x:y': 1 } }))).toEqual([
      { field: 'custom_fields.x:y', messages: ['Unknown field.'] },
    ]);
  });

  it('should keep configured fields, checking each value by its type and bounds', () => {
    const good = {
      'cern:experiment': '  ATLAS  ',
      'cern:tags': ['a', 'b'],
      'cern:public': true,
      'cern:runs': 3,
      'cern:when': '2024-02-29',
      'cern:beam': [{ id: 'proton' }],
      'journal:journal': { title: 'J', issue: '4' },
    };
    const ok = loadWriteForm({ custom_fields: good }, configured);
    expect(ok.errors).toEqual([]);
    expect(ok.data.custom_fields).toEqual({ ...good, 'cern:experiment': 'ATLAS' });
    expect(ok.vocabRefs).toEqual([{ type: 'beams', id: 'proton', path: ['custom_fields', 'cern:beam', 0] }]);
    const stored = { ...ok.data.custom_fields, 'cern:beam': [{ id: 'proton', title: { en: 'Proton' } }] };
    expect(customErrors(validateStored({ custom_fields: stored }, configured))).toEqual([]);

    const bad = loadWriteForm(
      {
        custom_fields: {
          'cern:tags': ['a', 'b', 'c', 'd'],
          'cern:public': 'yes',
          'cern:runs': 1.5,
          'cern:when': '2024-02-30',
          'journal:journal': { title: 'J', volume: '9' },
          'cern:nope': 'x',
        },
      },
      configured,
    );
    expect(bad.hardErrors).toEqual([]);
    expect(bad.errors).toEqual(
      expect.arrayContaining([
        { field: 'custom_fields.cern:tags', messages: ['Longer than maximum length 3.'] },
        { field: 'custom_fields.cern:public', messages: ['Not a valid boolean.'] },
        { field: 'custom_fields.cern:runs', messages: ['Not a valid integer.'] },
        { field: 'custom_fields.cern:when', messages: ['Not a valid date.'] },
        { field: 'custom_fields.journal:journal.volume', messages: ['Unknown field.'] },
        { field: 'custom_fields.cern:nope', messages: ['Unknown field.'] },
      ]),
    );
    expect(bad.data.custom_fields).toEqual({ 'journal:journal': { title: 'J' } });
    expect(loadWriteForm({ custom_fields: { 'cern:tags': ['123456789'] } }, configured).errors).toEqual([
      { field: 'custom_fields.cern:tags.0', messages: ['Longer than maximum length 8.'] },
    ]);
  });

  it('should refuse (400, nothing saved) a section larger than its byte bound, and a section that is not an object', () => {
    const huge = loadWriteForm({ custom_fields: { 'cern:experiment': 'x'.repeat(5000) } }, configured);
    expect(huge.hardErrors).toEqual([{ field: 'custom_fields', messages: ['Custom fields larger than 4096 bytes.'] }]);
    expect(loadWriteForm({ custom_fields: { big: Array.from({ length: 1_000_000 }, () => 0) } }).hardErrors).toEqual([
      { field: 'custom_fields', messages: ['Custom fields larger than 65536 bytes.'] },
    ]);
    expect(loadWriteForm({ custom_fields: [1] }).errors).toEqual([{ field: 'custom_fields._schema', messages: ['Invalid input type.'] }]);
  });

  it('should refuse a malformed definition at start, listing every problem', () => {
    expect(() => parseCustomFields('{')).toThrow('not valid JSON');
    expect(() => parseCustomFields('[{"name": "a b", "type": "text"}, {"name": "v", "type": "vocabulary"}]')).toThrow(
      /RDM_CUSTOM_FIELDS\[0\]: name .*; RDM_CUSTOM_FIELDS\[1\]: vocabulary is required/,
    );
    expect(() => parseCustomFields('[{"name": "a", "type": "text"}, {"name": "a", "type": "text"}]')).toThrow('unique');
    expect(parseCustomFields('').defs).toEqual([]);
  });
});
