/**
 * A local fake of the subset of DataCite's REST API the DOI provider uses (test-only; DataCite
 * cannot be reached from here). Built from DataCite's documented behaviour
 * (https://support.datacite.org/docs/api-create-dois, …/api-update-a-doi, …/api-get-doi,
 * …/api-delete-a-doi):
 *
 * - `POST /dois`, `PUT /dois/<doi>`, `GET /dois/<doi>`, `DELETE /dois/<doi>`; JSON:API bodies
 *   (`{data: {type: "dois", attributes: {doi, event?, url?, xml? (base64)}}}`), answered with
 *   `application/vnd.api+json` and `{data: {id, type, attributes: {doi, prefix, suffix, state, url, xml, …}}}`;
 * - states `draft` → `registered` / `findable` through the events `register`, `publish`, `hide`
 *   (findable → registered); only drafts can be deleted (405 otherwise);
 * - HTTP Basic authentication (401 `Bad credentials.`), a DOI outside the repository's prefixes
 *   → 403, a taken DOI → 422, `register`/`publish` without `url` or valid DataCite XML (checked
 *   against the kernel-4.5 XSD with xmllint, identifier = the DOI) → 422 with `source`;
 *   errors are DataCite documents `{errors: [{status, title, source?}]}`;
 * - `down` answers 503 to everything (DataCite unreachable / in maintenance).
 *
 * When to use: integration and e2e tests of the DataCite provider (`startFakeDataCite()`, then
 * DATACITE_URL = `fake.url`). Not for production, not a general DataCite emulator.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { validateXml, XSD } from '../../src/export/xsd/xmllint.js';

/** A DOI as the fake keeps it. */
export interface FakeDoi {
  doi: string;
  state: 'draft' | 'registered' | 'findable';
  url: string | null;
  xml: string | null;
  created: string;
  updated: string;
}

/** A call the fake received (after authentication). */
export interface FakeCall {
  method: string;
  path: string;
  status: number;
  event?: string;
}

/** Options of the fake. */
export interface FakeDataCiteOptions {
  username?: string;
  password?: string;
  prefixes?: string[];
  /** Validate metadata against the DataCite XSD (default true). */
  validate?: boolean;
}

/** A running fake DataCite. */
export interface FakeDataCite {
  url: string;
  dois: Map<string, FakeDoi>;
  calls: FakeCall[];
  /** While true every request is answered 503. */
  down: boolean;
  /** How many times a DOI became findable (registrations). */
  findableTransitions(doi: string): number;
  close(): Promise<void>;
}

const MEDIA = 'application/vnd.api+json';

class HttpFail extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly source?: string,
  ) {
    super(title);
  }
}

async function readJson(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  } catch {
    throw new HttpFail(400, 'You need to provide a payload following the JSONAPI spec');
  }
}

/** Start the fake on a free port of 127.0.0.1. */
export async function startFakeDataCite(o: FakeDataCiteOptions = {}): Promise<FakeDataCite> {
  const username = o.username ?? 'TEST.REPO';
  const password = o.password ?? 'secret';
  const prefixes = o.prefixes ?? ['10.1234'];
  const validate = o.validate ?? true;
  const dois = new Map<string, FakeDoi>();
  const calls: FakeCall[] = [];
  const transitions = new Map<string, number>();

  const json = (doi: FakeDoi) => ({
    data: {
      id: doi.doi,
      type: 'dois',
      attributes: {
        doi: doi.doi,
        prefix: doi.doi.split('/')[0],
        suffix: doi.doi.slice(doi.doi.indexOf('/') + 1),
        state: doi.state,
        url: doi.url,
        xml: doi.xml,
        created: doi.created,
        updated: doi.updated,
      },
    },
  });

  const checkMetadata = (doi: string, a: any) => {
    if (!a.url) throw new HttpFail(422, "Can't be blank", 'url');
    if (!a.xml) throw new HttpFail(422, "Can't be blank", 'xml');
    const xml = Buffer.from(String(a.xml), 'base64').toString('utf8');
    if (validate) {
      const errors = validateXml(xml, XSD.datacite);
      if (errors.length) throw new HttpFail(422, errors[0], 'metadata');
    }
    const id = /<identifier identifierType="DOI">([^<]+)<\/identifier>/.exec(xml)?.[1];
    if (id?.toLowerCase() !== doi) throw new HttpFail(422, `DOI ${id ?? '(none)'} in the metadata does not match ${doi}`, 'doi');
  };

  const apply = (doi: FakeDoi, a: any) => {
    const event = a.event as string | undefined;
    if (a.url !== undefined) doi.url = a.url;
    if (a.xml !== undefined) doi.xml = a.xml;
    if (event === 'publish' || event === 'register') checkMetadata(doi.doi, { url: doi.url, xml: doi.xml });
    if (event === 'publish') {
      if (doi.state !== 'findable') transitions.set(doi.doi, (transitions.get(doi.doi) ?? 0) + 1);
      doi.state = 'findable';
    } else if (event === 'register') {
      if (doi.state === 'draft') doi.state = 'registered';
    } else if (event === 'hide') {
      if (doi.state === 'findable') doi.state = 'registered';
    } else if (event !== undefined) throw new HttpFail(422, `Event ${event} is not supported`, 'event');
    doi.updated = new Date().toISOString();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<{ status: number; event?: string }> => {
    const send = (status: number, body?: unknown) => {
      res.writeHead(status, body === undefined ? {} : { 'content-type': MEDIA });
      res.end(body === undefined ? undefined : JSON.stringify(body));
      return { status };
    };
    const auth = req.headers.authorization ?? '';
    const expected = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
    if (auth !== expected) throw new HttpFail(401, 'Bad credentials.');
    const url = new URL(req.url ?? '/', 'http://fake');
    const m = /^\/dois(?:\/(.+))?$/.exec(url.pathname);
    if (!m) throw new HttpFail(404, "The resource you are looking for doesn't exist.");
    const pathDoi = m[1] ? decodeURIComponent(m[1]).toLowerCase() : undefined;
    const now = new Date().toISOString();
    if (req.method === 'GET' && pathDoi) {
      const doi = dois.get(pathDoi);
      if (!doi) throw new HttpFail(404, "The resource you are looking for doesn't exist.");
      return send(200, json(doi));
    }
    if (req.method === 'DELETE' && pathDoi) {
      const doi = dois.get(pathDoi);
      if (!doi) throw new HttpFail(404, "The resource you are looking for doesn't exist.");
      if (doi.state !== 'draft') throw new HttpFail(405, 'Method not allowed');
      dois.delete(pathDoi);
      return send(204);
    }
    if ((req.method === 'POST' && !pathDoi) || (req.method === 'PUT' && pathDoi)) {
      const body = await readJson(req);
      const a = body?.data?.attributes;
      if (body?.data?.type !== 'dois' || !a || typeof a !== 'object') {
        throw new HttpFail(400, 'You need to provide a payload following the JSONAPI spec');
      }
      const id = String(pathDoi ?? a.doi ?? '').toLowerCase();
      if (!id) throw new HttpFail(422, "Can't be blank", 'doi');
      if (!prefixes.includes(id.split('/')[0])) throw new HttpFail(403, 'You are not authorized to access this resource.');
      const existing = dois.get(id);
      if (req.method === 'POST' && existing) throw new HttpFail(422, 'This DOI has already been taken', 'doi');
      // Why: DataCite's PUT creates the DOI when it does not exist yet.
      const doi: FakeDoi = existing ? { ...existing } : { doi: id, state: 'draft', url: null, xml: null, created: now, updated: now };
      apply(doi, a);
      dois.set(id, doi);
      send(existing ? 200 : 201, json(doi));
      return { status: existing ? 200 : 201, event: a.event };
    }
    throw new HttpFail(405, 'Method not allowed');
  };

  const fake: FakeDataCite = {
    url: '',
    dois,
    calls,
    down: false,
    findableTransitions: (doi) => transitions.get(doi.toLowerCase()) ?? 0,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };

  const server: Server = createServer((req, res) => {
    if (fake.down) {
      req.resume();
      res.writeHead(503, { 'content-type': MEDIA });
      res.end(JSON.stringify({ errors: [{ status: '503', title: 'The service is temporarily unavailable.' }] }));
      return;
    }
    handle(req, res)
      .then((r) => calls.push({ method: req.method ?? '', path: req.url ?? '', status: r.status, event: r.event }))
      .catch((err: unknown) => {
        const f = err instanceof HttpFail ? err : new HttpFail(500, 'Internal server error');
        if (f.status !== 401) calls.push({ method: req.method ?? '', path: req.url ?? '', status: f.status });
        res.writeHead(f.status, { 'content-type': MEDIA });
        res.end(JSON.stringify({ errors: [{ status: String(f.status), title: f.title, ...(f.source ? { source: f.source } : {}) }] }));
      });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
