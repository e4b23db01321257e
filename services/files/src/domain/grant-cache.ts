/**
 * A short memory of records' grants to edit a draft's files, so that the upload and the commit
 * of a file the same identity registered a moment ago do not ask records again (every deposit
 * asked three times: init, upload, commit; issue 14, fewest round trips per deposit).
 *
 * When to use: wrap the authorizer in bootstrap.ts (`FILES_GRANT_CACHE_MS`, 0 = off); writes to
 * an existing entry pass `reuse` (FilesAccess.authorizeWrite, files.access.ts).
 *
 * What may come from memory: only an `update` grant on a draft's files (`scope: draft`), without
 * a secret-link token, that records gave this same identity (sub and roles) for this draft
 * within the last `ttlMs`, and only for a write to an entry that already exists. Everything
 * else asks records, and so does registering new files (init), which refreshes the memory.
 * Why that is safe enough:
 * - the bucket of a draft changes at most once: when a file-modification unlock gives an edit
 *   draft its own copy of the record's bucket; a grant remembered before names the old bucket,
 *   which is locked, so its write is refused (403) and the next init asks records again; and
 *   `enabled` cannot turn false while the draft has an entry (records refuses "remove all files
 *   first"), which a reused grant's write needs;
 * - publication locks the bucket in files' own table before records commits it, and the write
 *   paths check that lock (`bucketLocked`): a remembered `locked: false` cannot write into a
 *   published bucket; `record.published` and `draft.deleted` also forget the draft's grants (in
 *   the replica whose consumer handles the event; other replicas rely on that lock, on the
 *   deleted bucket's missing entries, and on `ttlMs`);
 * - denials (403/404/410) are never remembered.
 * What is traded: a permission withdrawn from the identity (a grant or community role removed,
 * ownership transferred) stops uploads and commits to files already registered after at most
 * `ttlMs`, not at once; new registrations, reads and listings are refused at once.
 */
import type { AuthorizeFilesRequest, AuthorizeOptions, BucketGrant, FilesAuthorizer } from './authorizer.js';

/** Options of GrantCache. */
export interface GrantCacheOptions {
  /** How long a grant may be reused (ms); 0 disables the memory. */
  ttlMs: number;
  /** Most grants remembered (oldest forgotten first; default 10 000). */
  max?: number;
  /** Clock (tests). */
  now?: () => number;
}

interface Entry {
  grant: BucketGrant;
  until: number;
}

/** Could `req` be answered from memory / should its grant be remembered? */
function cacheable(req: AuthorizeFilesRequest): boolean {
  return req.scope === 'draft' && req.action === 'update' && req.access_token === undefined;
}

const keyOf = (req: AuthorizeFilesRequest) =>
  `${req.record_id}\u0000${req.bucket ?? ''}\u0000${req.identity.sub ?? ''}\u0000${req.identity.roles.join('\u0001')}`;

/** FilesAuthorizer remembering draft update grants for `ttlMs` (see header). */
export class GrantCache implements FilesAuthorizer {
  private readonly entries = new Map<string, Entry>();
  /** Keys per record id, so that events can forget a draft's grants. */
  private readonly byRecord = new Map<string, Set<string>>();
  private readonly now: () => number;

  constructor(
    private readonly inner: FilesAuthorizer,
    private readonly o: GrantCacheOptions,
  ) {
    this.now = o.now ?? Date.now;
  }

  async authorize(req: AuthorizeFilesRequest, opts: AuthorizeOptions = {}): Promise<BucketGrant> {
    if (this.o.ttlMs <= 0 || !cacheable(req)) return this.inner.authorize(req, opts);
    const key = keyOf(req);
    if (opts.reuse) {
      const hit = this.entries.get(key);
      if (hit && hit.until > this.now()) return hit.grant;
    }
    const grant = await this.inner.authorize(req, opts);
    this.remember(req.record_id, key, grant);
    return grant;
  }

  /** Forget every grant of record/draft `recordId` (its publication or deletion). */
  forget(recordId: string): void {
    const keys = this.byRecord.get(recordId);
    if (!keys) return;
    for (const k of keys) this.entries.delete(k);
    this.byRecord.delete(recordId);
  }

  /** Number of grants remembered (tests, metrics). */
  get size(): number {
    return this.entries.size;
  }

  private remember(recordId: string, key: string, grant: BucketGrant): void {
    this.entries.delete(key);
    this.entries.set(key, { grant, until: this.now() + this.o.ttlMs });
    const keys = this.byRecord.get(recordId) ?? new Set<string>();
    keys.add(key);
    this.byRecord.set(recordId, keys);
    const max = this.o.max ?? 10_000;
    while (this.entries.size > max) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
      const rid = oldest.slice(0, oldest.indexOf('\u0000'));
      const set = this.byRecord.get(rid);
      set?.delete(oldest);
      if (set && set.size === 0) this.byRecord.delete(rid);
    }
  }
}
