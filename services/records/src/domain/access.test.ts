import { describe, expect, it } from 'vitest';
import { accessReadForm, accessStatus, normaliseAccess } from './access.js';

describe(accessStatus.name, () => {
  const embargo = { active: false, reason: null };
  it('should be embargoed when the embargo is active, whatever else', () => {
    expect(accessStatus({ record: 'public', files: 'public', embargo: { active: true, until: '2999-01-01', reason: null } }, true)).toBe(
      'embargoed',
    );
    expect(accessStatus({ record: 'restricted', files: 'restricted', embargo: { active: true, reason: null } }, false)).toBe('embargoed');
  });

  it('should be metadata-only for a public record without files', () => {
    expect(accessStatus({ record: 'public', files: 'public', embargo }, false)).toBe('metadata-only');
    expect(accessStatus({ record: 'public', files: 'restricted', embargo }, false)).toBe('metadata-only');
  });

  it('should be open when record and files are public with files enabled', () => {
    expect(accessStatus({ record: 'public', files: 'public', embargo }, true)).toBe('open');
  });

  it('should be restricted otherwise', () => {
    expect(accessStatus({ record: 'public', files: 'restricted', embargo }, true)).toBe('restricted');
    expect(accessStatus({ record: 'restricted', files: 'restricted', embargo }, false)).toBe('restricted');
  });
});

describe(normaliseAccess.name, () => {
  it('should force restricted files on a restricted record', () => {
    expect(normaliseAccess({ record: 'restricted', files: 'public' }).files).toBe('restricted');
  });

  it('should default to public/public without input', () => {
    expect(normaliseAccess(undefined)).toEqual({ record: 'public', files: 'public', embargo: { active: false, reason: null } });
  });
});

describe(accessReadForm.name, () => {
  it('should omit until when unset and add the status', () => {
    expect(accessReadForm(normaliseAccess(undefined), true)).toEqual({
      record: 'public',
      files: 'public',
      embargo: { active: false, reason: null },
      status: 'open',
    });
  });
});
