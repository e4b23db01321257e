import { describe, expect, it } from 'vitest';
import { guessMimetype, servedMimetype } from './mimetype.js';

describe(guessMimetype.name, () => {
  it('should guess from the extension of the last segment', () => {
    expect(guessMimetype('paper.pdf')).toBe('application/pdf');
    expect(guessMimetype('figs/figure.PNG')).toBe('image/png');
    expect(guessMimetype('data.csv')).toBe('text/csv');
    expect(guessMimetype('notes.txt')).toBe('text/plain');
    expect(guessMimetype('data.json')).toBe('application/json');
    expect(guessMimetype('bundle.zip')).toBe('application/zip');
  });

  it('should fall back to application/octet-stream', () => {
    expect(guessMimetype('blob')).toBe('application/octet-stream');
    expect(guessMimetype('x.unknownext')).toBe('application/octet-stream');
    expect(guessMimetype('dir.png/blob')).toBe('application/octet-stream');
  });
});

describe(servedMimetype.name, () => {
  it('should serve whitelisted types as is', () => {
    expect(servedMimetype('image/png')).toBe('image/png');
    expect(servedMimetype('text/plain')).toBe('text/plain');
  });

  it('should neutralise types a browser would render or run', () => {
    expect(servedMimetype('text/html')).toBe('text/plain');
    expect(servedMimetype('image/svg+xml')).toBe('text/plain');
    expect(servedMimetype('application/javascript')).toBe('text/plain');
    expect(servedMimetype('application/octet-stream', 'README')).toBe('text/plain');
  });

  it('should serve anything else as application/octet-stream', () => {
    expect(servedMimetype('application/pdf')).toBe('application/octet-stream');
    expect(servedMimetype('application/zip')).toBe('application/octet-stream');
  });
});
