/**
 * Client of `rdm.vocabularies.rpc.resolve` (proto/README.md). `VocabulariesPort` is what the
 * domain uses; `RpcVocabulariesClient` sends one request per write (chunked only above the
 * server's 1000-item limit).
 */
import { callRpc, injectTraceHeaders, type NatsHandle } from '@rdm/platform';

/** A resolved vocabulary entry (compact form). */
export interface VocabEntry {
  id: string;
  title?: Record<string, string>;
  props?: Record<string, any>;
  tags?: string[];
  type?: string;
  [k: string]: unknown;
}

/** One resolve answer. */
export interface ResolvedItem {
  type: string;
  id: string;
  found: boolean;
  entry?: VocabEntry;
}

/** What records needs from the vocabularies service. */
export interface VocabulariesPort {
  resolve(items: { type: string; id: string }[]): Promise<ResolvedItem[]>;
}

/** Subject of the resolve RPC. */
export const RESOLVE_SUBJECT = 'rdm.vocabularies.rpc.resolve';
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
      const r = await callRpc<{ items: ResolvedItem[] }>(
        this.nc,
        RESOLVE_SUBJECT,
        { items: items.slice(i, i + CHUNK) },
        { timeoutMs: this.timeoutMs, headers: injectTraceHeaders() },
      );
      out.push(...(r?.items ?? []));
    }
    return out;
  }
}
