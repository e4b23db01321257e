/**
 * IIIF Presentation documents of a record or draft, as InvenioRDM 14 serves them: the 2.1
 * manifest (`/api/iiif/<scope>:<id>/manifest`), its one sequence (`/sequence/default`) and a
 * canvas per image file (`/canvas/<key>`), each canvas painted by the image's Image API 2.1
 * service; and the same manifest in Presentation 3.0, chosen by
 * `Accept: application/ld+json;profile="http://iiif.io/api/presentation/3/context.json"`.
 * Label and metadata from the record (title, description, publication date, creators, licence).
 *
 * When to use: http/iiif.routes.ts, with `IiifService.manifestData`'s images. Pure builders.
 */
import type { BucketGrant } from '../domain/authorizer.js';
import type { ManifestImage } from './iiif.service.js';

/** Presentation 2 context. */
export const PRESENTATION_2_CONTEXT = 'http://iiif.io/api/presentation/2/context.json';
/** Presentation 3 context (also the `profile` of the Accept header asking for it). */
export const PRESENTATION_3_CONTEXT = 'http://iiif.io/api/presentation/3/context.json';
/** Image API 2 context. */
export const IMAGE_2_CONTEXT = 'http://iiif.io/api/image/2/context.json';
/** The compliance level served. */
export const IMAGE_2_LEVEL2 = 'http://iiif.io/api/image/2/level2.json';

/** What the documents are about. */
export interface PresentationSubject {
  scope: 'record' | 'draft';
  recordId: string;
  /** PUBLIC_BASE_URL, no trailing slash. */
  baseUrl: string;
  metadata: NonNullable<BucketGrant['metadata']>;
  images: ManifestImage[];
  /**
   * The secret-link token the document was read with: every URL of it carries it (documents and
   * canvases as `?token=`, image services as the identifier's `;token=` suffix, which survives
   * the paths viewers append), so a viewer given the manifest can load the images.
   */
  token?: string;
}

const enc = encodeURIComponent;
type Json = Record<string, unknown>;

/** The links of a record's IIIF documents and of one of its images (with the reader's token, if any). */
export function iiifLinks(s: Pick<PresentationSubject, 'scope' | 'recordId' | 'baseUrl' | 'token'>) {
  const root = `${s.baseUrl}/api/iiif`;
  const item = `${root}/${s.scope}:${enc(s.recordId)}`;
  const q = s.token ? `?token=${enc(s.token)}` : '';
  const image = (key: string) => `${item}:${enc(key)}${s.token ? `;token=${s.token}` : ''}`;
  return {
    manifest: `${item}/manifest${q}`,
    sequence: `${item}/sequence/default${q}`,
    canvas: (key: string) => `${item}/canvas/${enc(key)}${q}`,
    annotation: (key: string) => `${item}/canvas/${enc(key)}${q}#painting`,
    imageBase: image,
    imageFull: (key: string) => `${image(key)}/full/full/0/default.png`,
  };
}

function licenceOf(m: PresentationSubject['metadata']): string | undefined {
  for (const r of m.rights ?? []) {
    const link = (r as Json).link ?? ((r as Json).props as Json | undefined)?.url;
    if (typeof link === 'string' && /^https?:\/\//.test(link)) return link;
  }
  return undefined;
}

function metadataPairs(m: PresentationSubject['metadata']): { label: string; value: string }[] {
  const out: { label: string; value: string }[] = [];
  if (m.publication_date) out.push({ label: 'Publication Date', value: m.publication_date });
  const names = (m.creators ?? []).map((c) => String((c as Json).name ?? '')).filter(Boolean);
  if (names.length > 0) out.push({ label: 'Creators', value: names.join('; ') });
  return out;
}

/** A 2.1 canvas of one image (with `@context` when served on its own). */
export function canvasV2(s: PresentationSubject, img: ManifestImage, standalone = false): Json {
  const l = iiifLinks(s);
  const { key } = img.file;
  return {
    ...(standalone ? { '@context': PRESENTATION_2_CONTEXT } : {}),
    '@id': l.canvas(key),
    '@type': 'sc:Canvas',
    label: key,
    height: img.dims.height,
    width: img.dims.width,
    images: [
      {
        '@context': PRESENTATION_2_CONTEXT,
        '@id': l.annotation(key),
        '@type': 'oa:Annotation',
        motivation: 'sc:painting',
        resource: {
          '@id': l.imageFull(key),
          '@type': 'dctypes:Image',
          format: 'image/png',
          width: img.dims.width,
          height: img.dims.height,
          service: { '@context': IMAGE_2_CONTEXT, '@id': l.imageBase(key), profile: IMAGE_2_LEVEL2 },
        },
        on: l.canvas(key),
      },
    ],
  };
}

/** The 2.1 sequence (`standalone`: served on its own, with `@context`). */
export function sequenceV2(s: PresentationSubject, standalone = false): Json {
  return {
    ...(standalone ? { '@context': PRESENTATION_2_CONTEXT } : {}),
    '@id': iiifLinks(s).sequence,
    '@type': 'sc:Sequence',
    label: 'Current Page Order',
    viewingDirection: 'left-to-right',
    viewingHint: 'paged',
    canvases: s.images.map((img) => canvasV2(s, img)),
  };
}

/** The 2.1 manifest (InvenioRDM's shape). */
export function manifestV2(s: PresentationSubject): Json {
  const licence = licenceOf(s.metadata);
  return {
    '@context': PRESENTATION_2_CONTEXT,
    '@type': 'sc:Manifest',
    '@id': iiifLinks(s).manifest,
    label: s.metadata.title ?? s.recordId,
    metadata: metadataPairs(s.metadata),
    description: s.metadata.description ?? 'Manifest generated by InvenioRDM',
    ...(licence ? { license: licence } : {}),
    sequences: [sequenceV2(s)],
  };
}

/** The 3.0 manifest (same canvases, Image API 2 services). */
export function manifestV3(s: PresentationSubject): Json {
  const l = iiifLinks(s);
  const licence = licenceOf(s.metadata);
  return {
    '@context': PRESENTATION_3_CONTEXT,
    id: l.manifest,
    type: 'Manifest',
    label: { none: [s.metadata.title ?? s.recordId] },
    metadata: metadataPairs(s.metadata).map((p) => ({ label: { en: [p.label] }, value: { none: [p.value] } })),
    ...(s.metadata.description ? { summary: { none: [s.metadata.description] } } : {}),
    ...(licence ? { rights: licence } : {}),
    items: s.images.map((img) => {
      const { key } = img.file;
      const canvas = l.canvas(key);
      return {
        id: canvas,
        type: 'Canvas',
        label: { none: [key] },
        width: img.dims.width,
        height: img.dims.height,
        items: [
          {
            id: `${canvas}#page`,
            type: 'AnnotationPage',
            items: [
              {
                id: l.annotation(key),
                type: 'Annotation',
                motivation: 'painting',
                target: canvas,
                body: {
                  id: l.imageFull(key),
                  type: 'Image',
                  format: 'image/png',
                  width: img.dims.width,
                  height: img.dims.height,
                  service: [{ '@id': l.imageBase(key), '@type': 'ImageService2', profile: 'level2' }],
                },
              },
            ],
          },
        ],
      };
    }),
  };
}

/** Whether an Accept header asks for Presentation 3.0. */
export function wantsPresentation3(accept: string | undefined): boolean {
  return !!accept && accept.includes(PRESENTATION_3_CONTEXT);
}
