import { describe, expect, it } from 'vitest';
import { attachmentDisposition, contentDisposition, encodeRfc5987 } from './content-disposition.js';

describe(contentDisposition.name, () => {
  it('should be inline for safely displayable types', () => {
    expect(contentDisposition('figure.png', 'image/png', false)).toBe('inline');
    expect(contentDisposition('notes.txt', 'text/plain', false)).toBe('inline');
  });

  it('should be an attachment for octet-stream or when a download is asked for', () => {
    expect(contentDisposition('paper.pdf', 'application/octet-stream', false)).toBe('attachment; filename=paper.pdf');
    expect(contentDisposition('figure.png', 'image/png', true)).toBe('attachment; filename=figure.png');
  });
});

describe(attachmentDisposition.name, () => {
  it('should quote names that are not tokens', () => {
    expect(attachmentDisposition('my paper (v2).pdf')).toBe('attachment; filename="my paper (v2).pdf"');
    expect(attachmentDisposition('a"b.txt')).toBe('attachment; filename="a\\"b.txt"');
  });

  it('should add an RFC 5987 filename* with an ASCII fallback for non-ASCII names', () => {
    expect(attachmentDisposition('résumé.pdf')).toBe("attachment; filename=resume.pdf; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf");
    expect(attachmentDisposition('数据.csv')).toBe("attachment; filename=.csv; filename*=UTF-8''%E6%95%B0%E6%8D%AE.csv");
  });
});

describe(encodeRfc5987.name, () => {
  it('should keep attr-chars and percent-encode the rest', () => {
    expect(encodeRfc5987("a b'c*%.txt")).toBe('a%20b%27c%2A%25.txt');
  });
});
