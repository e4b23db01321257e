import { describe, expect, it } from 'vitest';
import { sniffContentType } from './sniff.js';

describe(sniffContentType.name, () => {
  it('should recognise png, jpeg, gif, webp and svg by their magic bytes', () => {
    expect(sniffContentType(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]))).toBe('image/png');
    expect(sniffContentType(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(sniffContentType(Buffer.from('GIF89a....'))).toBe('image/gif');
    expect(sniffContentType(Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 '))).toBe('image/webp');
    expect(sniffContentType(Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"></svg>'))).toBe('image/svg+xml');
    expect(sniffContentType(Buffer.from('<svg width="1"/>'))).toBe('image/svg+xml');
  });
  it('should fall back to application/octet-stream', () => {
    expect(sniffContentType(Buffer.from('hello'))).toBe('application/octet-stream');
    expect(sniffContentType(Buffer.alloc(0))).toBe('application/octet-stream');
    expect(sniffContentType(Buffer.from('<html><svg>'))).toBe('application/octet-stream');
  });
});
