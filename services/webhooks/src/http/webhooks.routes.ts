/**
 * HTTP routes of the webhooks service (`/api/webhooks…`): each parses input, makes one service
 * call and serializes. Declared in routes.decl.ts; the router also serves the internal
 * `GET /openapi.json`.
 */
import { type AppState, bindRoutes, Errors, first, jsonBody, listEnvelope, openapiRouter, parseListArgs, type Router } from '@rdm/platform';
import type { SubscriptionsService } from '../domain/subscriptions.service.js';
import { API, WEBHOOK_ROUTES } from './routes.decl.js';
import { serializeDelivery, serializeWebhook } from './serializers.js';

/** Dependencies of the routes. */
export interface WebhooksRoutesDeps {
  webhooks: SubscriptionsService;
  baseUrl: string;
}

const LIST = { sorts: ['newest'], defaultSort: 'newest', defaultSize: 25, maxSize: 100 } as const;

/** Build the router. */
export function webhooksRouter(deps: WebhooksRoutesDeps): Router<AppState> {
  const { webhooks, baseUrl } = deps;
  const router = bindRoutes(WEBHOOK_ROUTES, {
    listWebhooks: async (ctx) => {
      const { all, ...rest } = ctx.query;
      const everyone = first(all) === 'true';
      if (all !== undefined && !['true', 'false'].includes(first(all) ?? ''))
        throw Errors.invalidQuerystring([{ field: 'all', messages: ['Not a valid boolean.'] }]);
      const args = parseListArgs(rest, LIST);
      const res = await webhooks.list(ctx.state.identity, args, everyone);
      ctx.body = listEnvelope({
        hits: res.rows.map((r) => serializeWebhook(r, baseUrl)),
        total: res.total,
        args,
        baseUrl,
        path: '/api/webhooks',
        noSortInLinks: true,
      });
    },
    createWebhook: async (ctx) => {
      const { row, secret } = await webhooks.create(ctx.state.identity, await jsonBody(ctx, { required: true }));
      ctx.status = 201;
      ctx.body = serializeWebhook(row, baseUrl, secret);
    },
    readWebhook: async (ctx) => {
      ctx.body = serializeWebhook(await webhooks.get(ctx.state.identity, ctx.params.id), baseUrl);
    },
    updateWebhook: async (ctx) => {
      ctx.body = serializeWebhook(
        await webhooks.update(ctx.state.identity, ctx.params.id, await jsonBody(ctx, { required: true })),
        baseUrl,
      );
    },
    deleteWebhook: async (ctx) => {
      await webhooks.delete(ctx.state.identity, ctx.params.id);
      ctx.status = 204;
    },
    pingWebhook: async (ctx) => {
      ctx.status = 202;
      ctx.body = serializeDelivery(await webhooks.ping(ctx.state.identity, ctx.params.id), baseUrl);
    },
    rotateWebhookSecret: async (ctx) => {
      const { row, secret } = await webhooks.rotateSecret(ctx.state.identity, ctx.params.id);
      ctx.body = serializeWebhook(row, baseUrl, secret);
    },
    listWebhookDeliveries: async (ctx) => {
      const args = parseListArgs(ctx.query, LIST);
      const res = await webhooks.deliveries(ctx.state.identity, ctx.params.id, args);
      ctx.body = listEnvelope({
        hits: res.rows.map((d) => serializeDelivery(d, baseUrl)),
        total: res.total,
        args,
        baseUrl,
        path: `/api/webhooks/${ctx.params.id}/deliveries`,
        noSortInLinks: true,
      });
    },
    redeliverWebhookDelivery: async (ctx) => {
      ctx.status = 202;
      ctx.body = serializeDelivery(await webhooks.redeliver(ctx.state.identity, ctx.params.id, ctx.params.delivery_id), baseUrl);
    },
  });
  router.use(openapiRouter(API).routes());
  return router;
}
