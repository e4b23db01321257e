import { describe, expect, it } from 'vitest';
import { foldText, regconfigLiteral, searchVectorSql } from './fold.js';

describe(foldText.name, () => {
  it.each([
    ['Römäns', 'romans'],
    ['ÉCOLE Polytechnique', 'ecole polytechnique'],
    ['Straße', 'strasse'],
    ['Ærø Łódź Œuvre Đorđe þorn', 'aero lodz oeuvre dorde thorn'],
    ['İstanbul', 'istanbul'],
    ['ﬁle ½', 'file 1⁄2'],
    ['São Paulo – Ñandú', 'sao paulo – nandu'],
  ])('should fold %j to %j', (input, folded) => {
    expect(foldText(input)).toBe(folded);
  });
});

describe(searchVectorSql.name, () => {
  it('should bind the folded, joined texts and skip empty ones', () => {
    expect(searchVectorSql(['Römäns', null, '', 'Greeks'])).toEqual({
      sql: "to_tsvector('simple'::regconfig, ?)",
      bindings: ['romans\ngreeks'],
    });
  });
});

describe(regconfigLiteral.name, () => {
  it('should refuse anything but an identifier', () => {
    expect(() => regconfigLiteral("simple'")).toThrow();
    expect(regconfigLiteral('pg_catalog.english')).toBe("'pg_catalog.english'::regconfig");
  });
});
