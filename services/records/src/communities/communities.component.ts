/**
 * The communities lifecycle component: the community roles that widen the records policy
 * (`accessCtx`: curators of a record's communities manage it, curators of an open review's
 * community review the draft, members read restricted records), and the community schema
 * extension a publication validates (`checkPublish`, `rdm.communities.rpc.validate-extension`).
 *
 * When to use: an entry of the records components list (`recordComponents`), present when the
 * communities service is wired; the record-communities endpoints are record-communities.service.ts.
 * Roles come from `rdm.communities.rpc.roles` (cached briefly by the client, dropped on membership
 * events).
 */
import { AppError, type Identity } from '@rdm/platform';
import type { PublishCheck, RecordComponent } from '../domain/component.js';
import { fieldErrors } from '../domain/errors.js';
import type { ParentCommunities, ParentRow } from '../domain/model.js';
import type { CommunitiesPort } from '../domain/ports.js';
import type { RecordAccessCtx } from '../domain/records.policy.js';

/** The community ids of a parent. */
export const communityIdsOf = (p: Pick<ParentRow, 'communities'>): string[] =>
  ((p.communities as ParentCommunities | undefined)?.ids ?? []).filter(Boolean);

/** Community roles and the schema extension in the records lifecycle. */
export class CommunitiesComponent implements RecordComponent {
  readonly name = 'communities';

  constructor(private readonly d: { communities: Pick<CommunitiesPort, 'roles' | 'validateExtension'> }) {}

  /**
   * Publish: `metadata.community_extension` validated against `metadata.community_extension_schema`
   * by the communities service (`validate-extension`); its field errors join the publication's
   * 400. An unknown schema (404) is an error on `metadata.community_extension_schema`; a draft
   * without a schema id is not checked (an absent extension is validated as `{}`).
   */
  async checkPublish(check: PublishCheck): Promise<void> {
    const md = check.draft.metadata ?? {};
    const schemaId = md.community_extension_schema;
    if (typeof schemaId !== 'string' || schemaId === '') return;
    try {
      const r = await this.d.communities.validateExtension(schemaId, md.community_extension ?? {});
      if (!r.valid) check.errors.communities.push(...(r.errors?.length ? r.errors : [fieldErrors.invalidExtension()]));
    } catch (err) {
      if (!(err instanceof AppError) || err.status !== 404) throw err;
      check.errors.communities.push(fieldErrors.unknownExtensionSchema());
    }
  }

  /** `ctx` with the record's communities, the open review's community and the caller's roles in them. */
  async accessCtx(identity: Identity, ctx: RecordAccessCtx, parent: ParentRow): Promise<RecordAccessCtx> {
    const communityIds = communityIdsOf(parent);
    const reviewCommunityId = parent.review?.status === 'submitted' ? parent.review.receiver.community : null;
    const ids = [...new Set([...communityIds, ...(reviewCommunityId ? [reviewCommunityId] : [])])];
    if (identity.sub === null || ids.length === 0) return ctx;
    const communityRoles = await this.d.communities.roles(identity.sub, ids);
    return { ...ctx, communityIds, reviewCommunityId, communityRoles };
  }
}
