/**
 * The link crawl (issue 23): every URL the API hands out in a `links` object answers. A published
 * record with an image file, DOIs and two versions, a draft, a community, a request and a user are
 * built; every URL of every `links` object of their answers (nested ones included: files
 * entries, hits of lists, the answers of the links themselves, to `MAX_DEPTH`) is read with GET,
 * as the owner and anonymously, and so is every same-site link of the HTML pages the `*_html`
 * links lead to. None may answer 404, 501 or 5xx, except the link names of `NONE_YET` below:
 * links InvenioRDM hands out before their target exists, and links whose endpoint another issue
 * brings. A refusal (401/403), a method the link is not read with (405) or a redirect is an
 * answer; only "nothing here" and "broken" are not.
 * Black box: the gateway only.
 */
import { deflateSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { makeCommunity } from '../communities/support.js';
import { createDraft, publish, walkthroughMetadata } from '../records/support.js';

/**
 * Links allowed to answer 404/501 for now, one line each: `name` (every link of that name),
 * `name /path-prefix` (only those whose URL path starts so) or `name@answer` (only those found in
 * that answer of the crawl, e.g. `draft`) → why. Nested links are named
 * `parent.key` (`thumbnails.250`) and excused by their parent's name. Shrink as endpoints land.
 */
const NONE_YET: Record<string, string> = {
  draft: "a published record's draft exists only while it is being edited (InvenioRDM: 404 too)",
  logo: 'a community logo never uploaded (InvenioRDM: 404 too)',
  review: 'a draft whose review was never asked (InvenioRDM: 404 too)',
  'record /api/records/': 'a draft never published has no record yet (InvenioRDM: 404 too)',
  'record_html /records/': 'a draft never published has no record page yet (InvenioRDM: 404 too)',
  'communities /api/records/': "a draft's record communities exist once it is published (InvenioRDM: 404 too)",
  'communities-suggestions /api/records/': "a draft's community suggestions exist once it is published (InvenioRDM: 404 too)",
  commit: 'POST only; a GET is the read of the file whose key ends in "/commit" (404), as with InvenioRDM\'s <path:key>',
  'self_html /me/': 'the /me pages (a request\'s page) are out of scope of issue 23 (README, "Landing pages")',
  'settings_html /communities/': 'community settings (an edit form) are out of scope of issue 23 (README, "Landing pages")',
  'thumbnails@draft': "a draft's thumbnails name `record:<id>`, as InvenioRDM's do; they answer once it is published (README)",
  'requests@draft': 'a draft never published has no record whose requests to list (InvenioRDM: 404 too)',
};

/** The NONE_YET key excusing a link, if any. */
function excuse(f: { name: string; url: string; from?: string }): string | undefined {
  const name = f.name.split('.')[0] as string;
  if (Object.hasOwn(NONE_YET, name)) return name;
  const path = new URL(f.url).pathname;
  const origin = (f.from ?? '').split(' ')[0];
  return Object.keys(NONE_YET).find((k) => {
    if (k.includes('@')) {
      const [n, what] = k.split('@');
      return n === name && what === origin;
    }
    const [n, prefix] = k.split(' ');
    return n === name && prefix !== undefined && path.startsWith(prefix);
  });
}

/** How deep links found in the answers of links are followed. */
const MAX_DEPTH = 2;
/** At most this many URLs read per visitor (the crawl stays bounded). */
const MAX_URLS = 600;

const HTML = { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8' };

/** A link found: its name in the `links` object (or `href` of a page) and where it was found. */
interface Found {
  name: string;
  url: string;
  from: string;
}

/** Every `links` object's URLs in a JSON answer, at any depth (files entries, hits, nested objects). */
function linksIn(body: unknown, from: string, out: Found[] = []): Found[] {
  if (Array.isArray(body)) {
    for (const v of body) linksIn(v, from, out);
  } else if (body && typeof body === 'object') {
    for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
      if (k === 'links' && v && typeof v === 'object' && !Array.isArray(v)) {
        for (const [name, url] of Object.entries(v as Record<string, unknown>)) {
          if (typeof url === 'string') out.push({ name, url, from });
          else if (url && typeof url === 'object')
            for (const f of linksIn({ links: url }, `${from} links.${name}`)) out.push({ ...f, name: `${name}.${f.name}` });
        }
      } else {
        linksIn(v, from, out);
      }
    }
  }
  return out;
}

/** The same-site `href`s of an HTML page (stylesheets and anchors; fragments dropped). */
function hrefsIn(html: string, from: string): Found[] {
  const site = new URL(baseUrl());
  const out: Found[] = [];
  for (const m of html.matchAll(/\shref="([^"]+)"/g)) {
    const raw = (m[1] as string).replace(/&amp;/g, '&');
    let u: URL;
    try {
      u = new URL(raw, `${site.origin}/`);
    } catch {
      continue;
    }
    if (u.origin !== site.origin) continue;
    u.hash = '';
    out.push({ name: 'href', url: u.toString(), from });
  }
  return out;
}

/** One crawl as one visitor: returns the bad answers (status 404, 501 or ≥ 500) not excused by NONE_YET, and what was read. */
async function crawl(seeds: Found[], token: string | undefined): Promise<{ bad: string[]; excused: string[]; read: number }> {
  const site = new URL(baseUrl()).origin;
  const seen = new Set<string>();
  const bad: string[] = [];
  const excused: string[] = [];
  let frontier = seeds.map((f) => ({ ...f, depth: 0 }));
  while (frontier.length && seen.size < MAX_URLS) {
    const next: (Found & { depth: number })[] = [];
    const batch = frontier.filter((f) => {
      if (!f.url.startsWith(site) || /[{}]/.test(f.url) || seen.has(f.url)) return false;
      seen.add(f.url);
      return true;
    });
    for (let i = 0; i < batch.length; i += 8) {
      await Promise.all(
        batch.slice(i, i + 8).map(async (f) => {
          const isPage = !new URL(f.url).pathname.startsWith('/api/');
          const res = await api(f.url, { token, headers: isPage ? HTML : {} });
          if (res.status === 404 || res.status === 501 || res.status >= 500) {
            const line = `${f.name} ${f.url} → ${res.status} (from ${f.from})`;
            (excuse(f) ? excused : bad).push(line);
            return;
          }
          if (f.depth >= MAX_DEPTH || res.status !== 200) return;
          const type = res.headers.get('content-type') ?? '';
          if (/json/.test(type) && res.body !== undefined)
            next.push(...linksIn(res.body, f.url).map((x) => ({ ...x, depth: f.depth + 1 })));
          else if (/html/.test(type)) next.push(...hrefsIn(res.text, f.url).map((x) => ({ ...x, depth: f.depth + 1 })));
        }),
      );
    }
    frontier = next;
  }
  return { bad, excused, read: seen.size };
}

/** A 1×1 PNG (an image file, so a record carries its image links). */
function png(): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer) => {
    let c = 0xffffffff;
    for (const x of b) c = (crcTable[(c ^ x) & 0xff] as number) ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(1, 0);
  ihdr.writeUInt32BE(1, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.from([0, 255, 0, 0]))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

async function must(p: Promise<{ status: number; text: string; body: any }>, ok: number[], what: string): Promise<any> {
  const res = await p;
  if (!ok.includes(res.status)) throw new Error(`${what}: ${res.status} ${res.text.slice(0, 300)}`);
  return res.body;
}

async function putFile(token: string, id: string, key: string, content: Buffer | string): Promise<void> {
  const base = `/api/records/${id}/draft/files`;
  await must(api(base, { method: 'POST', token, body: [{ key }] }), [201], `init ${key}`);
  await must(api(`${base}/${encodeURIComponent(key)}/content`, { method: 'PUT', token, raw: content }), [200], `upload ${key}`);
  await must(api(`${base}/${encodeURIComponent(key)}/commit`, { method: 'POST', token }), [200], `commit ${key}`);
}

describe('link crawl', () => {
  let owner: TestUser;
  let admin: TestUser;
  const answers: { what: string; body: unknown }[] = [];
  const pages: string[] = [];

  beforeAll(async () => {
    [owner, admin] = await Promise.all([
      createUser({ email: uniqueEmail('crawl-owner'), name: 'Crawl Owner', username: `crawl${Date.now().toString(36)}` }),
      createUser({ email: uniqueEmail('crawl-admin'), admin: true }),
    ]);
    const t = owner.token;
    // Communities are created by administrators here (the default policy); the owner submits to it.
    const community = await makeCommunity(admin.token, 'Crawl community');
    // A published record with an image and a text file, in the community, with a second version.
    const draft = await must(createDraft(t), [201], 'create draft');
    // With DOIs (the DataCite test double): the record, parent and concept DOI links are crawled too.
    await must(api(`/api/records/${draft.id}/draft/pids/doi`, { method: 'POST', token: t }), [201], 'reserve DOI');
    await putFile(t, draft.id, 'figure.png', png());
    await putFile(t, draft.id, 'data.txt', 'hello');
    const v1 = await must(publish(t, draft.id), [202], 'publish v1');
    const nv = await must(api(`/api/records/${v1.id}/versions`, { method: 'POST', token: t }), [201], 'new version');
    await must(api(`/api/records/${nv.id}/draft/actions/files-import`, { method: 'POST', token: t }), [201], 'files import');
    await must(api(`/api/records/${nv.id}/draft/pids/doi`, { method: 'POST', token: t }), [201], 'reserve DOI v2');
    const v2 = await must(publish(t, nv.id), [202], 'publish v2');
    // A draft (never published) and a request (its community submission, submitted).
    const d = await must(
      createDraft(t, { access: { record: 'public', files: 'public' }, files: { enabled: true }, metadata: walkthroughMetadata() }),
      [201],
      'create draft 2',
    );
    await putFile(t, d.id, 'draft.png', png());
    const review = await must(
      api(`/api/records/${d.id}/draft/review`, {
        method: 'PUT',
        token: t,
        body: { type: 'community-submission', receiver: { community: community.id } },
      }),
      [200],
      'attach review',
    );
    await must(api(`/api/records/${d.id}/draft/actions/submit-review`, { method: 'POST', token: t, body: {} }), [202], 'submit review');
    const reads: [string, string][] = [
      ['record v1', `/api/records/${v1.id}`],
      ['record v2', `/api/records/${v2.id}`],
      ['record files', `/api/records/${v2.id}/files`],
      ['record versions', `/api/records/${v1.id}/versions`],
      ['draft', `/api/records/${d.id}/draft`],
      ['draft files', `/api/records/${d.id}/draft/files`],
      ['community', `/api/communities/${community.id}`],
      ['request', `/api/requests/${review.id}`],
      ['request timeline', `/api/requests/${review.id}/timeline`],
      ['user', `/api/users/${owner.id}`],
      ['records search', '/api/records?size=5'],
      ['user records', '/api/user/records?size=5'],
      ['communities search', '/api/communities?size=5'],
      ['requests search', '/api/requests?size=5'],
    ];
    for (const [what, path] of reads) {
      const res = await api(path, { token: t });
      answers.push({ what, body: res.status === 200 ? res.body : undefined });
    }
    pages.push(v2.links.self_html, community.links?.self_html ?? `${baseUrl()}/communities/${community.slug}`, `${baseUrl()}/search?q=*`);
  }, 180_000);

  it('should have read every kind of answer it crawls', () => {
    expect(answers.filter((a) => a.body === undefined).map((a) => a.what)).toEqual([]);
    expect(linksIn(answers[0]?.body, 'x').length).toBeGreaterThan(10);
  });

  it('should find no link answering 404, 501 or 5xx as the owner, except NONE_YET', async () => {
    const seeds = answers.flatMap((a) => linksIn(a.body, a.what));
    seeds.push(...pages.map((url) => ({ name: 'page', url, from: 'pages' })));
    const { bad, read } = await crawl(seeds, owner.token);
    expect(read).toBeGreaterThan(50);
    expect(bad, `links answering 404/501/5xx:\n${bad.join('\n')}`).toEqual([]);
  }, 600_000);

  it('should find no link answering 404, 501 or 5xx anonymously, except NONE_YET', async () => {
    const publicAnswers = answers.filter((a) =>
      /^(record v|record files|record versions|community|user$|records search|communities)/.test(a.what),
    );
    const seeds = publicAnswers.flatMap((a) => linksIn(a.body, a.what));
    seeds.push(...pages.map((url) => ({ name: 'page', url, from: 'pages' })));
    const { bad, read } = await crawl(seeds, undefined);
    expect(read).toBeGreaterThan(30);
    expect(bad, `links answering 404/501/5xx:\n${bad.join('\n')}`).toEqual([]);
  }, 600_000);

  it('should excuse only links that exist in some answer (the NONE_YET table stays honest)', () => {
    const found = answers.flatMap((a) => linksIn(a.body, a.what));
    const used = new Set(found.map((f) => excuse(f)).filter(Boolean));
    // IIIF links of files entries and the request links of issue 24 may not be advertised yet.
    const unused = Object.keys(NONE_YET).filter((k) => !used.has(k) && !/issue 24/.test(NONE_YET[k] as string));
    expect(unused).toEqual([]);
  });
});
