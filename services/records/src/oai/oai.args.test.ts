import { describe, expect, it } from 'vitest';
import { checkArgs, fromBound, granularityOf, type OaiError, untilExclusiveBound } from './oai.args.js';
import { decodeToken, encodeToken, type TokenState } from './tokens.js';

const code = (raw: Record<string, string[]>) => {
  try {
    checkArgs(raw);
    return 'ok';
  } catch (e) {
    return (e as OaiError).code;
  }
};

describe(checkArgs.name, () => {
  it('should accept each verb with its arguments', () => {
    expect(code({ verb: ['Identify'] })).toBe('ok');
    expect(code({ verb: ['ListMetadataFormats'], identifier: ['oai:x:1'] })).toBe('ok');
    expect(code({ verb: ['ListSets'] })).toBe('ok');
    expect(code({ verb: ['GetRecord'], identifier: ['oai:x:1'], metadataPrefix: ['oai_dc'] })).toBe('ok');
    expect(code({ verb: ['ListIdentifiers'], metadataPrefix: ['oai_dc'], from: ['2020-01-01'], until: ['2020-12-31'], set: ['s'] })).toBe(
      'ok',
    );
    expect(code({ verb: ['ListRecords'], resumptionToken: ['t'] })).toBe('ok');
  });
  it('should answer badVerb for a missing, unknown or repeated verb', () => {
    expect(code({})).toBe('badVerb');
    expect(code({ verb: ['Nope'] })).toBe('badVerb');
    expect(code({ verb: ['Identify', 'Identify'] })).toBe('badVerb');
  });
  it('should answer badArgument for illegal, repeated, missing or exclusive-violating arguments', () => {
    expect(code({ verb: ['Identify'], foo: ['1'] })).toBe('badArgument');
    expect(code({ verb: ['ListRecords'] })).toBe('badArgument');
    expect(code({ verb: ['ListRecords'], metadataPrefix: ['oai_dc', 'marcxml'] })).toBe('badArgument');
    expect(code({ verb: ['ListRecords'], metadataPrefix: ['oai_dc'], resumptionToken: ['t'] })).toBe('badArgument');
    expect(code({ verb: ['GetRecord'], identifier: ['oai:x:1'] })).toBe('badArgument');
    expect(code({ verb: ['ListSets'], set: ['x'] })).toBe('badArgument');
  });
  it('should check datestamps: format, real dates, same granularity, from <= until', () => {
    const list = (from?: string, until?: string) =>
      code({ verb: ['ListRecords'], metadataPrefix: ['oai_dc'], ...(from ? { from: [from] } : {}), ...(until ? { until: [until] } : {}) });
    expect(list('2020-01-01T00:00:00Z', '2020-01-02T00:00:00Z')).toBe('ok');
    expect(list('2020-01-01T00:00:00')).toBe('badArgument');
    expect(list('2020-02-31')).toBe('badArgument');
    expect(list('2020-01-01', '2020-01-02T00:00:00Z')).toBe('badArgument');
    expect(list('2020-01-02', '2020-01-01')).toBe('badArgument');
    expect(list(undefined, '2020-13-01')).toBe('badArgument');
  });
  it('should refuse datestamps outside the supported range with badArgument (issue 18: a 500 before)', () => {
    const list = (from?: string, until?: string) =>
      code({ verb: ['ListRecords'], metadataPrefix: ['oai_dc'], ...(from ? { from: [from] } : {}), ...(until ? { until: [until] } : {}) });
    for (const [from, until] of [
      [undefined, '9999-12-31'],
      [undefined, '9999-12-31T23:59:59Z'],
      ['0000-01-01', undefined],
      ['0000-01-01T00:00:00Z', undefined],
      ['0000-01-01', '9999-12-31'],
    ] as const) {
      expect(list(from, until), `${from} ${until}`).toBe('badArgument');
    }
    expect(list('0001-01-01', '9999-12-30')).toBe('ok');
    expect(list(undefined, '9999-12-31T23:59:58Z')).toBe('ok');
    expect(list('9999-12-31T23:59:59Z')).toBe('ok');
    expect(list('9999-12-31')).toBe('ok');
  });
});

describe(granularityOf.name, () => {
  it('should bound from/until inclusively at their granularity', () => {
    expect(granularityOf('2020-01-01')).toBe('day');
    expect(granularityOf('2020-01-01T10:00:00Z')).toBe('second');
    expect(fromBound('2020-01-01')).toBe('2020-01-01T00:00:00Z');
    expect(untilExclusiveBound('2020-01-01')).toBe('2020-01-02T00:00:00.000Z');
    expect(untilExclusiveBound('2020-01-01T10:00:00Z')).toBe('2020-01-01T10:00:01.000Z');
  });
});

describe(encodeToken.name, () => {
  const state: TokenState = {
    verb: 'ListRecords',
    metadataPrefix: 'oai_dc',
    set: 'community-ocean',
    after: { cursor: '2024-01-01T00:00:00.123456Z', id: 'abcde-fgh12' },
    offset: 100,
    total: 250,
    exp: Math.floor(Date.now() / 1000) + 60,
  };
  it('should round-trip a signed token (stateless: any process with the secret reads it)', () => {
    expect(decodeToken(encodeToken(state, 's3cret'), 's3cret')).toEqual(state);
  });
  it('should refuse a forged, tampered, foreign or expired token', () => {
    const t = encodeToken(state, 's3cret');
    expect(decodeToken(t, 'other-secret')).toBeUndefined();
    const [payload, sig] = t.split('.');
    const forged = Buffer.from(JSON.stringify({ ...state, offset: 0 })).toString('base64url');
    expect(decodeToken(`${forged}.${sig}`, 's3cret')).toBeUndefined();
    expect(decodeToken(`${payload}.`, 's3cret')).toBeUndefined();
    expect(decodeToken('garbage', 's3cret')).toBeUndefined();
    expect(decodeToken(t, 's3cret', (state.exp + 1) * 1000)).toBeUndefined();
  });
});
