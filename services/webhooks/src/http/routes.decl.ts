/**
 * The webhooks service's HTTP surface, declared once: the router (webhooks.routes.ts binds one
 * handler per key), the OpenAPI fragment served at the internal `GET /openapi.json` and merged by
 * the gateway into `/api/openapi.json`, and the gateway's routing table (`pnpm gen:contracts`).
 *
 * When to edit: a webhooks route, its parameters or the Webhook / Delivery JSON
 * (http/serializers.ts) change. Only the platform and constants may be imported here.
 */
import { defineApi, defineRoutes, type Json, json, ref } from '@rdm/platform';
import { WEBHOOK_EVENT_TYPES } from '../domain/events.js';

const ok = (schema: Json, description = 'OK') => ({ description, content: json(schema) });
const err = (description: string) => ({ description, content: json(ref('schemas', 'Error')) });
const W = ref('schemas', 'Webhook');
const idParam = { id: { schema: { type: 'string', format: 'uuid' }, description: 'Webhook id.' } };
const notFound = err('Unknown webhook, or one of another user (never 403). `The webhook does not exist.`');
const listParams = [ref('parameters', 'page'), ref('parameters', 'size')];
const write = {
  type: 'object',
  properties: {
    url: {
      type: 'string',
      description: 'Target: `https://` (or `http://` when WEBHOOKS_ALLOW_HTTP); never a private, loopback or link-local address.',
    },
    events: { type: 'array', minItems: 1, items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] } },
    scope: {
      type: 'object',
      description:
        'Create only: `user` (own records and requests, default), `community` (owners and managers of it), `all` (administrators).',
      properties: { type: { type: 'string', enum: ['user', 'community', 'all'] }, community_id: { type: 'string', format: 'uuid' } },
      required: ['type'],
    },
    description: { type: 'string', maxLength: 1000 },
    active: { type: 'boolean' },
  },
};

/** Every route of the webhooks service, in koa match order. */
export const WEBHOOK_ROUTES = defineRoutes({
  listWebhooks: {
    method: 'GET',
    path: '/api/webhooks',
    list: true,
    auth: 'user',
    summary: "The caller's webhooks (administrators: everyone's with `all=true`)",
    parameters: [...listParams, { name: 'all', in: 'query', schema: { type: 'boolean' } }],
    responses: { '200': ok(ref('schemas', 'WebhookList')) },
    errors: [400, 403, 429, 503],
  },
  createWebhook: {
    method: 'POST',
    path: '/api/webhooks',
    auth: 'user',
    summary: 'Subscribe a target to events (the signing secret is in this answer only)',
    body: { ...write, required: ['url', 'events'] },
    responses: { '201': ok(W, 'Created; `secret` (`whsec_…`) is shown this once.') },
    errors: [400, 403, 429, 503],
  },
  readWebhook: {
    method: 'GET',
    path: '/api/webhooks/{id}',
    auth: 'user',
    summary: 'Read a webhook (never its secret)',
    params: idParam,
    responses: { '200': ok(W), '404': notFound },
    errors: [403, 429, 503],
  },
  updateWebhook: {
    method: 'PUT',
    path: '/api/webhooks/{id}',
    auth: 'user',
    summary: 'Change url, events, description or active (re-activating clears the failure run)',
    params: idParam,
    body: write,
    responses: { '200': ok(W), '404': notFound },
    errors: [400, 403, 429, 503],
  },
  deleteWebhook: {
    method: 'DELETE',
    path: '/api/webhooks/{id}',
    auth: 'user',
    summary: 'Delete a webhook and its delivery log',
    params: idParam,
    responses: { '204': { description: 'Deleted.' }, '404': notFound },
    errors: [403, 429, 503],
  },
  pingWebhook: {
    method: 'POST',
    path: '/api/webhooks/{id}/actions/ping',
    auth: 'user',
    summary: 'Send a `webhook.ping` event now',
    params: idParam,
    responses: { '202': ok(ref('schemas', 'WebhookDelivery'), 'Queued.'), '404': notFound },
    errors: [400, 403, 429, 503],
  },
  rotateWebhookSecret: {
    method: 'POST',
    path: '/api/webhooks/{id}/actions/rotate-secret',
    auth: 'user',
    summary: 'A new signing secret; the previous one also signs during WEBHOOKS_ROTATION_OVERLAP_S',
    params: idParam,
    responses: { '200': ok(W, 'The webhook with its new `secret`, shown this once.'), '404': notFound },
    errors: [403, 429, 503],
  },
  listWebhookDeliveries: {
    method: 'GET',
    path: '/api/webhooks/{id}/deliveries',
    list: true,
    auth: 'user',
    summary: 'Delivery log: status, attempts, response code, latency, a prefix of the response',
    params: idParam,
    parameters: listParams,
    responses: { '200': ok(ref('schemas', 'WebhookDeliveryList')), '404': notFound },
    errors: [400, 403, 429, 503],
  },
  redeliverWebhookDelivery: {
    method: 'POST',
    path: '/api/webhooks/{id}/deliveries/{delivery_id}/actions/redeliver',
    auth: 'user',
    summary: 'Deliver a finished delivery again (same `webhook-id`)',
    params: { ...idParam, delivery_id: { schema: { type: 'string', format: 'uuid' } } },
    responses: {
      '202': ok(ref('schemas', 'WebhookDelivery'), 'Queued.'),
      '404': err('Unknown webhook or delivery.'),
      '409': err('Still in progress.'),
    },
    errors: [403, 429, 503],
  },
});

const delivery: Json = {
  type: 'object',
  required: ['id', 'webhook_id', 'event_type', 'status', 'attempts', 'created'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    webhook_id: { type: 'string', description: 'The `webhook-id` header of every attempt (`msg_…`).' },
    event_id: { type: 'string' },
    event_type: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'delivering', 'succeeded', 'failed', 'skipped'] },
    attempts: { type: 'integer' },
    next_attempt_at: { type: ['string', 'null'], format: 'date-time' },
    response_status: { type: ['integer', 'null'] },
    response_body_prefix: { type: ['string', 'null'], description: 'At most 1 KiB of the last answer.' },
    latency_ms: { type: ['integer', 'null'] },
    error: { type: ['string', 'null'] },
    created: { type: 'string', format: 'date-time' },
    updated: { type: 'string', format: 'date-time' },
  },
};
const list = (item: Json): Json => ({
  type: 'object',
  required: ['hits', 'links'],
  properties: {
    hits: { type: 'object', properties: { hits: { type: 'array', items: item }, total: { type: 'integer' } } },
    links: { type: 'object' },
  },
});

/** The webhooks service's HTTP surface. */
export const API = defineApi({
  service: 'webhooks',
  tables: [WEBHOOK_ROUTES],
  components: {
    schemas: {
      Webhook: {
        type: 'object',
        required: ['id', 'url', 'events', 'scope', 'active', 'created', 'updated', 'links'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          url: { type: 'string' },
          events: { type: 'array', items: { type: 'string' } },
          scope: write.properties.scope as Json,
          description: { type: 'string' },
          active: { type: 'boolean' },
          disabled_reason: { type: ['string', 'null'] },
          consecutive_failures: { type: 'integer' },
          owner: { type: 'object', properties: { user: { type: 'string' } } },
          secret: { type: 'string', description: 'Only in the answers of create and rotate-secret.' },
          revision_id: { type: 'integer' },
          created: { type: 'string', format: 'date-time' },
          updated: { type: 'string', format: 'date-time' },
          links: { type: 'object', additionalProperties: { type: 'string' } },
        },
      },
      WebhookList: list(ref('schemas', 'Webhook')),
      WebhookDelivery: delivery,
      WebhookDeliveryList: list(ref('schemas', 'WebhookDelivery')),
    },
  },
});
