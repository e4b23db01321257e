/**
 * `GET /oai2d` and `POST /oai2d` (application/x-www-form-urlencoded, as OAI-PMH allows): the
 * arguments are read with their repetitions (a repeated argument is a protocol error) and handed to
 * the provider; the answer is `text/xml`. Anonymous by design: only public metadata is served.
 */
import { type AppContext, type AppState, AppError, bindRoutes, type Router } from '@rdm/platform';
import { OAI_ROUTES } from '../http/interop.decl.js';
import type { RawArgs } from './oai.args.js';
import type { OaiProvider } from './oai.service.js';

const MAX_FORM_BYTES = 64 * 1024;

function rawArgs(params: URLSearchParams): RawArgs {
  const out: RawArgs = {};
  for (const [k, v] of params) {
    out[k] ??= [];
    out[k].push(v);
  }
  return out;
}

async function formBody(ctx: AppContext): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) throw new AppError('payload_too_large', 413, 'Request body too large.');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Register the OAI-PMH endpoint. */
export function registerOaiRoutes(router: Router<AppState>, provider: OaiProvider): void {
  const answer = async (ctx: AppContext, params: URLSearchParams) => {
    const xml = await provider.handle(rawArgs(params));
    ctx.status = 200;
    ctx.set('Content-Type', 'text/xml; charset=utf-8');
    ctx.body = xml;
  };

  bindRoutes(
    OAI_ROUTES,
    {
      oaiPmhGet: async (ctx: AppContext) => answer(ctx, new URLSearchParams(ctx.querystring)),
      oaiPmhPost: async (ctx: AppContext) => {
        if (!ctx.is('application/x-www-form-urlencoded')) {
          throw new AppError(
            'unsupported_media_type',
            415,
            "Invalid 'Content-Type' header. Expected one of: application/x-www-form-urlencoded",
          );
        }
        await answer(ctx, new URLSearchParams(await formBody(ctx)));
      },
    },
    router,
  );
}
