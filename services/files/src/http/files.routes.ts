/**
 * HTTP routes of draft and record files (InvenioRDM records-resources FileResource):
 * parse the request, call one FilesService method, serialize.
 *
 * The same routes serve both buckets of a draft/record: `…/files…` and `…/media-files…`
 * (InvenioRDM's media files), the kind passed down to records' grant. File keys may contain `/`,
 * so key routes use a greedy pattern; the key is taken from the raw path and percent-decoded
 * here (koa-router would also turn `+` into a space). `PUT …/content/<n>` (digits) is a part of
 * a multipart transfer, matched before the key routes. Published records' files are read-only:
 * writes answer 405; published records' media-file writes go to records' grant (InvenioRDM's
 * default policy refuses them to everyone: 403). The routes, their order and their documentation
 * are declared in routes.decl.ts; this file binds a handler to each.
 */
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { PassThrough, type Readable, pipeline } from 'node:stream';
import { type AppContext, type AppState, bindRoutes, Errors, isAdmin, isSystem, jsonBody, notModified, Router } from '@rdm/platform';
import type { Archiver, ArchiverOptions } from 'archiver';
import type { FilesKind, FilesScope, FilesTarget } from '../domain/authorizer.js';
import { FilesErrors } from '../domain/errors.js';
import type { FilesService } from '../domain/files.service.js';
import { decodeKeyPath, keyBasename, keyProblem } from '../domain/keys.js';
import type { FileLinks } from '../domain/links.js';
import { guessMimetype, servedMimetype } from '../domain/mimetype.js';
import { contentDisposition } from './content-disposition.js';
import { parseRange, type RangeResult } from './range.js';
import { RequestBody } from './request-body.js';
import { FILE_ROUTES, IMPORT_ROUTES, MEDIA_FILE_ROUTES } from './routes.decl.js';
import { entryJson, listJson } from './serializers.js';

/** Dependencies of the files router. */
export interface FilesRoutesDeps {
  service: FilesService;
  links: FileLinks;
}

type ArchiverFactory = (format: 'zip', opts: ArchiverOptions) => Archiver;
let archiverFactory: ArchiverFactory | undefined;
/**
 * archiver, loaded on the first archive request. Why: it costs ~15 MB of RSS at import, which an
 * upload-only process should not pay; and it is CommonJS while @types/archiver describes v8's ESM
 * exports (same API).
 */
const archiver: ArchiverFactory = (format, opts) => {
  archiverFactory ??= createRequire(import.meta.url)('archiver') as ArchiverFactory;
  return archiverFactory(format, opts);
};

const KEY_PATH_RE = /^\/api\/records\/([^/]+)\/(?:draft\/)?(?:media-)?files\/(.+)$/;
const PART_SUFFIX_RE = /\/content\/(\d+)$/;

/** Record id and key of the request, from the raw path; `suffix` is the route's tail after the key. */
function pathParams(ctx: AppContext, suffix: '' | '/content' | '/commit' | '/content/<part>'): { recordId: string; key: string } {
  const m = KEY_PATH_RE.exec(ctx.path);
  if (!m) throw Errors.routeNotFound();
  const tail = suffix === '/content/<part>' ? (PART_SUFFIX_RE.exec(m[2])?.[0] ?? '') : suffix;
  const rawKey = tail ? m[2].slice(0, -tail.length) : m[2];
  const key = decodeKeyPath(rawKey);
  const recordId = decodeKeyPath(m[1]);
  if (key === null || recordId === null) throw FilesErrors.invalidKey('File key is not valid percent-encoding.');
  return { recordId, key };
}

function recordIdOf(ctx: AppContext): string {
  const m = /^\/api\/records\/([^/]+)\//.exec(ctx.path);
  const id = m ? decodeKeyPath(m[1]) : null;
  if (id === null) throw Errors.pidDoesNotExist();
  return id;
}

function target(ctx: AppContext, scope: FilesScope, recordId: string, kind: FilesKind): FilesTarget {
  // Why: `token` is InvenioRDM's secret-link parameter; the spec also shows `access_token`.
  const q = ctx.query;
  const token = typeof q.token === 'string' ? q.token : typeof q.access_token === 'string' ? q.access_token : undefined;
  return { identity: ctx.state.identity, recordId, scope, ...(kind === 'media' ? { kind } : {}), ...(token ? { token } : {}) };
}

/** Content-Length of an upload, when sent (400 when unreadable). */
function uploadLength(ctx: AppContext): number | undefined {
  const type = ctx.get('content-type');
  if (type && !/^application\/octet-stream\s*(;|$)/i.test(type)) throw FilesErrors.unsupportedUploadType();
  const raw = ctx.get('content-length');
  if (raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw Errors.badRequest('Invalid Content-Length header.');
  return n;
}

/**
 * Run an upload handler on the request body as a stream of its own (request-body.ts): a refusal,
 * before or during the body, is written on a connection left open; the service's HTTP server
 * then discards the rest of the body within bounds (platform http-bounds.ts). Why not
 * `Connection: close` as before: closing while the client still sends resets the connection, and
 * the reset destroyed the refusal on its way (behind the gateway: a 503).
 */
function guardUpload(run: (body: RequestBody) => Promise<void>, req: IncomingMessage): Promise<void> {
  const body = new RequestBody(req);
  return run(body).finally(() => {
    if (!body.destroyed) body.destroy();
  });
}

const SECURITY_HEADERS = {
  'Content-Security-Policy': "default-src 'none';",
  'X-Content-Type-Options': 'nosniff',
  'X-Download-Options': 'noopen',
  'X-Permitted-Cross-Domain-Policies': 'none',
  'X-Frame-Options': 'deny',
  'X-XSS-Protection': '1; mode=block',
};

const httpDate = (iso: string) => new Date(iso.replace(/(\.\d{3})\d+/, '$1')).toUTCString();

/** Build the router of every files route (files and media files, drafts and records), bound to the route table. */
export function filesRouter({ service, links }: FilesRoutesDeps): Router<AppState> {
  const router = new Router<AppState>();
  const f = handlersOf('files', service, links);
  const m = handlersOf('media', service, links);
  const methodNotAllowed = async () => {
    throw Errors.methodNotAllowed(['GET', 'HEAD']);
  };
  const refused = <const K extends string>(key: K) =>
    Object.fromEntries(['POST', 'PUT', 'PATCH', 'DELETE'].map((method) => [`${key}${method}`, methodNotAllowed])) as Record<
      `${K}${'POST' | 'PUT' | 'PATCH' | 'DELETE'}`,
      typeof methodNotAllowed
    >;
  bindRoutes(
    FILE_ROUTES,
    {
      listDraftFiles: f.list('draft'),
      downloadDraftFilesArchive: f.archive('draft'),
      downloadDraftFileContent: f.download('draft'),
      readDraftFile: f.read('draft'),
      initDraftFiles: f.init('draft'),
      deleteDraftFiles: f.removeAll('draft'),
      uploadDraftFilePart: f.uploadPart('draft'),
      uploadDraftFileContent: f.upload('draft'),
      commitDraftFile: f.commit('draft'),
      updateDraftFile: f.update('draft'),
      deleteDraftFile: f.remove('draft'),
      listRecordFiles: f.list('record'),
      downloadRecordFilesArchive: f.archive('record'),
      downloadRecordFileContent: f.download('record'),
      readRecordFile: f.read('record'),
      ...refused('refuseRecordFiles'),
      ...refused('refuseRecordFilesArchive'),
      ...refused('refuseRecordFile'),
    },
    router,
  );
  bindRoutes(
    MEDIA_FILE_ROUTES,
    {
      listDraftMediaFiles: m.list('draft'),
      downloadDraftMediaFilesArchive: m.archive('draft'),
      downloadDraftMediaFileContent: m.download('draft'),
      readDraftMediaFile: m.read('draft'),
      initDraftMediaFiles: m.init('draft'),
      deleteDraftMediaFiles: m.removeAll('draft'),
      uploadDraftMediaFilePart: m.uploadPart('draft'),
      uploadDraftMediaFileContent: m.upload('draft'),
      commitDraftMediaFile: m.commit('draft'),
      updateDraftMediaFile: m.update('draft'),
      deleteDraftMediaFile: m.remove('draft'),
      listRecordMediaFiles: m.list('record'),
      downloadRecordMediaFilesArchive: m.archive('record'),
      downloadRecordMediaFileContent: m.download('record'),
      readRecordMediaFile: m.read('record'),
      initRecordMediaFiles: m.init('record'),
      deleteRecordMediaFiles: m.removeAll('record'),
      uploadRecordMediaFilePart: m.uploadPart('record'),
      uploadRecordMediaFileContent: m.upload('record'),
      commitRecordMediaFile: m.commit('record'),
      updateRecordMediaFile: m.update('record'),
      deleteRecordMediaFile: m.remove('record'),
    },
    router,
  );
  bindRoutes(IMPORT_ROUTES, { importFile: importHandler(service) }, router);
  return router;
}

/** `PUT /internal/import/buckets/{bucket_id}/files/{key+}?checksum=md5:<hex>`: system or administrator only (domain/imports.ts). */
function importHandler(service: FilesService) {
  return (ctx: AppContext) =>
    guardUpload(async (req) => {
      const identity = ctx.state.identity;
      if (!identity || !(isSystem(identity) || isAdmin(identity))) throw Errors.permissionDenied();
      const m = /^\/internal\/import\/buckets\/([^/]+)\/files\/(.+)$/.exec(ctx.path);
      const bucketId = m ? decodeURIComponent(m[1]!) : '';
      const key = m ? decodeKeyPath(m[2]!) : null;
      if (!bucketId || key === null) throw FilesErrors.invalidKey('Invalid file key.');
      const problem = keyProblem(key);
      if (problem) throw FilesErrors.invalidKey(problem);
      const checksum = typeof ctx.query.checksum === 'string' ? ctx.query.checksum : '';
      const { file, stored } = await service.importFile({ bucketId, key, checksum, size: uploadLength(ctx) }, req);
      ctx.status = stored ? 201 : 200;
      ctx.body = { bucket_id: bucketId, key: file.key, checksum: file.checksum, size: file.size, stored };
    }, ctx.req);
}

/** The handler factories of one bucket kind, each by scope (draft or published record). */
function handlersOf(kind: FilesKind, service: FilesService, links: FileLinks) {
  const at = (ctx: AppContext, scope: FilesScope, recordId: string) => target(ctx, scope, recordId, kind);

  const list = (scope: FilesScope) => async (ctx: AppContext) => {
    const recordId = recordIdOf(ctx);
    const { grant, files } = await service.list(at(ctx, scope, recordId));
    ctx.body = listJson(grant, files, recordId, scope, links, kind);
  };

  const read = (scope: FilesScope) => async (ctx: AppContext) => {
    const { recordId, key } = pathParams(ctx, '');
    const { file } = await service.read(at(ctx, scope, recordId), key);
    ctx.body = entryJson(file, recordId, scope, links, kind);
  };

  const download = (scope: FilesScope) => async (ctx: AppContext) => {
    const { recordId, key } = pathParams(ctx, '/content');
    const { file, storageKey } = await service.content(at(ctx, scope, recordId), key);
    const size = file.size ?? 0;
    const etag = `"${file.checksum}"`;
    const filename = keyBasename(key);
    const served = servedMimetype(guessMimetype(key), filename);
    const asAttachment = ctx.query.download !== undefined;
    ctx.set({
      ...SECURITY_HEADERS,
      ETag: etag,
      'Accept-Ranges': 'bytes',
      'Last-Modified': httpDate(file.updated),
      'Cache-Control': 'no-cache',
      'Content-Disposition': contentDisposition(filename, served, asAttachment),
    });
    if (scope === 'record' && kind === 'files') ctx.set('Link', links.signposting(recordId));
    if (notModified(ctx, etag)) return;
    // Why: an empty body has no satisfiable range; serve it whole rather than 416.
    let range: RangeResult = size > 0 ? parseRange(ctx.get('range') || undefined, size) : { kind: 'none' };
    const ifRange = ctx.get('if-range');
    if (ifRange && range.kind !== 'none' && ifRange !== etag) range = { kind: 'none' };
    if (range.kind === 'unsatisfiable') throw FilesErrors.rangeNotSatisfiable(size);
    let length = size;
    if (range.kind === 'range') {
      ctx.status = 206;
      ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
      length = range.end - range.start + 1;
    } else {
      ctx.status = 200;
    }
    ctx.type = served;
    if (ctx.method !== 'HEAD') ctx.body = await service.openContent(storageKey, range.kind === 'range' ? range : undefined);
    ctx.length = length;
  };

  const archive = (scope: FilesScope) => async (ctx: AppContext) => {
    const recordId = recordIdOf(ctx);
    const { files } = await service.archive(at(ctx, scope, recordId));
    const total = files.reduce((n, f) => n + (f.size ?? 0), 0);
    const zip = archiver('zip', { store: true, forceZip64: total >= 0xffffffff || files.length >= 0xffff });
    ctx.status = 200;
    ctx.type = 'application/zip';
    ctx.set('Content-Disposition', `attachment; filename=${recordId}.zip`);
    if (ctx.method === 'HEAD') return;
    // Why: archiver is a readable-stream (not a node Stream) that koa would not recognise as a body.
    const out = new PassThrough();
    pipeline(zip, out, () => undefined);
    ctx.body = out;
    let current: Readable | undefined;
    let closed = false;
    zip.once('close', () => {
      closed = true;
      current?.destroy();
    });
    void (async () => {
      for (const f of files) {
        if (closed) return;
        current = await service.openContent(f.storage_key!);
        const written = Promise.race([once(zip, 'entry'), once(zip, 'close').then(() => undefined)]);
        zip.append(current, { name: f.key, date: new Date(f.updated.replace(/(\.\d{3})\d+/, '$1')) });
        await written;
      }
      if (!closed) await zip.finalize();
    })().catch((err: Error) => {
      ctx.state.log.error({ err, recordId }, 'archive stream failed');
      zip.destroy(err);
    });
  };

  const init = (scope: FilesScope) => async (ctx: AppContext) => {
    const recordId = recordIdOf(ctx);
    const body = await jsonBody(ctx);
    const { grant, files } = await service.init(at(ctx, scope, recordId), body);
    ctx.status = 201;
    ctx.body = listJson(grant, files, recordId, scope, links, kind);
  };
  const removeAll = (scope: FilesScope) => async (ctx: AppContext) => {
    await service.removeAll(at(ctx, scope, recordIdOf(ctx)));
    ctx.status = 204;
  };
  const uploadPart = (scope: FilesScope) => (ctx: AppContext) =>
    guardUpload(async (req) => {
      const { recordId, key } = pathParams(ctx, '/content/<part>');
      const part = Number(PART_SUFFIX_RE.exec(ctx.path)![1]);
      const contentLength = uploadLength(ctx);
      const { file } = await service.uploadPart(at(ctx, scope, recordId), key, Number.isSafeInteger(part) ? part : 0, req, contentLength);
      ctx.body = entryJson(file, recordId, scope, links, kind);
    }, ctx.req);
  const upload = (scope: FilesScope) => (ctx: AppContext) =>
    guardUpload(async (req) => {
      const { recordId, key } = pathParams(ctx, '/content');
      const contentLength = uploadLength(ctx);
      const { file } = await service.upload(at(ctx, scope, recordId), key, req, contentLength);
      ctx.body = entryJson(file, recordId, scope, links, kind);
    }, ctx.req);
  const commit = (scope: FilesScope) => async (ctx: AppContext) => {
    const { recordId, key } = pathParams(ctx, '/commit');
    const { file } = await service.commit(at(ctx, scope, recordId), key);
    ctx.body = entryJson(file, recordId, scope, links, kind);
  };
  const update = (scope: FilesScope) => async (ctx: AppContext) => {
    const { recordId, key } = pathParams(ctx, '');
    const body = await jsonBody(ctx);
    const { file } = await service.update(at(ctx, scope, recordId), key, body);
    ctx.body = entryJson(file, recordId, scope, links, kind);
  };
  const remove = (scope: FilesScope) => async (ctx: AppContext) => {
    const { recordId, key } = pathParams(ctx, '');
    await service.remove(at(ctx, scope, recordId), key);
    ctx.status = 204;
  };

  return { list, read, download, archive, init, removeAll, uploadPart, upload, commit, update, remove };
}
