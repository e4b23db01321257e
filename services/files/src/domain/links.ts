/** Absolute links of file lists and entries, built from PUBLIC_BASE_URL. */
import type { FilesScope } from './authorizer.js';
import { encodeKeyPath } from './keys.js';

/** Link builder bound to the public base URL. */
export class FileLinks {
  private readonly base: string;
  constructor(publicBaseUrl: string) {
    this.base = publicBaseUrl.replace(/\/+$/, '');
  }

  private prefix(recordId: string, scope: FilesScope): string {
    return `${this.base}/api/records/${encodeURIComponent(recordId)}${scope === 'draft' ? '/draft' : ''}`;
  }

  /** `{self, archive}` of a file list. */
  list(recordId: string, scope: FilesScope): { self: string; archive: string } {
    const p = this.prefix(recordId, scope);
    return { self: `${p}/files`, archive: `${p}/files-archive` };
  }

  /** `{self, content, commit?}` of one entry (`commit` only on drafts). */
  entry(recordId: string, scope: FilesScope, key: string): Record<string, string> {
    const self = `${this.prefix(recordId, scope)}/files/${encodeKeyPath(key)}`;
    return scope === 'draft' ? { self, content: `${self}/content`, commit: `${self}/commit` } : { self, content: `${self}/content` };
  }
}
