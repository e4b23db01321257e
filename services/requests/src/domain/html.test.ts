import { describe, expect, it } from 'vitest';
import { sanitizeHtml } from './html.js';

describe(sanitizeHtml.name, () => {
  it('should drop scripts with their content, event attributes and unsafe URLs', () => {
    expect(sanitizeHtml('<p onclick="x()" style="c">a</p><script>alert(1)</script><SCRIPT src=x></SCRIPT>b')).toBe('<p>a</p>b');
    expect(sanitizeHtml('<a href="javascript:alert(1)" onmouseover="x">l</a>')).toBe('<a>l</a>');
    expect(sanitizeHtml('<img src="https://x/y.png" onerror="z">')).toBe('<img src="https://x/y.png">');
    expect(sanitizeHtml('<iframe src="x">in</iframe><!-- c -->ok')).toBe('ok');
  });
  it('should keep allowed formatting', () => {
    expect(sanitizeHtml('<p>Hi <b>there</b> <a href="https://e.org" title="t">x</a><br/></p>')).toBe(
      '<p>Hi <b>there</b> <a href="https://e.org" title="t">x</a><br /></p>',
    );
  });
});
