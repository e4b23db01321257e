/**
 * The public routing table, as data: every path the API serves, its methods and the service that
 * owns it (DESIGN §2). The gateway compiles it once (route-matcher.ts) to route requests, to answer
 * 404 for unknown paths and 405 (with `Allow`) for known paths called with a wrong method, and to
 * build the base OpenAPI document.
 *
 * Every service declares its routes (`src/http/routes.decl.ts`, the platform's route-table.ts);
 * `pnpm gen:contracts` generates them into routes.generated.ts. Only a route owned by no service's
 * table would be written here by hand (none today): ownership is all this file declares.
 *
 * When to edit: a service is added (SERVICES), or a public route no service declares. Keep patterns in spec form:
 * `{name}` is one path segment, `{name+}` one or more segments (file keys and vocabulary ids may
 * contain `/`). A path may match several patterns; the allowed methods are their union.
 */

import { GENERATED_ROUTES } from './routes.generated.js';

export { DECLARING_SERVICES } from './routes.generated.js';

/** The services behind the gateway. */
export const SERVICES = ['users', 'vocabularies', 'records', 'files', 'requests', 'communities', 'web', 'webhooks'] as const;
/** Name of one service. */
export type ServiceName = (typeof SERVICES)[number];

/** Methods a route can allow (HEAD follows GET; OPTIONS is answered by the gateway). */
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One public route. */
export interface RouteSpec {
  /** Path pattern, e.g. `/api/records/{id}/draft/files/{key+}/content`. */
  pattern: string;
  /** Methods served (the owning service is still the final judge). */
  methods: Method[];
  /** Owning service. */
  service: ServiceName;
  /** Raw-byte uploads (PUT/POST): no body limit at the gateway, no response-headers timeout. */
  upload?: boolean;
  /** GET is a search: documents `q`, `page`, `size`, `sort`. */
  list?: boolean;
  /** One-line description for the OpenAPI document. */
  summary?: string;
}

/**
 * Routes owned by no service's table: none today (every service declares its routes). A route the
 * gateway itself must route without a service declaring it would go here.
 */
const HAND_ROUTES: readonly RouteSpec[] = [];

/** Every public route of the API: the generated ones (routes.generated.ts), then the hand-written ones. */
export const ROUTES: readonly RouteSpec[] = [...GENERATED_ROUTES, ...HAND_ROUTES];
