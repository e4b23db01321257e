import { describe, expect, it } from 'vitest';
import { decodeKeyPath, encodeKeyPath, keyBasename, keyExtension, keyProblem } from './keys.js';

describe(keyProblem.name, () => {
  it('should accept ordinary keys, keys with / and unicode', () => {
    for (const k of ['paper.pdf', 'data/2024/run 1.csv', 'ünïcødé ✓.txt', 'a..b.txt', '.hidden', 'c++.pdf', 'x'.repeat(255)]) {
      expect(keyProblem(k), k).toBeNull();
    }
  });

  it('should reject .. and . segments, leading /, empty segments', () => {
    expect(keyProblem('../etc/passwd')).toMatch(/segments/);
    expect(keyProblem('a/../../b')).toMatch(/segments/);
    expect(keyProblem('a/./b')).toMatch(/segments/);
    expect(keyProblem('..')).toMatch(/segments/);
    expect(keyProblem('/abs.txt')).toMatch(/start with "\/"/);
    expect(keyProblem('a//b')).toMatch(/empty path segments/);
    expect(keyProblem('a/')).toMatch(/empty path segments/);
  });

  it('should reject NUL, control characters, backslashes and empty keys', () => {
    expect(keyProblem('a\u0000b')).toMatch(/control/);
    expect(keyProblem('a\nb')).toMatch(/control/);
    expect(keyProblem('a\u007fb')).toMatch(/control/);
    expect(keyProblem('a\\..\\b')).toMatch(/backslash/);
    expect(keyProblem('')).toMatch(/empty/);
    expect(keyProblem(42)).toBe('Not a valid string.');
  });

  it('should reject keys over 255 UTF-8 bytes', () => {
    expect(keyProblem('x'.repeat(256))).toMatch(/255 bytes/);
    expect(keyProblem('é'.repeat(128))).toMatch(/255 bytes/);
  });
});

describe(encodeKeyPath.name, () => {
  it('should encode each segment and keep slashes, round-tripping with decodeKeyPath', () => {
    const key = 'dir one/fïle #1?.txt';
    const enc = encodeKeyPath(key);
    expect(enc).toBe('dir%20one/f%C3%AFle%20%231%3F.txt');
    expect(decodeKeyPath(enc)).toBe(key);
    expect(decodeKeyPath('c++.pdf')).toBe('c++.pdf');
  });

  it('should return null for broken percent-encoding', () => {
    expect(decodeKeyPath('%E0%A4%A')).toBeNull();
  });
});

describe(keyExtension.name, () => {
  it('should give the lower-cased last extension or null', () => {
    expect(keyExtension('a/b/Report.PDF')).toBe('pdf');
    expect(keyExtension('archive.tar.gz')).toBe('gz');
    expect(keyExtension('.bashrc')).toBeNull();
    expect(keyExtension('README')).toBeNull();
    expect(keyExtension('dir.d/file')).toBeNull();
    expect(keyBasename('dir.d/file.txt')).toBe('file.txt');
  });
});
