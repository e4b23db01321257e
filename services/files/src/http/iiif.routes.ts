/**
 * HTTP handlers of the IIIF routes (declared in http/iiif.decl.ts): parse the identifier and
 * parameters from the raw path, call the image server (src/iiif/iiif.service.ts), serialise.
 * Every answer carries `Access-Control-Allow-Origin: *` (IIIF viewers live on other origins);
 * JSON documents are `application/ld+json` when asked for, else `application/json`.
 */
import { type AppContext, type AppState, bindRoutes, Errors, notModified, Router } from '@rdm/platform';
import type { FilesTarget } from '../domain/authorizer.js';
import { FilesErrors } from '../domain/errors.js';
import { decodeKeyPath } from '../domain/keys.js';
import { type IiifIdentifier, identifierSegment, isLinkToken, parseIdentifier, unknownIdentifier } from '../iiif/identifier.js';
import { bodyStream, type IiifService, isIiifImage } from '../iiif/iiif.service.js';
import { IIIF_OUTPUT_FORMATS, IIIF_QUALITIES, parseImageRequest } from '../iiif/params.js';
import {
  canvasV2,
  IMAGE_2_CONTEXT,
  IMAGE_2_LEVEL2,
  manifestV2,
  manifestV3,
  PRESENTATION_3_CONTEXT,
  type PresentationSubject,
  sequenceV2,
  wantsPresentation3,
} from '../iiif/presentation.js';
import { IIIF_ROUTES } from './iiif.decl.js';

/** Dependencies of the IIIF router. */
export interface IiifRoutesDeps {
  iiif: IiifService;
  /** PUBLIC_BASE_URL. */
  baseUrl: string;
}

/** Raw (percent-encoded) path segments after `/api/iiif/`. */
function segments(ctx: AppContext): string[] {
  return ctx.path.replace(/^\/api\/iiif\//, '').split('/');
}

/** The caller's secret-link token: `?token=` / `?access_token=`, else the identifier's `;token=` suffix. */
function tokenOf(ctx: AppContext, id: IiifIdentifier): string | undefined {
  const q = ctx.query;
  return typeof q.token === 'string' ? q.token : typeof q.access_token === 'string' ? q.access_token : id.token;
}

function targetOf(ctx: AppContext, id: IiifIdentifier): FilesTarget {
  const token = tokenOf(ctx, id);
  return { identity: ctx.state.identity, recordId: id.recordId, scope: id.scope, ...(token ? { token } : {}) };
}

/** The identifier of an image route (a key is required). */
function imageIdentifier(ctx: AppContext): IiifIdentifier & { key: string } {
  const raw = segments(ctx)[0];
  const id = parseIdentifier(raw);
  if (id.key === undefined) throw unknownIdentifier(decodeKeyPath(raw) ?? raw);
  return id as IiifIdentifier & { key: string };
}

/** The identifier of a presentation route (no key). */
function itemIdentifier(ctx: AppContext): IiifIdentifier {
  const raw = segments(ctx)[0];
  const id = parseIdentifier(raw);
  if (id.key !== undefined) throw unknownIdentifier(decodeKeyPath(raw) ?? raw);
  return id;
}

function sendJson(ctx: AppContext, body: unknown, profile?: string): void {
  const ld = /application\/ld\+json/i.test(ctx.get('accept'));
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.body = body;
  // Why after the body: koa sets `application/json` whenever the body is an object.
  ctx.type = ld ? `application/ld+json${profile ? `;profile="${profile}"` : ''}` : 'application/json';
}

/** An image service's `@id`; with a token, carried as `;token=` so that viewers' appended paths keep it. */
const imageBaseUrl = (baseUrl: string, id: IiifIdentifier & { key: string }, token?: string) =>
  `${baseUrl}/api/iiif/${identifierSegment({ scope: id.scope, recordId: id.recordId, key: id.key, ...(token && isLinkToken(token) ? { token } : {}) })}`;

/** info.json of an image (Image API 2.1, level 2). */
export function infoJson(base: string, width: number, height: number, limits: { maxWidth: number; maxHeight: number; maxArea: number }) {
  const sizes: { width: number; height: number }[] = [];
  const scaleFactors: number[] = [];
  for (let f = 1; f <= 64; f *= 2) {
    const w = Math.ceil(width / f);
    const h = Math.ceil(height / f);
    if (f > 1 && (w < 1 || h < 1)) break;
    scaleFactors.push(f);
    if (w <= limits.maxWidth && h <= limits.maxHeight && w * h <= limits.maxArea) sizes.unshift({ width: w, height: h });
    if (w <= 256 && h <= 256) break;
  }
  return {
    '@context': IMAGE_2_CONTEXT,
    '@id': base,
    protocol: 'http://iiif.io/api/image',
    width,
    height,
    sizes,
    tiles: [{ width: 256, scaleFactors }],
    profile: [
      IMAGE_2_LEVEL2,
      {
        formats: Object.keys(IIIF_OUTPUT_FORMATS),
        qualities: [...IIIF_QUALITIES],
        supports: [
          'baseUriRedirect',
          'cors',
          'jsonldMediaType',
          'mirroring',
          'profileLinkHeader',
          'regionByPct',
          'regionByPx',
          'regionSquare',
          'rotationArbitrary',
          'rotationBy90s',
          'sizeAboveFull',
          'sizeByConfinedWh',
          'sizeByDistortedWh',
          'sizeByH',
          'sizeByPct',
          'sizeByW',
          'sizeByWh',
        ],
        maxWidth: limits.maxWidth,
        maxHeight: limits.maxHeight,
        maxArea: limits.maxArea,
      },
    ],
  };
}

/** Build the router of the IIIF routes. */
export function iiifRouter({ iiif, baseUrl }: IiifRoutesDeps): Router<AppState> {
  const router = new Router<AppState>();
  const base = baseUrl.replace(/\/+$/, '');
  const profileLink = `<${IMAGE_2_LEVEL2}>;rel="profile"`;

  const subject = async (ctx: AppContext): Promise<PresentationSubject> => {
    const id = itemIdentifier(ctx);
    const token = tokenOf(ctx, id);
    const { grant, images } = await iiif.manifestData(targetOf(ctx, id));
    return {
      scope: id.scope,
      recordId: id.recordId,
      baseUrl: base,
      metadata: grant.metadata ?? {},
      images,
      ...(token && isLinkToken(token) ? { token } : {}),
    };
  };

  bindRoutes(
    IIIF_ROUTES,
    {
      iiifInfo: async (ctx) => {
        const id = imageIdentifier(ctx);
        const dims = await iiif.info(targetOf(ctx, id), id.key);
        ctx.set('Link', profileLink);
        sendJson(ctx, infoJson(imageBaseUrl(base, id, tokenOf(ctx, id)), dims.width, dims.height, iiif.limits));
      },
      iiifManifest: async (ctx) => {
        const s = await subject(ctx);
        if (wantsPresentation3(ctx.get('accept'))) sendJson(ctx, manifestV3(s), PRESENTATION_3_CONTEXT);
        else sendJson(ctx, manifestV2(s));
      },
      iiifSequence: async (ctx) => {
        sendJson(ctx, sequenceV2(await subject(ctx), true));
      },
      iiifCanvas: async (ctx) => {
        const rawKey = segments(ctx).slice(2).join('/');
        const key = decodeKeyPath(rawKey);
        if (key === null) throw FilesErrors.invalidKey('File key is not valid percent-encoding.');
        const s = await subject(ctx);
        const img = s.images.find((i) => i.file.key === key);
        if (!img) {
          // An image the manifest left out (unreadable, too large) answers as its info.json does (422), not 404.
          if (isIiifImage(key)) await iiif.info(targetOf(ctx, itemIdentifier(ctx)), key);
          throw FilesErrors.fileKeyNotFound(s.recordId, key);
        }
        sendJson(ctx, canvasV2(s, img, true));
      },
      iiifImage: async (ctx) => {
        const id = imageIdentifier(ctx);
        const seg = segments(ctx)
          .slice(1)
          .map((s) => decodeKeyPath(s));
        if (seg.length !== 4 || seg.some((s) => s === null)) throw Errors.routeNotFound();
        const [region, size, rotation, qf] = seg as string[];
        const req = parseImageRequest(region, size, rotation, qf);
        const out = await iiif.image(targetOf(ctx, id), id.key, req);
        ctx.set('Access-Control-Allow-Origin', '*');
        ctx.set('Link', profileLink);
        if (notModified(ctx, out.etag)) {
          if (!Buffer.isBuffer(out.body)) out.body.destroy();
          return;
        }
        ctx.set('Content-Length', String(out.size));
        ctx.set('X-Content-Type-Options', 'nosniff');
        ctx.set('X-IIIF-Cache', out.cached ? 'hit' : 'miss');
        ctx.type = out.mediaType;
        ctx.body = bodyStream(out.body);
      },
      iiifBase: async (ctx) => {
        const id = imageIdentifier(ctx);
        // Why the same access check as info.json: the redirect must not reveal what a download would not.
        await iiif.info(targetOf(ctx, id), id.key);
        const qs = ctx.querystring ? `?${ctx.querystring}` : '';
        ctx.set('Access-Control-Allow-Origin', '*');
        ctx.status = 303;
        ctx.redirect(`${imageBaseUrl(base, id, id.token)}/info.json${qs}`);
        ctx.status = 303;
      },
    },
    router,
  );
  return router;
}
