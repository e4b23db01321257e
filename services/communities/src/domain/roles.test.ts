import { describe, expect, it } from 'vitest';
import { type Actor, canManageRole, checkMemberRemoval, checkMemberUpdate, type MemberFacts, memberPermissions } from './roles.js';

const actor = (role: Actor['role'], userId = '1', admin = false): Actor => ({ userId, role, admin });
const member = (role: MemberFacts['role'], id = '2', visible = false): MemberFacts => ({
  member_type: 'user',
  member_id: id,
  role,
  visible,
});

describe(canManageRole.name, () => {
  it('should follow the "may manage roles" table', () => {
    expect(['owner', 'manager', 'curator', 'reader'].map((r) => canManageRole(actor('owner'), r as never))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['owner', 'manager', 'curator', 'reader'].map((r) => canManageRole(actor('manager'), r as never))).toEqual([
      false,
      true,
      true,
      true,
    ]);
    expect(canManageRole(actor('curator'), 'reader')).toBe(false);
    expect(canManageRole(actor('reader'), 'reader')).toBe(false);
    expect(canManageRole(actor(null), 'reader')).toBe(false);
    expect(canManageRole(actor(null, '9', true), 'owner')).toBe(true);
  });
});

describe(memberPermissions.name, () => {
  it('should let a member leave but not delete or re-role itself', () => {
    expect(memberPermissions(actor('owner', '2'), member('owner', '2'))).toEqual({
      can_leave: true,
      can_delete: false,
      can_update_role: false,
      can_update_visible: true,
    });
  });
  it('should give a manager rights over readers but not owners', () => {
    expect(memberPermissions(actor('manager'), member('reader', '2', true))).toEqual({
      can_leave: false,
      can_delete: true,
      can_update_role: true,
      can_update_visible: true,
    });
    expect(memberPermissions(actor('manager'), member('reader', '2', false)).can_update_visible).toBe(false);
    expect(memberPermissions(actor('manager'), member('owner'))).toEqual({
      can_leave: false,
      can_delete: false,
      can_update_role: false,
      can_update_visible: false,
    });
  });
  it('should give readers nothing over others', () => {
    expect(Object.values(memberPermissions(actor('reader'), member('reader', '2', true)))).toEqual([false, false, false, false]);
  });
});

describe(checkMemberUpdate.name, () => {
  it('should refuse changing your own role', () => {
    expect(checkMemberUpdate(actor('owner', '2'), member('owner', '2'), { role: 'reader' })).toEqual({
      kind: 'bad',
      message: 'You cannot change your own role.',
    });
  });
  it('should refuse public visibility on somebody else', () => {
    expect(checkMemberUpdate(actor('owner'), member('reader'), { visible: true })).toEqual({
      kind: 'bad',
      message: 'You can only set public visibility on your own membership.',
    });
    expect(checkMemberUpdate(actor('reader', '2'), member('reader', '2'), { visible: true })).toBeNull();
    expect(checkMemberUpdate(actor('owner'), member('reader', '2', true), { visible: false })).toBeNull();
  });
  it('should need manager-for-role on both the old and the new role', () => {
    expect(checkMemberUpdate(actor('manager'), member('reader'), { role: 'curator' })).toBeNull();
    expect(checkMemberUpdate(actor('manager'), member('reader'), { role: 'owner' })).toEqual({ kind: 'denied' });
    expect(checkMemberUpdate(actor('manager'), member('owner'), { role: 'reader' })).toEqual({ kind: 'denied' });
    expect(checkMemberUpdate(actor('curator'), member('reader'), { role: 'curator' })).toEqual({ kind: 'denied' });
    expect(checkMemberUpdate(actor('owner'), member('owner'), { role: 'reader' })).toBeNull();
  });
});

describe(checkMemberRemoval.name, () => {
  it('should let anyone leave and managers remove what they manage', () => {
    expect(checkMemberRemoval(actor('reader', '2'), member('reader', '2'))).toBeNull();
    expect(checkMemberRemoval(actor('manager'), member('curator'))).toBeNull();
    expect(checkMemberRemoval(actor('manager'), member('owner'))).toEqual({ kind: 'denied' });
    expect(checkMemberRemoval(actor('curator'), member('reader'))).toEqual({ kind: 'denied' });
  });
});
