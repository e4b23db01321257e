import { describe, expect, it } from 'vitest';
import { parseInitBody, parseUpdateBody } from './input.js';

const errorsOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    const err = e as { status: number; message: string; fieldErrors?: unknown };
    return { status: err.status, message: err.message, errors: err.fieldErrors };
  }
  throw new Error('expected a throw');
};

describe(parseInitBody.name, () => {
  it('should accept an array of keys with defaults', () => {
    expect(
      parseInitBody([{ key: 'a.txt' }, { key: 'b/c.csv', metadata: { d: 1 }, access: { hidden: true }, transfer: { type: 'L' } }]),
    ).toEqual([
      { key: 'a.txt', metadata: null, access: { hidden: false }, transfer: { type: 'L' } },
      { key: 'b/c.csv', metadata: { d: 1 }, access: { hidden: true }, transfer: { type: 'L' } },
    ]);
  });

  it('should refuse an empty list and an empty body with "No files to upload."', () => {
    const expected = {
      status: 400,
      message: 'A validation error occurred.',
      errors: [{ field: '_schema', messages: ['No files to upload.'] }],
    };
    expect(errorsOf(() => parseInitBody([]))).toEqual(expected);
    expect(errorsOf(() => parseInitBody(undefined))).toEqual(expected);
  });

  it('should refuse an object instead of an array with "Invalid input type."', () => {
    expect(errorsOf(() => parseInitBody({ key: 'a' })).errors).toEqual([{ field: '_schema', messages: ['Invalid input type.'] }]);
  });

  it('should report per-item problems with indexed fields', () => {
    const r = errorsOf(() => parseInitBody([{ key: 'ok' }, 'x', {}, { key: '../x', bogus: 1 }, { key: 'y', access: { hidden: 'no' } }]));
    expect(r.errors).toEqual([
      { field: '1._schema', messages: ['Invalid input type.'] },
      { field: '2.key', messages: ['Missing data for required field.'] },
      { field: '3.bogus', messages: ['Unknown field.'] },
      { field: '3.key', messages: ['File key must not contain "." or ".." path segments.'] },
      { field: '4.access.hidden', messages: ['Not a valid boolean.'] },
    ]);
  });

  it('should refuse a non-dict transfer for the whole batch', () => {
    expect(errorsOf(() => parseInitBody([{ key: 'a', transfer: 'L' }])).errors).toEqual([
      { field: 'transfer', messages: ['Transfer metadata must be a dictionary.'] },
    ]);
  });

  it('should refuse fetch and remote transfers with a field error on their type (not offered)', () => {
    expect(
      errorsOf(() =>
        parseInitBody([
          { key: 'a', transfer: { type: 'F' } },
          { key: 'b', transfer: { type: 'R' } },
        ]),
      ).errors,
    ).toEqual([
      { field: '0.transfer.type', messages: ['Fetch transfers (F) are not supported: upload the content (L) or upload it in parts (M).'] },
      { field: '1.transfer.type', messages: ['Remote transfers (R) are not supported: upload the content (L) or upload it in parts (M).'] },
    ]);
  });

  it('should refuse unknown transfer types', () => {
    expect(errorsOf(() => parseInitBody([{ key: 'a', transfer: { type: 'X' } }])).errors).toEqual([
      { field: '0.transfer.type', messages: ['Unsupported value: X'] },
    ]);
  });
});

describe(parseUpdateBody.name, () => {
  it('should accept metadata and access', () => {
    expect(parseUpdateBody({ metadata: { description: 'd' }, access: { hidden: true } })).toEqual({
      metadata: { description: 'd' },
      access: { hidden: true },
    });
    expect(parseUpdateBody(undefined)).toEqual({});
  });

  it('should refuse other fields like InvenioRDM (dump-only fields are unknown on load)', () => {
    expect(errorsOf(() => parseUpdateBody({ key: 'x', metadata: [] })).errors).toEqual([
      { field: 'key', messages: ['Unknown field.'] },
      { field: 'metadata', messages: ['Not a valid mapping type.'] },
    ]);
    expect(errorsOf(() => parseUpdateBody([1])).errors).toEqual([{ field: '_schema', messages: ['Invalid input type.'] }]);
  });
});
