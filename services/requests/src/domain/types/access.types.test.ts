import type { Identity } from '@rdm/platform';
import { describe, expect, it } from 'vitest';
import type { RequestRow, Status } from '../model.js';
import { availableActions, canDelete, canRead, mayRunAction } from '../policy.js';
import { ACCESS_FAILED_SUBJECT, ACCESS_GRANTED_SUBJECT } from './access.types.js';
import { effectSubjects, requestType } from './registry.js';

const user = (sub: string, roles: string[] = []): Identity => ({ sub, roles });
const SYSTEM: Identity = { sub: 'system', roles: ['system'] };
const ADMIN = user('9', ['admin']);

function req(type: string, status: Status): RequestRow {
  return {
    id: 'r',
    number: 1,
    type,
    status,
    title: 'Ocean temperatures',
    description: null,
    payload: { permission: 'view' },
    created_by: type === 'guest-access-request' ? { type: 'email', id: 'guest@example.org' } : { type: 'user', id: '1' },
    receiver: { type: 'user', id: '2' },
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

describe('access request types', () => {
  it('should be created submitted, never expire by themselves and take effect through the records saga', () => {
    for (const id of ['user-access-request', 'guest-access-request']) {
      const t = requestType(id)!;
      expect(t).toMatchObject({ initialStatus: 'submitted', expiresInDays: null, label: 'Access request' });
      expect(t.effect).toEqual({ mode: 'saga', confirm: [ACCESS_GRANTED_SUBJECT], fail: [ACCESS_FAILED_SUBJECT] });
      expect(t.actions.submit).toBeUndefined();
      expect(t.refs.receiver).toEqual(['user']);
      expect(t.refs.topic).toEqual(['record']);
    }
    expect(requestType('user-access-request')!.refs.created_by).toEqual(['user']);
    expect(requestType('guest-access-request')!.refs.created_by).toEqual(['email']);
    expect(effectSubjects()).toEqual(expect.arrayContaining([ACCESS_GRANTED_SUBJECT, ACCESS_FAILED_SUBJECT]));
  });

  it('should let the owner accept or decline and the requesting user cancel a user access request', () => {
    const t = requestType('user-access-request')!;
    const r = req(t.id, 'submitted');
    expect(availableActions(user('2'), r, t, {})).toEqual(['accept', 'decline']);
    expect(availableActions(user('1'), r, t, {})).toEqual(['cancel']);
    expect(availableActions(user('7'), r, t, {})).toEqual([]);
    expect(availableActions(user('2'), req(t.id, 'accepting'), t, {})).toEqual([]);
    expect(mayRunAction('accept', ADMIN, r, t, {})).toBe(false);
    expect(mayRunAction('expire', SYSTEM, r, t, {})).toBe(true);
    expect(canRead(user('1'), r, t, {})).toBe(true);
    expect(canRead(user('2'), r, t, {})).toBe(true);
    expect(canRead(user('7'), r, t, {})).toBe(false);
    expect(canDelete(user('1'), r, t, {})).toBe(false);
  });

  it('should give a guest request to the owner only: an e-mail reference is no signed-in caller', () => {
    const t = requestType('guest-access-request')!;
    const r = req(t.id, 'submitted');
    expect(availableActions(user('2'), r, t, {})).toEqual(['accept', 'decline']);
    expect(availableActions(user('guest@example.org'), r, t, {})).toEqual([]);
    expect(availableActions(SYSTEM, r, t, {})).toEqual(['accept', 'decline', 'cancel', 'expire']);
    expect(canRead(user('7'), r, t, {})).toBe(false);
  });

  it('should link users to the access request page and the owner to the dashboard', () => {
    expect(requestType('user-access-request')!.selfHtml({ id: 'x' }, {})).toBe('/access/requests/x');
    expect(requestType('guest-access-request')!.selfHtml({ id: 'x' }, {})).toBe('/me/requests/x');
  });
});
