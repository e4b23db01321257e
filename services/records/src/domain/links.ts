/**
 * Absolute `links` of drafts, records and lists, built from PUBLIC_BASE_URL exactly as
 * InvenioRDM's `links_item` templates (reference §2.1), including the targets of features
 * served elsewhere or later (access links/grants/users, communities, requests, IIIF, media files).
 */

/** What link building needs to know about an item. */
export interface LinkSubject {
  id: string;
  kind: 'draft' | 'record';
  parentId: string;
  doi?: string | null;
  parentDoi?: string | null;
  /** File keys of the item (for thumbnails). */
  fileKeys?: string[];
  defaultPreview?: string | null;
  /** The draft has a review request (adds `submit-review`). */
  hasReview?: boolean;
  /** The caller may ask for the record's deletion (its owner: adds `request_deletion`). */
  mayRequestDeletion?: boolean;
  /** The caller may ask to modify the record's files (its owner: adds `file_modification`). */
  mayRequestFileModification?: boolean;
  /** The caller may ask for a larger quota (the owner: adds `quota_increase`). */
  mayRequestQuota?: boolean;
}

/** Link building configuration. */
export interface LinkConfig {
  /** PUBLIC_BASE_URL, no trailing slash. */
  baseUrl: string;
  /** DOI resolver base (default https://doi.org). */
  doiResolverUrl?: string;
}

/** Image extensions with IIIF support (IIIF_FORMATS). */
export const IIIF_FORMATS = ['gif', 'jp2', 'jpeg', 'jpg', 'png', 'tif', 'tiff'];
/** Thumbnail sizes (APP_RDM_RECORD_THUMBNAIL_SIZES). */
export const THUMBNAIL_SIZES = [10, 50, 100, 250, 750, 1200];

const enc = encodeURIComponent;
const extOf = (key: string) => {
  const i = key.lastIndexOf('.');
  return i >= 0 ? key.slice(i + 1).toLowerCase() : '';
};

/** Encode a file key for a path: segments kept, each encoded. */
export function encodeKey(key: string): string {
  return key.split('/').map(enc).join('/');
}

/** `links` of one draft or record. */
export function itemLinks(s: LinkSubject, cfg: LinkConfig): Record<string, unknown> {
  const api = `${cfg.baseUrl}/api`;
  const base = cfg.baseUrl;
  const id = enc(s.id);
  const rec = `${api}/records/${id}`;
  const resolver = (cfg.doiResolverUrl ?? 'https://doi.org').replace(/\/$/, '');
  const isRecord = s.kind === 'record';
  const iiifKind = isRecord ? 'record' : 'draft';
  const links: Record<string, unknown> = {};

  links.self = isRecord ? rec : `${rec}/draft`;
  links.self_html = isRecord ? `${base}/records/${id}` : `${base}/uploads/${id}`;
  links.preview_html = `${base}/records/${id}?preview=1`;
  if (s.doi) {
    links.doi = `${resolver}/${s.doi}`;
    links.self_doi = `${resolver}/${s.doi}`;
    if (isRecord) links.self_doi_html = `${base}/doi/${s.doi}`;
  }
  links.reserve_doi = `${rec}/draft/pids/doi`;
  if (isRecord) {
    links.parent = `${api}/records/${enc(s.parentId)}`;
    links.parent_html = `${base}/records/${enc(s.parentId)}`;
  }
  if (s.parentDoi) {
    links.parent_doi = `${resolver}/${s.parentDoi}`;
    links.parent_doi_html = `${base}/doi/${s.parentDoi}`;
  }
  links.self_iiif_manifest = `${api}/iiif/${iiifKind}:${id}/manifest`;
  links.self_iiif_sequence = `${api}/iiif/${iiifKind}:${id}/sequence/default`;
  links.files = isRecord ? `${rec}/files` : `${rec}/draft/files`;
  links.media_files = isRecord ? `${rec}/media-files` : `${rec}/draft/media-files`;
  const keys = s.fileKeys ?? [];
  const thumbKey = [s.defaultPreview, ...keys].find((k): k is string => !!k && IIIF_FORMATS.includes(extOf(k)));
  if (thumbKey) {
    const thumbs: Record<string, string> = {};
    for (const size of THUMBNAIL_SIZES) {
      thumbs[String(size)] = `${api}/iiif/record:${id}:${enc(thumbKey)}/full/%5E${size},/0/default.jpg`;
    }
    links.thumbnails = thumbs;
  }
  links.archive = isRecord ? `${rec}/files-archive` : `${rec}/draft/files-archive`;
  links.archive_media = isRecord ? `${rec}/media-files-archive` : `${rec}/draft/media-files-archive`;
  if (isRecord) {
    links.latest = `${rec}/versions/latest`;
    links.latest_html = `${base}/records/${id}/latest`;
  }
  links.versions = `${rec}/versions`;
  if (isRecord) links.draft = `${rec}/draft`;
  if (!isRecord) {
    links.record = rec;
    links.record_html = `${base}/records/${id}`;
    links.publish = `${rec}/draft/actions/publish`;
    links.review = `${rec}/draft/review`;
    if (s.hasReview) links['submit-review'] = `${rec}/draft/actions/submit-review`;
  }
  links.access_links = `${rec}/access/links`;
  links.access_grants = `${rec}/access/grants`;
  links.access_users = `${rec}/access/users`;
  links.access_request = `${rec}/access/request`;
  links.access = `${rec}/access`;
  links.communities = `${rec}/communities`;
  links['communities-suggestions'] = `${rec}/communities-suggestions`;
  if (isRecord) {
    if (s.mayRequestDeletion) links.request_deletion = `${rec}/request-deletion`;
    if (s.mayRequestFileModification) links.file_modification = `${rec}/file-modification`;
  }
  if (s.mayRequestQuota) links.quota_increase = `${rec}/quota-increase`;
  links.requests = `${rec}/requests`;
  return links;
}

/**
 * Per-file links inside `files.entries` (and, with `media`, `media_files.entries`) of a record
 * read (`self`, `content`; image files of `files` also their IIIF links).
 */
export function fileEntryLinks(id: string, key: string, kind: 'draft' | 'record', cfg: LinkConfig, media = false): Record<string, string> {
  const root = `${cfg.baseUrl}/api/records/${enc(id)}${kind === 'draft' ? '/draft' : ''}/${media ? 'media-files' : 'files'}/${encodeKey(key)}`;
  const links: Record<string, string> = { self: root, content: `${root}/content` };
  if (kind === 'draft') links.commit = `${root}/commit`;
  if (!media && IIIF_FORMATS.includes(extOf(key))) {
    const uuid = `${kind}:${enc(id)}:${enc(key)}`;
    links.iiif_canvas = `${cfg.baseUrl}/api/iiif/${kind}:${enc(id)}/canvas/${enc(key)}`;
    links.iiif_base = `${cfg.baseUrl}/api/iiif/${uuid}`;
    links.iiif_info = `${cfg.baseUrl}/api/iiif/${uuid}/info.json`;
    links.iiif_api = `${cfg.baseUrl}/api/iiif/${uuid}/full/full/0/default.png`;
  }
  return links;
}

/** `links` of a draft's file list (`self`, `archive`). */
export function fileListLinks(id: string, kind: 'draft' | 'record', cfg: LinkConfig): Record<string, string> {
  const root = `${cfg.baseUrl}/api/records/${enc(id)}${kind === 'draft' ? '/draft' : ''}`;
  return { self: `${root}/files`, archive: `${root}/files-archive` };
}
