import type { Identity } from '@rdm/platform';
import { describe, expect, it } from 'vitest';
import type { RequestRow, Status } from '../model.js';
import { availableActions, canDelete, canRead, mayRunAction } from '../policy.js';
import {
  BUCKET_QUOTA_CHANGED_SUBJECT,
  RECORD_DELETED_SUBJECT,
  RECORD_DELETION_FAILED_SUBJECT,
  RECORD_FILES_UNLOCK_FAILED_SUBJECT,
  RECORD_FILES_UNLOCKED_SUBJECT,
} from './record.types.js';
import { effectSubjects, requestType } from './registry.js';

const user = (sub: string, roles: string[] = []): Identity => ({ sub, roles });
const SYSTEM: Identity = { sub: 'system', roles: ['system'] };
const ADMIN = user('9', ['admin']);
const OWNER = user('1');
const STRANGER = user('3');

function req(status: Status): RequestRow {
  return {
    id: 'r',
    number: 1,
    type: 'record-deletion',
    status,
    title: 'Ocean temperatures',
    description: null,
    payload: { reason: 'spam', comment: 'Uploaded by mistake.' },
    created_by: { type: 'user', id: '1' },
    receiver: { type: 'group', id: 'admin' },
    topic: { type: 'record', id: 'abcde-12345' },
    expires_at: null,
    is_locked: false,
    accept_actor: null,
    accept_comment: null,
    created: new Date(),
    updated: new Date(),
    last_activity_at: new Date(),
    revision_id: 1,
  };
}

describe('record-deletion type', () => {
  const t = requestType('record-deletion')!;

  it('should be created submitted, never expire, and take effect through the records deletion saga', () => {
    expect(t).toMatchObject({ initialStatus: 'submitted', expiresInDays: null, label: 'Record deletion', deletable: false });
    expect(t.refs).toEqual({ created_by: ['user'], receiver: ['group'], topic: ['record'] });
    expect(t.effect).toEqual({ mode: 'saga', confirm: [RECORD_DELETED_SUBJECT], fail: [RECORD_DELETION_FAILED_SUBJECT] });
    expect(effectSubjects()).toEqual(expect.arrayContaining([RECORD_DELETED_SUBJECT, RECORD_DELETION_FAILED_SUBJECT]));
    expect(t.actions.expire).toBeUndefined();
  });

  it('should let administrators and the system accept or decline, the owner only cancel, a stranger nothing', () => {
    const open = req('submitted');
    expect(availableActions(ADMIN, open, t, {}).sort()).toEqual(['accept', 'decline']);
    expect(availableActions(SYSTEM, open, t, {}).sort()).toEqual(['accept', 'cancel', 'decline']);
    expect(availableActions(OWNER, open, t, {})).toEqual(['cancel']);
    expect(availableActions(STRANGER, open, t, {})).toEqual([]);
    expect(mayRunAction('accept', OWNER, open, t, {})).toBe(false);
    for (const s of ['accepted', 'declined', 'cancelled'] as const) expect(availableActions(ADMIN, req(s), t, {})).toEqual([]);
  });

  it('should be readable by its creator and administrators only, and never deleted', () => {
    const open = req('submitted');
    expect(canRead(OWNER, open, t, {})).toBe(true);
    expect(canRead(ADMIN, open, t, {})).toBe(true);
    expect(canRead(STRANGER, open, t, {})).toBe(false);
    expect(canRead(user('admin'), open, t, {})).toBe(false);
    expect(canDelete(OWNER, req('created'), t, {})).toBe(false);
  });
});

describe('quota-increase type', () => {
  const t = requestType('quota-increase')!;
  const quota = (status: Status): RequestRow => ({
    ...req(status),
    type: 'quota-increase',
    payload: { quota_size: 10_000_000_000, reason: 'A 9 GB dataset.', bucket_id: 'b1' },
  });

  it('should be created submitted, never expire, and take effect when files confirms the quota', () => {
    expect(t).toMatchObject({ initialStatus: 'submitted', expiresInDays: null, label: 'Quota increase', deletable: false });
    expect(t.refs).toEqual({ created_by: ['user'], receiver: ['group'], topic: ['record'] });
    expect(t.effect).toEqual({ mode: 'saga', confirm: [BUCKET_QUOTA_CHANGED_SUBJECT], fail: [] });
    expect(effectSubjects()).toContain(BUCKET_QUOTA_CHANGED_SUBJECT);
  });

  it('should let administrators accept or decline, the owner only cancel, a stranger nothing', () => {
    const open = quota('submitted');
    expect(availableActions(ADMIN, open, t, {}).sort()).toEqual(['accept', 'decline']);
    expect(availableActions(OWNER, open, t, {})).toEqual(['cancel']);
    expect(availableActions(STRANGER, open, t, {})).toEqual([]);
    expect(mayRunAction('accept', OWNER, open, t, {})).toBe(false);
    expect(canRead(STRANGER, open, t, {})).toBe(false);
    expect(canRead(OWNER, open, t, {})).toBe(true);
  });
});

describe('file-modification type', () => {
  const t = requestType('file-modification')!;
  const fm = (status: Status): RequestRow => ({ ...req(status), type: 'file-modification', payload: {} });

  it('should be created submitted, never expire, and take effect when records unlocks the files', () => {
    expect(t).toMatchObject({ initialStatus: 'submitted', expiresInDays: null, label: 'File modification', deletable: false });
    expect(t.refs).toEqual({ created_by: ['user'], receiver: ['group'], topic: ['record'] });
    expect(t.effect).toEqual({ mode: 'saga', confirm: [RECORD_FILES_UNLOCKED_SUBJECT], fail: [RECORD_FILES_UNLOCK_FAILED_SUBJECT] });
    expect(effectSubjects()).toEqual(expect.arrayContaining([RECORD_FILES_UNLOCKED_SUBJECT, RECORD_FILES_UNLOCK_FAILED_SUBJECT]));
  });

  it('should let administrators and the system accept or decline, the owner only cancel, a stranger nothing', () => {
    const open = fm('submitted');
    expect(availableActions(ADMIN, open, t, {}).sort()).toEqual(['accept', 'decline']);
    expect(availableActions(SYSTEM, open, t, {}).sort()).toEqual(['accept', 'cancel', 'decline']);
    expect(availableActions(OWNER, open, t, {})).toEqual(['cancel']);
    expect(availableActions(STRANGER, open, t, {})).toEqual([]);
    expect(mayRunAction('accept', OWNER, open, t, {})).toBe(false);
    expect(canRead(STRANGER, open, t, {})).toBe(false);
    expect(canRead(OWNER, open, t, {})).toBe(true);
  });
});
