/**
 * The IIIF routes of the files service, declared once (router, OpenAPI fragment, gateway routes):
 * InvenioRDM 14's `/api/iiif/…` paths — Image API 2.1 (image requests, `info.json`, the base URI's
 * redirect) on `record:<id>:<key>` / `draft:<id>:<key>`, Presentation manifests, sequence and
 * canvases on `record:<id>` / `draft:<id>`. Handlers in http/iiif.routes.ts.
 *
 * When to edit: an IIIF route or its documented answers change. Only the platform may be
 * imported here (the contracts generator imports this file through routes.decl.ts).
 */
import { defineRoutes, type Json, json, rate, ref, schemaRef } from '@rdm/platform';

const error = (description: string) => ({ description, content: json(schemaRef('Error')) });
const E: Record<string, Json> = {
  '400': error(
    'A malformed IIIF parameter (region, size, rotation, quality or format), a size over the limits of `info.json`, or a NUL / bad encoding in the path.',
  ),
  '401': ref('responses', 'InvalidToken'),
  '403': error('The caller may not read the files (as the file download answers).'),
  '404': error('Unknown identifier, record, draft or file key (as the file download answers).'),
  '410': error('The record has been deleted.'),
  '415': error('The file is not an image this server reads.'),
  '422': error('The image is too large to process (`FILES_IIIF_MAX_PIXELS`, `FILES_IIIF_MAX_INPUT_BYTES`).'),
  '429': ref('responses', 'TooManyRequests'),
  '503': ref('responses', 'ServiceUnavailable'),
};
const errors = (...codes: string[]): Json =>
  Object.fromEntries([...new Set(['400', '401', '403', '404', '410', '429', '503', ...codes])].sort().map((c) => [c, E[c]]));

const TAGS = ['iiif'];
const tokenParam = { name: 'token', in: 'query', schema: { type: 'string' }, description: 'Secret link token (as for a file download).' };
const imageId = {
  uuid: { description: '`record:<id>:<key>` or `draft:<id>:<key>` (the key percent-encoded).', schema: { type: 'string' } },
};
const itemId = { uuid: { description: '`record:<id>` or `draft:<id>`.', schema: { type: 'string' } } };
const ldJson = (description: string) => ({
  description,
  headers: rate,
  content: { 'application/ld+json': { schema: { type: 'object' } }, 'application/json': { schema: { type: 'object' } } },
});
const I = '/api/iiif/{uuid}';

/** The IIIF routes, in koa match order. */
export const IIIF_ROUTES = defineRoutes({
  iiifInfo: {
    method: 'GET',
    path: `${I}/info.json`,
    summary: 'IIIF Image API 2.1 image information',
    description:
      'Level 2: `profile` with formats jpg/png/webp/tif, qualities default/color/gray/bitonal, `maxWidth`/`maxHeight`/`maxArea`; `sizes` and 256-pixel `tiles`. `Accept: application/ld+json` gets that media type.',
    tags: TAGS,
    params: imageId,
    parameters: [tokenParam],
    responses: { '200': ldJson('The image information.'), ...errors('415', '422') },
  },
  iiifManifest: {
    method: 'GET',
    path: `${I}/manifest`,
    summary: "IIIF Presentation manifest of a record's or draft's images",
    description:
      'Presentation 2.1 (InvenioRDM); Presentation 3.0 with `Accept: application/ld+json;profile="http://iiif.io/api/presentation/3/context.json"`. ' +
      "One canvas per committed image file, in the record's file order; needs the right to list the files.",
    tags: TAGS,
    params: itemId,
    parameters: [tokenParam],
    responses: { '200': ldJson('The manifest.'), ...errors() },
  },
  iiifSequence: {
    method: 'GET',
    path: `${I}/sequence/default`,
    summary: 'IIIF Presentation 2.1 default sequence',
    tags: TAGS,
    params: itemId,
    parameters: [tokenParam],
    responses: { '200': ldJson('The sequence.'), ...errors() },
  },
  iiifCanvas: {
    method: 'GET',
    path: `${I}/canvas/{key}`,
    summary: 'IIIF Presentation 2.1 canvas of one image file',
    tags: TAGS,
    params: { ...itemId, key: { description: 'File key (percent-encoded, `/` as `%2F`).', schema: { type: 'string' } } },
    parameters: [tokenParam],
    responses: { '200': ldJson('The canvas.'), ...errors('415', '422') },
  },
  iiifImage: {
    method: 'GET',
    path: `${I}/{region}/{size}/{rotation}/{quality_format}`,
    summary: 'IIIF Image API 2.1 image request',
    description:
      '`region` full, square, x,y,w,h, pct:x,y,w,h; `size` full, max, w,, ,h, pct:n, w,h, !w,h (a leading `^` is accepted); `rotation` 0–360, `!` mirrors; ' +
      '`{quality}.{format}` with default/color/gray/bitonal and jpg/png/webp/tif. Derivatives are cached by (file checksum, parameters).',
    tags: TAGS,
    params: {
      ...imageId,
      region: { schema: { type: 'string' } },
      size: { schema: { type: 'string' } },
      rotation: { schema: { type: 'string' } },
      quality_format: { schema: { type: 'string' }, description: '`{quality}.{format}`' },
    },
    parameters: [tokenParam],
    responses: {
      '200': {
        description: 'The image.',
        headers: rate,
        content: { 'image/jpeg': {}, 'image/png': {}, 'image/webp': {}, 'image/tiff': {} },
      },
      ...errors('415', '422'),
    },
  },
  iiifBase: {
    method: 'GET',
    path: I,
    summary: 'IIIF image base URI: redirects to its info.json',
    tags: TAGS,
    params: imageId,
    parameters: [tokenParam],
    responses: {
      '303': { description: 'See `<base>/info.json`.', headers: { Location: { schema: { type: 'string' } } } },
      ...errors(),
    },
  },
});
