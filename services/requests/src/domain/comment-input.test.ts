import { describe, expect, it } from 'vitest';
import { parseCommentBody } from './comment-input.js';

describe(parseCommentBody.name, () => {
  const o = { required: true, maxLength: 10 };
  it('should accept and sanitize a valid payload', () => {
    expect(parseCommentBody({ payload: { content: '<b onclick=x>a</b>' } }, { required: true, maxLength: 100 })).toEqual({
      content: '<b>a</b>',
      format: 'html',
    });
  });
  it('should treat a missing body as no comment only when not required', () => {
    expect(parseCommentBody(undefined, { required: false, maxLength: 10 })).toBeUndefined();
    expect(parseCommentBody({}, { required: false, maxLength: 10 })).toBeUndefined();
    expect(() => parseCommentBody({}, o)).toThrow('A validation error occurred.');
  });
  it('should refuse empty, too long, unknown keys and other formats', () => {
    const fields = (b: unknown) => {
      try {
        parseCommentBody(b, o);
      } catch (e) {
        return (e as { fieldErrors: unknown }).fieldErrors;
      }
    };
    expect(fields({ payload: { content: '' } })).toEqual([{ field: 'payload.content', messages: ['Shorter than minimum length 1.'] }]);
    expect(fields({ payload: { content: 'x'.repeat(11) } })).toEqual([
      { field: 'payload.content', messages: ['Longer than maximum length 10.'] },
    ]);
    expect(fields({ payload: { content: 'a', x: 1 } })).toEqual([{ field: 'payload.x', messages: ['Unknown field.'] }]);
    expect(fields({ payload: { content: 'a', format: 'md' } })).toEqual([{ field: 'payload.format', messages: ['Must be one of: html.'] }]);
  });
});
