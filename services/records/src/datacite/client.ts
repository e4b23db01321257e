/**
 * A client of the subset of DataCite's REST API (https://support.datacite.org/docs/api) the DOI
 * provider uses: `GET /dois/<doi>`, `POST /dois`, `PUT /dois/<doi>`, `DELETE /dois/<doi>`, with
 * JSON:API bodies (`application/vnd.api+json`) and HTTP Basic authentication (repository id +
 * password). Metadata travels as DataCite XML, base64 in `attributes.xml`.
 *
 * When to use: only from the DOI sync (`doi-sync.ts`); never on a request's path (DataCite may be
 * slow or down). Errors: `DataCiteError` with the HTTP status and DataCite's `errors[]`;
 * `retryable` is true for 429, 5xx and network failures (the consumer redelivers those), false
 * for 4xx answers that a retry cannot fix (bad credentials, invalid metadata).
 */

/** The state of a DOI at DataCite. */
export type DoiState = 'draft' | 'registered' | 'findable';

/** The attributes of a DOI the provider reads or writes. */
export interface DoiAttributes {
  doi: string;
  state?: DoiState;
  url?: string | null;
  /** DataCite XML, base64 (as the REST API takes and returns it). */
  xml?: string | null;
  /** `publish` (→ findable), `register` (→ registered), `hide` (findable → registered). */
  event?: 'publish' | 'register' | 'hide';
}

/** One error of a DataCite answer (`{errors: [{status?, source?, title, uid?}]}`). */
export interface DataCiteErrorItem {
  status?: string;
  source?: string;
  title: string;
  uid?: string;
}

/** A failed DataCite call. */
export class DataCiteError extends Error {
  constructor(
    readonly status: number,
    readonly errors: DataCiteErrorItem[],
    readonly retryable: boolean,
  ) {
    super(`DataCite answered ${status || 'nothing'}: ${errors.map((e) => `${e.source ? `${e.source}: ` : ''}${e.title}`).join('; ')}`);
    this.name = 'DataCiteError';
  }
}

/** Connection settings (DATACITE_URL, DATACITE_USERNAME, DATACITE_PASSWORD). */
export interface DataCiteClientOptions {
  url: string;
  username: string;
  password: string;
  /** Per-call timeout (default 10 s). */
  timeoutMs?: number;
}

const MEDIA = 'application/vnd.api+json';

/** The DataCite REST client. */
export class DataCiteClient {
  private readonly base: string;
  private readonly auth: string;

  constructor(private readonly o: DataCiteClientOptions) {
    this.base = o.url.replace(/\/+$/, '');
    this.auth = `Basic ${Buffer.from(`${o.username}:${o.password}`).toString('base64')}`;
  }

  /** The DOI's attributes, or undefined when DataCite does not know it (404). */
  async get(doi: string): Promise<DoiAttributes | undefined> {
    const r = await this.call('GET', `/dois/${encodeDoi(doi)}`);
    if (r.status === 404) return undefined;
    return attributesOf(await this.expect(r, [200]));
  }

  /** POST /dois: create (a draft without `event`, else registered / findable). */
  async create(a: DoiAttributes): Promise<DoiAttributes> {
    return attributesOf(await this.expect(await this.call('POST', '/dois', body(a)), [201, 200]));
  }

  /** PUT /dois/<doi>: update metadata, URL and/or state. */
  async update(a: DoiAttributes): Promise<DoiAttributes> {
    return attributesOf(await this.expect(await this.call('PUT', `/dois/${encodeDoi(a.doi)}`, body(a)), [200, 201]));
  }

  /** DELETE /dois/<doi> (drafts only); a 404 counts as done. */
  async delete(doi: string): Promise<void> {
    const r = await this.call('DELETE', `/dois/${encodeDoi(doi)}`);
    if (r.status === 404) return;
    await this.expect(r, [204, 200]);
  }

  private async call(method: string, path: string, payload?: unknown): Promise<Response> {
    try {
      return await fetch(`${this.base}${path}`, {
        method,
        headers: { authorization: this.auth, accept: MEDIA, ...(payload ? { 'content-type': MEDIA } : {}) },
        body: payload ? JSON.stringify(payload) : undefined,
        signal: AbortSignal.timeout(this.o.timeoutMs ?? 10_000),
      });
    } catch (err) {
      throw new DataCiteError(0, [{ title: String((err as Error)?.message ?? err) }], true);
    }
  }

  private async expect(r: Response, ok: number[]): Promise<any> {
    const text = await r.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      json = {};
    }
    if (ok.includes(r.status)) return json;
    const errors: DataCiteErrorItem[] = Array.isArray(json?.errors) ? json.errors : [{ title: text.slice(0, 200) || r.statusText }];
    throw new DataCiteError(r.status, errors, r.status === 429 || r.status >= 500);
  }
}

// DataCite takes the DOI as one path segment with its slash kept.
const encodeDoi = (doi: string) => doi.split('/').map(encodeURIComponent).join('/');

function body(a: DoiAttributes) {
  const attributes: Record<string, unknown> = { doi: a.doi };
  if (a.event) attributes.event = a.event;
  if (a.url !== undefined) attributes.url = a.url;
  if (a.xml !== undefined) attributes.xml = a.xml;
  return { data: { type: 'dois', attributes } };
}

function attributesOf(json: any): DoiAttributes {
  const a = json?.data?.attributes ?? {};
  return { doi: String(a.doi ?? json?.data?.id ?? ''), state: a.state, url: a.url ?? null, xml: a.xml ?? null };
}
