import { describe, expect, it } from 'vitest';
import { edtfRange, isEdtf, isIsoDate, parseEdtf } from './edtf.js';

describe(parseEdtf.name, () => {
  it('should accept years, months and days', () => {
    expect(parseEdtf('2020')).toEqual({ type: 'date', start: '2020-01-01', end: '2020-12-31' });
    expect(parseEdtf('2020-02')).toEqual({ type: 'date', start: '2020-02-01', end: '2020-02-29' });
    expect(parseEdtf('2021-02')).toEqual({ type: 'date', start: '2021-02-01', end: '2021-02-28' });
    expect(parseEdtf('2020-12-31')).toEqual({ type: 'date', start: '2020-12-31', end: '2020-12-31' });
  });

  it('should reject impossible dates and free text', () => {
    for (const v of [
      '2020-13',
      '2020-00',
      '2021-02-29',
      '2020-04-31',
      '2020-1',
      '20',
      'abc',
      '',
      '2020?',
      '2020~',
      '202X',
      '2020-12-31 ',
      ' 2020',
    ]) {
      expect(parseEdtf(v), v).toBeUndefined();
    }
    for (const v of [2020, null, undefined, {}, []]) expect(parseEdtf(v)).toBeUndefined();
  });

  it('should accept chronological intervals with open and unknown ends', () => {
    expect(parseEdtf('2020-01/2020-12')).toEqual({ type: 'interval', start: '2020-01-01', end: '2020-12-31' });
    expect(parseEdtf('2020-01-01/2020-12')).toEqual({ type: 'interval', start: '2020-01-01', end: '2020-12-31' });
    expect(parseEdtf('/2020-12')).toEqual({ type: 'interval', start: null, end: '2020-12-31' });
    expect(parseEdtf('2020-12/')).toEqual({ type: 'interval', start: '2020-12-01', end: null });
    expect(parseEdtf('../2020')).toEqual({ type: 'interval', start: null, end: '2020-12-31' });
    expect(parseEdtf('2020/..')).toEqual({ type: 'interval', start: '2020-01-01', end: null });
    expect(parseEdtf('2020/2020')).toBeDefined();
    expect(parseEdtf('2020-06/2020')).toBeDefined();
  });

  it('should reject non-chronological and malformed intervals', () => {
    for (const v of ['2021-01/2020-12', '2020-12-02/2020-12-01', '/', '../..', '2020/2021/2022', '2020/abc', '2020-01-01T00:00:00/2021']) {
      expect(parseEdtf(v), v).toBeUndefined();
    }
  });

  it('should accept date-times only for the datetime kind', () => {
    expect(parseEdtf('2020-12-31T10:11:12')).toBeUndefined();
    expect(parseEdtf('2020-12-31T10:11:12', 'datetime')).toEqual({ type: 'datetime', start: '2020-12-31', end: '2020-12-31' });
    expect(isEdtf('2020-12-31T10:11:12Z', 'datetime')).toBe(true);
    expect(isEdtf('2020-12-31T10:11:12+02:00', 'datetime')).toBe(true);
    expect(isEdtf('2020-12-31T25:11:12', 'datetime')).toBe(false);
    expect(isEdtf('2020-12-31T10:11', 'datetime')).toBe(false);
  });
});

describe(edtfRange.name, () => {
  it('should give the day range of a value and nulls for invalid input', () => {
    expect(edtfRange('2019/2020-03')).toEqual({ start: '2019-01-01', end: '2020-03-31' });
    expect(edtfRange('nonsense')).toEqual({ start: null, end: null });
  });
});

describe(isIsoDate.name, () => {
  it('should accept only full valid calendar dates', () => {
    expect(isIsoDate('2024-02-29')).toBe(true);
    expect(isIsoDate('2023-02-29')).toBe(false);
    expect(isIsoDate('2024-02')).toBe(false);
    expect(isIsoDate(20240229)).toBe(false);
  });
});
