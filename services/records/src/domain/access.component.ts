/**
 * The access component: who may do what (the records policy, widened by community roles through
 * the `accessCtx` hook only when the plain rules refuse, so owners never pay for the lookup), and
 * the `access` section of a draft write (record/files protection, embargo; changing the record's
 * protection needs `manage_record_access`; public → restricted only within the grace period).
 *
 * When to use: every service method checks its action on a record or draft through `require`,
 * reads and writes alike: community curators manage, edit, publish and version the records of
 * their communities, and curators of an open review update the draft (InvenioRDM's
 * `CommunityCurators`/submission reviewers), so no check of a record action may skip the roles.
 * `create`/`update` when a draft is written. Secret links and grants will add their generators here.
 */
import type { Identity } from '@rdm/platform';
import { Errors, type FieldError, isAdmin, isSystem } from '@rdm/platform';
import { normaliseAccess } from './access.js';
import type { DraftWrite, RecordComponent, RecordsServiceConfig } from './component.js';
import { fieldErrors } from './errors.js';
import type { Access, ParentRow } from './model.js';
import { can, type RecordAccessCtx, type RecordAction, recordsPolicy } from './records.policy.js';

/** The permission context of a draft or record and its parent (without community roles). */
export function ctxOf(row: { access: Access }, parent: ParentRow): RecordAccessCtx {
  return {
    ownerId: parent.owner_id,
    accessRecord: row.access?.record === 'restricted' ? 'restricted' : 'public',
    accessFiles: row.access?.files === 'restricted' ? 'restricted' : 'public',
    grants: (parent.access?.grants ?? []) as RecordAccessCtx['grants'],
    parentId: parent.id,
  };
}

/** Permissions and the `access` section of drafts. */
export class AccessComponent implements RecordComponent {
  readonly name = 'access';

  constructor(
    private readonly config: Pick<RecordsServiceConfig, 'restrictionGraceDays' | 'allowRestrictedRecords'>,
    private readonly components: () => readonly RecordComponent[],
  ) {}

  /**
   * `policy.require(action)` on `ctx` (returns the context used), first widened by the
   * components' `accessCtx` (in the list's order) when the plain rules refuse.
   */
  async require(action: RecordAction, identity: Identity, ctx: RecordAccessCtx, parent: ParentRow): Promise<RecordAccessCtx> {
    const wideners = this.components().filter((c) => c.accessCtx !== undefined);
    if (can(action, identity, ctx) || wideners.length === 0 || identity.sub === null) {
      recordsPolicy.require(action, identity, ctx);
      return ctx;
    }
    let wide = ctx;
    for (const c of wideners) wide = await c.accessCtx!(identity, wide, parent);
    recordsPolicy.require(action, identity, wide);
    return wide;
  }

  /** Whether the plain rules allow `action`. */
  can(action: RecordAction, identity: Identity, ctx: RecordAccessCtx): boolean {
    return can(action, identity, ctx);
  }

  /**
   * With restricted records switched off (`allowRestrictedRecords: false`, InvenioRDM's
   * RDM_ALLOW_RESTRICTED_RECORDS), no one but administrators and the system manages access: any
   * change of the record's or files' protection away from `current` is refused.
   */
  private restrictedRecordsRefused(identity: Identity, current: Access, next: Access): boolean {
    if (this.config.allowRestrictedRecords !== false || isAdmin(identity) || isSystem(identity)) return false;
    return next.record !== current.record || next.files !== current.files;
  }

  /** Create: the access of the new draft (defaults for what is not sent). */
  create(w: DraftWrite): void {
    const next = normaliseAccess(w.input.data.access as Record<string, any> | undefined);
    if (this.restrictedRecordsRefused(w.identity, normaliseAccess(undefined), next)) {
      throw Errors.validation([fieldErrors.noRecordAccessPermission()]);
    }
    w.patch.access = next;
  }

  /** Update: the new access when sent; 400 (nothing saved) for a change the caller may not make. */
  update(w: DraftWrite): void {
    const draft = w.draft!;
    const data = w.input.data;
    w.patch.access = draft.access;
    if (!w.input.present.access || !data.access) return;
    const next = normaliseAccess(data.access as Record<string, any>, draft.access);
    const hard: FieldError[] = [];
    if (
      (next.record !== draft.access.record && !can('manage_record_access', w.identity, w.ctx!)) ||
      this.restrictedRecordsRefused(w.identity, draft.access, next)
    ) {
      hard.push(fieldErrors.noRecordAccessPermission());
    }
    const grace = this.config.restrictionGraceDays;
    if (grace !== null && grace !== undefined && draft.access.record === 'public' && next.record === 'restricted') {
      if (draft.created.getTime() + grace * 86_400_000 <= Date.now()) hard.push(fieldErrors.restrictionGracePassed());
    }
    if (hard.length) throw Errors.validation(hard);
    w.patch.access = next;
  }
}
