/**
 * Client of `rdm.vocabularies.rpc.resolve` (proto/README.md). `RpcVocabulariesClient`
 * implements the domain's `VocabulariesPort` (domain/ports.ts), one request per write (chunked
 * only above the server's 1000-item limit).
 */
import { injectTraceHeaders, type NatsHandle, callContract } from '@rdm/platform';
import { RPC_SUBJECTS } from '@rdm/contracts';
import type { ResolvedItem, VocabulariesPort } from '../domain/ports.js';

/** Subject of the resolve RPC. */
export const RESOLVE_SUBJECT = RPC_SUBJECTS.vocabularies.resolve;
const CHUNK = 1000;

/** VocabulariesPort over NATS request-reply. */
export class RpcVocabulariesClient implements VocabulariesPort {
  constructor(
    private readonly nc: NatsHandle['nc'],
    private readonly timeoutMs: number,
  ) {}

  async resolve(items: { type: string; id: string }[]): Promise<ResolvedItem[]> {
    const out: ResolvedItem[] = [];
    for (let i = 0; i < items.length; i += CHUNK) {
      const r = await callContract(
        this.nc,
        RESOLVE_SUBJECT,
        { items: items.slice(i, i + CHUNK) },
        { timeoutMs: this.timeoutMs, headers: injectTraceHeaders() },
      );
      out.push(...((r?.items ?? []) as ResolvedItem[]));
    }
    return out;
  }
}
