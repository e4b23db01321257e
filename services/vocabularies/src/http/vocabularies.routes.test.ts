import { describe, expect, it } from 'vitest';
import { etagMatches } from './vocabularies.routes.js';

describe(etagMatches.name, () => {
  it('should match the same tag, weak tags, lists and *', () => {
    expect(etagMatches('"3"', '"3"')).toBe(true);
    expect(etagMatches('W/"3"', '"3"')).toBe(true);
    expect(etagMatches('"1", "3"', '"3"')).toBe(true);
    expect(etagMatches('*', '"3"')).toBe(true);
    expect(etagMatches('"2"', '"3"')).toBe(false);
    expect(etagMatches('', '"3"')).toBe(false);
  });
});
