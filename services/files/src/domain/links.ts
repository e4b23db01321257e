/** Absolute links of file lists and entries, built from PUBLIC_BASE_URL. */
import type { FilesKind, FilesScope } from './authorizer.js';
import { encodeKeyPath } from './keys.js';

/** Path segment of a bucket kind: `files` or `media-files`. */
export const kindSegment = (kind: FilesKind = 'files') => (kind === 'media' ? 'media-files' : 'files');

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

  /** `{self, content, commit?}` of one entry (`commit` only on drafts). */
  entry(recordId: string, scope: FilesScope, key: string, kind: FilesKind = 'files'): Record<string, string> {
    const self = `${this.prefix(recordId, scope)}/${kindSegment(kind)}/${encodeKeyPath(key)}`;
    return scope === 'draft' ? { self, content: `${self}/content`, commit: `${self}/commit` } : { self, content: `${self}/content` };
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
