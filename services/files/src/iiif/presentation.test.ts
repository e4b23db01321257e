import { describe, expect, it } from 'vitest';
import { identifierSegment, isLinkToken, parseIdentifier } from './identifier.js';
import { iiifLinks, manifestV2, manifestV3, type PresentationSubject } from './presentation.js';

const subject = (token?: string): PresentationSubject => ({
  scope: 'record',
  recordId: 'a1b2c-3d4e5',
  baseUrl: 'https://rdm.test',
  metadata: { title: 'Maps' },
  images: [{ file: { key: 'map 1.png' }, dims: { width: 40, height: 30 } } as PresentationSubject['images'][number]],
  ...(token ? { token } : {}),
});

describe(iiifLinks.name, () => {
  it('should carry a secret-link token: documents and canvases as ?token=, image services as the identifier suffix', () => {
    const l = iiifLinks(subject('tok.EN-1'));
    expect(l.manifest).toBe('https://rdm.test/api/iiif/record:a1b2c-3d4e5/manifest?token=tok.EN-1');
    expect(l.canvas('map 1.png')).toBe('https://rdm.test/api/iiif/record:a1b2c-3d4e5/canvas/map%201.png?token=tok.EN-1');
    expect(l.imageBase('map 1.png')).toBe('https://rdm.test/api/iiif/record:a1b2c-3d4e5:map%201.png;token=tok.EN-1');
    expect(l.imageFull('map 1.png')).toBe(
      'https://rdm.test/api/iiif/record:a1b2c-3d4e5:map%201.png;token=tok.EN-1/full/full/0/default.png',
    );
    expect(iiifLinks(subject()).imageBase('map 1.png')).toBe('https://rdm.test/api/iiif/record:a1b2c-3d4e5:map%201.png');
  });

  it('should name every image URL of both manifests with the token', () => {
    const v2 = JSON.stringify(manifestV2(subject('T0k')));
    const v3 = JSON.stringify(manifestV3(subject('T0k')));
    for (const doc of [v2, v3]) {
      const urls = doc.match(/https:\/\/rdm\.test\/api\/iiif\/[^"]+/g) ?? [];
      expect(urls.length).toBeGreaterThan(3);
      for (const u of urls) expect(u).toMatch(/(\?token=T0k|;token=T0k)/);
    }
  });
});

describe(parseIdentifier.name, () => {
  it('should read the ;token= suffix of an identifier segment, and keep keys with an encoded ; intact', () => {
    expect(parseIdentifier('record:a1:map%201.png;token=abc.DEF_-~')).toEqual({
      scope: 'record',
      recordId: 'a1',
      key: 'map 1.png',
      token: 'abc.DEF_-~',
    });
    expect(parseIdentifier('record:a1:x%3Btoken=y.png')).toEqual({ scope: 'record', recordId: 'a1', key: 'x;token=y.png' });
    expect(parseIdentifier('draft:a1;token=t')).toEqual({ scope: 'draft', recordId: 'a1', token: 't' });
    expect(identifierSegment({ scope: 'record', recordId: 'a1', key: 'k.png', token: 't' })).toBe('record:a1:k.png;token=t');
    expect(isLinkToken('a b')).toBe(false);
  });
});
