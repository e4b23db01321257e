/**
 * The single point where the interoperability code meets the records domain: it reads a published
 * record through the service's public `readRecord` (same permission checks, 403/404/410 and
 * parent-id redirect as `GET /api/records/<id>`) and renders it with `serializeItem` for the
 * caller, so an export shows exactly what the JSON read shows that caller (restricted files'
 * names and details are already stripped there). If the domain files move, only this file changes.
 */
import { ANONYMOUS, type Identity } from '@rdm/platform';
import type { ItemDoc } from '../domain/model.js';
import { serializeItem } from '../domain/serializers.js';
import type { RecordJson } from './util.js';

/** What the exports need of the records service (structurally `RecordsService`). */
export interface PublishedRecordReader {
  readRecord(identity: Identity, id: string): Promise<{ kind: 'draft' | 'record'; doc: ItemDoc } | { redirect: string }>;
}

/** Rendering options of the JSON read form. */
export interface ReadOptions {
  baseUrl: string;
  doiResolverUrl: string;
}

/** The record JSON as `identity` may see it, or the redirect of a parent id. */
export async function readPublishedJson(
  reader: PublishedRecordReader,
  identity: Identity,
  id: string,
  o: ReadOptions,
): Promise<{ record: RecordJson } | { redirect: string }> {
  const view = await reader.readRecord(identity, id);
  if ('redirect' in view) return { redirect: view.redirect };
  return {
    record: serializeItem(view.doc, { baseUrl: o.baseUrl, identity, kind: 'record', doiResolverUrl: o.doiResolverUrl }) as RecordJson,
  };
}

/** The public (anonymous) JSON of a stored record document (OAI-PMH renders search documents). */
export function publicJsonOfDoc(doc: ItemDoc, o: ReadOptions): RecordJson {
  return serializeItem(doc, { baseUrl: o.baseUrl, identity: ANONYMOUS, kind: 'record', doiResolverUrl: o.doiResolverUrl }) as RecordJson;
}
