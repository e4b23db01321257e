/**
 * IIIF identifiers as InvenioRDM 14 builds them: `record:<id>` / `draft:<id>` (a record's or
 * draft's manifest, sequence and canvases) and `record:<id>:<key>` / `draft:<id>:<key>` (one
 * image file; the key may itself contain `:` and is percent-encoded in the path).
 *
 * A secret-link token may ride on the identifier segment as `;token=<token>` (`record:<id>:<key>;token=…`):
 * IIIF viewers build image URLs by appending `/region/size/…` to an image service's `@id`, so a
 * `?token=` there would be lost (or swallowed into the query); manifests read with a token name
 * their image services so (presentation.ts). Our links percent-encode `;` in keys, so the suffix is
 * unambiguous for them.
 *
 * When to use: every `/api/iiif/<identifier>/…` route parses its identifier segment here.
 */
import { AppError } from '@rdm/platform';
import { decodeKeyPath } from '../domain/keys.js';

/** A parsed identifier. */
export interface IiifIdentifier {
  scope: 'record' | 'draft';
  recordId: string;
  /** The image file's key (absent for a record/draft identifier). */
  key?: string;
  /** A secret-link token given as the segment's `;token=` suffix. */
  token?: string;
}

const TOKEN_SUFFIX = /;token=([A-Za-z0-9._~-]{1,2048})$/;

/** 404 of an identifier that names nothing. */
export function unknownIdentifier(raw: string): AppError {
  return new AppError('not_found', 404, `No IIIF resource '${raw}'.`);
}

/** Parse the raw (still percent-encoded) identifier segment of a path. */
export function parseIdentifier(rawSegment: string): IiifIdentifier {
  const suffix = TOKEN_SUFFIX.exec(rawSegment);
  if (suffix) return { ...parseIdentifier(rawSegment.slice(0, suffix.index)), token: suffix[1] };
  const raw = decodeKeyPath(rawSegment);
  if (raw === null) throw unknownIdentifier(rawSegment);
  const m = /^(record|draft):([^:/]+)(?::(.+))?$/s.exec(raw);
  if (!m) throw unknownIdentifier(raw);
  const [, scope, recordId, key] = m;
  return { scope: scope as 'record' | 'draft', recordId, ...(key !== undefined ? { key } : {}) };
}

/** The identifier segment of `id` for links (the key percent-encoded once, as records' links do; the token as `;token=`). */
export function identifierSegment(id: IiifIdentifier): string {
  const base = `${id.scope}:${encodeURIComponent(id.recordId)}`;
  const seg = id.key === undefined ? base : `${base}:${encodeURIComponent(id.key)}`;
  return id.token ? `${seg};token=${id.token}` : seg;
}

/** Whether `token` can ride on an identifier segment (`;token=`): secret-link tokens can. */
export function isLinkToken(token: string): boolean {
  return /^[A-Za-z0-9._~-]{1,2048}$/.test(token);
}
