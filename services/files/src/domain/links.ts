/** Absolute links of file lists and entries, built from PUBLIC_BASE_URL. */
import type { FilesKind, FilesScope } from './authorizer.js';
import { encodeKeyPath, keyExtension } from './keys.js';

/** Path segment of a bucket kind: `files` or `media-files`. */
export const kindSegment = (kind: FilesKind = 'files') => (kind === 'media' ? 'media-files' : 'files');

/** Extensions of the files that get IIIF links (records' `IIIF_FORMATS`: what the image server reads). */
export const IIIF_EXTENSIONS = ['gif', 'jp2', 'jpeg', 'jpg', 'png', 'tif', 'tiff'];

/** Whether `key` names an image the IIIF server serves (by extension, as records' links decide). */
export function isIiifImage(key: string): boolean {
  return IIIF_EXTENSIONS.includes(keyExtension(key) ?? '');
}

/** Link builder bound to the public base URL. */
export class FileLinks {
  private readonly base: string;
  /**
   * `multipartTtlMs`: how long a multipart upload lives (FILES_UPLOAD_STALE_MS), the `expiration`
   * of its part links.
   */
  constructor(
    publicBaseUrl: string,
    private readonly multipartTtlMs = 24 * 3600 * 1000,
  ) {
    this.base = publicBaseUrl.replace(/\/+$/, '');
  }

  /**
   * FAIR signposting (level 1) of a published file's content: `collection` → the record's landing
   * page, `linkset` → the record's linkset (records serves it: `Accept: application/linkset+json`).
   */
  signposting(recordId: string): string {
    const id = encodeURIComponent(recordId);
    return [
      `<${this.base}/records/${id}> ; rel="collection" ; type="text/html"`,
      `<${this.base}/api/records/${id}> ; rel="linkset" ; type="application/linkset+json"`,
    ].join(' , ');
  }

  private prefix(recordId: string, scope: FilesScope): string {
    return `${this.base}/api/records/${encodeURIComponent(recordId)}${scope === 'draft' ? '/draft' : ''}`;
  }

  /** `{self, archive}` of a file list. */
  list(recordId: string, scope: FilesScope, kind: FilesKind = 'files'): { self: string; archive: string } {
    const p = this.prefix(recordId, scope);
    const seg = kindSegment(kind);
    return { self: `${p}/${seg}`, archive: `${p}/${seg}-archive` };
  }

  /**
   * `{self, content, commit?}` of one entry (`commit` only on drafts), and for an image of the
   * files bucket InvenioRDM 14's IIIF links (its `FileLinks`: `iiif_canvas`, `iiif_base`,
   * `iiif_info`, `iiif_api`; identifiers `record:<id>:<key>` / `draft:<id>:<key>`), as records'
   * `files.entries` carry them.
   */
  entry(recordId: string, scope: FilesScope, key: string, kind: FilesKind = 'files'): Record<string, string> {
    const self = `${this.prefix(recordId, scope)}/${kindSegment(kind)}/${encodeKeyPath(key)}`;
    const out: Record<string, string> =
      scope === 'draft' ? { self, content: `${self}/content`, commit: `${self}/commit` } : { self, content: `${self}/content` };
    if (kind === 'files' && isIiifImage(key)) {
      const item = `${this.base}/api/iiif/${scope}:${encodeURIComponent(recordId)}`;
      const image = `${item}:${encodeURIComponent(key)}`;
      out.iiif_canvas = `${item}/canvas/${encodeURIComponent(key)}`;
      out.iiif_base = image;
      out.iiif_info = `${image}/info.json`;
      out.iiif_api = `${image}/full/full/0/default.png`;
    }
    return out;
  }

  /**
   * Part upload links of a pending multipart entry (InvenioRDM's `links.parts`): our own
   * `PUT …/content/<part>` through the gateway, valid until the upload is swept.
   */
  parts(entrySelf: string, parts: number, created: string): { part: number; url: string; expiration: string }[] {
    const started = Date.parse(created.replace(/(\.\d{3})\d+/, '$1'));
    const expiration = new Date((Number.isNaN(started) ? Date.now() : started) + this.multipartTtlMs).toISOString();
    return Array.from({ length: parts }, (_, i) => ({ part: i + 1, url: `${entrySelf}/content/${i + 1}`, expiration }));
  }
}
