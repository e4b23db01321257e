/**
 * HTTP routes of reviews and record communities: `/api/records/<id>/draft/review`,
 * `…/draft/actions/submit-review`, `/api/records/<id>/communities`, `…/communities-suggestions`
 * and the removal `DELETE /api/communities/<id>/records`. Each parses its input and makes ONE
 * component call.
 */
import { type AppContext, type AppState, bindRoutes, jsonBody, type Router } from '@rdm/platform';
import type { RecordCommunitiesService } from '../communities/record-communities.service.js';
import type { CommunityRecordsService } from '../communities/community-records.service.js';
import type { CommunitySummary } from '../domain/ports.js';
import type { ReviewService } from '../review/review.service.js';
import { REVIEW_ROUTES } from './review.decl.js';

/** What the routes need. */
export interface ReviewRoutesDeps {
  review: ReviewService;
  communities: RecordCommunitiesService;
  communityRecords: CommunityRecordsService;
  baseUrl: string;
}

const BODY_LIMIT = '1mb';

/** A list of community summaries in the list envelope (no paging: a record has few communities). */
function communityList(items: CommunitySummary[], baseUrl: string, path: string) {
  const hits = items.map((c) => ({
    ...c,
    links: {
      self: `${baseUrl}/api/communities/${encodeURIComponent(c.id)}`,
      self_html: `${baseUrl}/communities/${encodeURIComponent(c.slug)}`,
    },
  }));
  return { hits: { hits, total: hits.length }, links: { self: `${baseUrl}${path}` } };
}

/** Register the routes on `router` (before the records routes). */
export function registerReviewRoutes(router: Router<AppState>, deps: ReviewRoutesDeps): void {
  const { review, communities, communityRecords, baseUrl } = deps;
  const id = (ctx: AppContext) => String(ctx.params.id);
  const body = (ctx: AppContext) => jsonBody(ctx, { limit: BODY_LIMIT });

  bindRoutes(
    REVIEW_ROUTES,
    {
      getDraftReview: async (ctx: AppContext) => {
        ctx.body = await review.get(ctx.state.identity, id(ctx));
      },
      putDraftReview: async (ctx: AppContext) => {
        ctx.body = await review.put(ctx.state.identity, id(ctx), await body(ctx));
      },
      deleteDraftReview: async (ctx: AppContext) => {
        await review.delete(ctx.state.identity, id(ctx));
        ctx.status = 204;
        ctx.body = null;
      },
      submitDraftReview: async (ctx: AppContext) => {
        const request = await review.submit(ctx.state.identity, id(ctx), await body(ctx));
        ctx.status = 202;
        ctx.body = request;
      },
      listRecordCommunities: async (ctx: AppContext) => {
        const items = await communities.list(ctx.state.identity, id(ctx));
        ctx.body = communityList(items, baseUrl, `/api/records/${encodeURIComponent(id(ctx))}/communities`);
      },
      addRecordCommunities: async (ctx: AppContext) => {
        ctx.body = await communities.add(ctx.state.identity, id(ctx), await body(ctx));
      },
      removeRecordCommunities: async (ctx: AppContext) => {
        // InvenioRDM answers 200 with `{}`, or `{errors: [{community_id, message}]}` for the ones refused.
        ctx.body = await communities.remove(ctx.state.identity, id(ctx), await body(ctx));
      },
      recordCommunitySuggestions: async (ctx: AppContext) => {
        const items = await communities.suggestions(ctx.state.identity, id(ctx));
        ctx.body = communityList(items, baseUrl, `/api/records/${encodeURIComponent(id(ctx))}/communities-suggestions`);
      },
      removeCommunityRecords: async (ctx: AppContext) => {
        // InvenioRDM answers 200 with `{}`, or `{errors: [{record, message}]}` for the records refused.
        ctx.body = await communityRecords.remove(ctx.state.identity, String(ctx.params.id), await body(ctx));
      },
    },
    router,
  );
}
