import { describe, expect, it } from 'vitest';
import { FileLinks, isIiifImage } from './links.js';

describe(FileLinks.name, () => {
  const links = new FileLinks('https://rdm.test/');

  it("should give an image entry InvenioRDM 14's IIIF links, record and draft, and other entries none", () => {
    expect(links.entry('a1', 'record', 'map 1.png')).toEqual({
      self: 'https://rdm.test/api/records/a1/files/map%201.png',
      content: 'https://rdm.test/api/records/a1/files/map%201.png/content',
      iiif_canvas: 'https://rdm.test/api/iiif/record:a1/canvas/map%201.png',
      iiif_base: 'https://rdm.test/api/iiif/record:a1:map%201.png',
      iiif_info: 'https://rdm.test/api/iiif/record:a1:map%201.png/info.json',
      iiif_api: 'https://rdm.test/api/iiif/record:a1:map%201.png/full/full/0/default.png',
    });
    expect(links.entry('a1', 'draft', 'x.JPG')).toMatchObject({
      commit: 'https://rdm.test/api/records/a1/draft/files/x.JPG/commit',
      iiif_info: 'https://rdm.test/api/iiif/draft:a1:x.JPG/info.json',
    });
    expect(Object.keys(links.entry('a1', 'record', 'data.csv'))).toEqual(['self', 'content']);
    expect(Object.keys(links.entry('a1', 'record', 'cover.png', 'media'))).toEqual(['self', 'content']);
    expect(isIiifImage('scan.tiff')).toBe(true);
    expect(isIiifImage('png')).toBe(false);
  });
});
