/**
 * IIIF identifiers as InvenioRDM 14 builds them: `record:<id>` / `draft:<id>` (a record's or
 * draft's manifest, sequence and canvases) and `record:<id>:<key>` / `draft:<id>:<key>` (one
 * image file; the key may itself contain `:` and is percent-encoded in the path).
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
}

/** 404 of an identifier that names nothing. */
export function unknownIdentifier(raw: string): AppError {
  return new AppError('not_found', 404, `No IIIF resource '${raw}'.`);
}

/** Parse the raw (still percent-encoded) identifier segment of a path. */
export function parseIdentifier(rawSegment: string): IiifIdentifier {
  const raw = decodeKeyPath(rawSegment);
  if (raw === null) throw unknownIdentifier(rawSegment);
  const m = /^(record|draft):([^:/]+)(?::(.+))?$/s.exec(raw);
  if (!m) throw unknownIdentifier(raw);
  const [, scope, recordId, key] = m;
  return { scope: scope as 'record' | 'draft', recordId, ...(key !== undefined ? { key } : {}) };
}

/** The identifier segment of `id` for links (the key percent-encoded once, as records' links do). */
export function identifierSegment(id: IiifIdentifier): string {
  const base = `${id.scope}:${encodeURIComponent(id.recordId)}`;
  return id.key === undefined ? base : `${base}:${encodeURIComponent(id.key)}`;
}
