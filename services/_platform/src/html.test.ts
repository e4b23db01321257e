import { describe, expect, it } from 'vitest';
import { htmlToText, sanitizeHtml } from './html.js';

describe(sanitizeHtml.name, () => {
  it('should keep allowed tags and attributes and drop the rest', () => {
    expect(sanitizeHtml('<p class="x" onclick="y">a <b>b</b> <a href="https://x.org" onmouseover="z">l</a></p>')).toBe(
      '<p>a <b>b</b> <a href="https://x.org">l</a></p>',
    );
    expect(sanitizeHtml('<div><blink>t</blink><br/></div>')).toBe('<div>t<br /></div>');
  });

  it('should remove scripts, styles and comments with their content', () => {
    expect(sanitizeHtml('a<script>alert(1)</script>b<style>p{}</style>c<!-- x -->d<SCRIPT src=x></SCRIPT>e')).toBe('abcde');
    expect(sanitizeHtml('a<script>never closed')).toBe('a');
  });

  it('should drop javascript: URLs', () => {
    expect(sanitizeHtml('<a href=" javascript:alert(1)">x</a>')).toBe('<a>x</a>');
  });

  it('should run in linear time on hostile input', () => {
    const hostile = '<script'.repeat(20_000) + '<!--'.repeat(20_000);
    const t = Date.now();
    sanitizeHtml(hostile);
    expect(Date.now() - t).toBeLessThan(1000);
  });
});

describe(htmlToText.name, () => {
  it('should strip tags and decode common entities', () => {
    expect(htmlToText('<p>R&ouml;m &amp; <b>x</b></p>')).toBe('R&ouml;m & x');
  });
});

describe(`${sanitizeHtml.name} on comments`, () => {
  it('should drop scripts with their content, event attributes and unsafe URLs', () => {
    expect(sanitizeHtml('<p onclick="x()" style="c">a</p><script>alert(1)</script><SCRIPT src=x></SCRIPT>b')).toBe('<p>a</p>b');
    expect(sanitizeHtml('<a href="javascript:alert(1)" onmouseover="x">l</a>')).toBe('<a>l</a>');
    expect(sanitizeHtml('<img src="https://x/y.png" onerror="z">')).toBe('<img src="https://x/y.png">');
    expect(sanitizeHtml('<iframe src="x">in</iframe><!-- c -->ok')).toBe('ok');
  });
});
