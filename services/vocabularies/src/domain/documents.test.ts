import { foldText } from '@rdm/platform';
import { describe, expect, it } from 'vitest';
import { searchFieldsOf, textsOf, toRowInput } from './documents.js';
import { contentHash, normalizeEntry } from './entry.js';

/** The texts as they were built before folding was memoised per part: one `foldText` over the joined parts. */
const joinedFold = (parts: string[]) => foldText(parts.filter((p) => p.trim() !== '').join('\n'));

describe(textsOf.name, () => {
  const tricky = ['ΟΔΟΣ', 'Σ', 'ΣΑΣ ΣΑΣ', '\u0301Accent first', 'Straße Œuvre Łódź', 'ﬁne ＦＵＬＬ', 'plain ASCII Name', 'Genève', '  '];

  it('should fold each part exactly as foldText folds the parts joined by line breaks', () => {
    const doc = normalizeEntry('affiliations', {
      id: '01ggx4157',
      name: tricky[0],
      acronym: tricky[1],
      aliases: tricky.slice(2),
      title: { en: tricky[4], el: tricky[0] },
      country_name: tricky[7],
    });
    const t = textsOf('affiliations', doc);
    expect(t.searchA).toBe(joinedFold([doc.id, tricky[1], tricky[0]]));
    expect(t.suggestA).toBe(joinedFold([tricky[1], tricky[0]]));
    expect(t.suggestB).toBe(joinedFold([...tricky.slice(2), tricky[4], tricky[0], tricky[7]].filter(Boolean)));
    const fields = searchFieldsOf(doc);
    expect(fields.aliases).toBe(joinedFold(tricky.slice(2)));
    expect(fields['title.el']).toBe(foldText(tricky[0]));
    expect(fields.name).toBe(foldText(tricky[0]));
  });
});

describe(toRowInput.name, () => {
  it('should take a precomputed content hash as is and compute the same one otherwise', () => {
    const doc = normalizeEntry('subjects', { id: 'https://x/1', scheme: 'x', subject: 'Ökologie' });
    expect(toRowInput('subjects', doc).content_hash).toBe(contentHash(doc));
    expect(toRowInput('subjects', doc, 'given').content_hash).toBe('given');
  });
});
