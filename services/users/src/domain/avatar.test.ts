import { describe, expect, it } from 'vitest';
import { avatarColor, avatarInitial, renderAvatar } from './avatar.js';

describe(avatarInitial.name, () => {
  it('should take the first letter of the full name, folded and upper-cased', () => {
    expect(avatarInitial('Jose Benito', 'jb', 'x@y.z')).toBe('J');
    expect(avatarInitial('Čestmír Kopecký', null, 'x@y.z')).toBe('C');
    expect(avatarInitial('  émile', null, 'x@y.z')).toBe('E');
  });

  it('should fall back to username, then e-mail', () => {
    expect(avatarInitial('', 'zed', 'x@y.z')).toBe('Z');
    expect(avatarInitial('', null, 'mail@y.z')).toBe('M');
    expect(avatarInitial('---', null, '@@@')).toBe('?');
  });
});

describe(renderAvatar.name, () => {
  it('should render an SVG whose ETag starts with the initial', () => {
    const sut = renderAvatar('3', 'J');
    expect(sut.svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(sut.svg).toContain(`fill="${avatarColor('3')}"`);
    expect(sut.svg).toContain('>J</text>');
    expect(sut.etag.startsWith('"J')).toBe(true);
  });

  it('should escape the initial', () => {
    expect(renderAvatar('1', '<').svg).toContain('&lt;</text>');
  });
});
