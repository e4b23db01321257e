/**
 * The landing page of a published record and the page of its tombstone, from API answers only:
 * the record (`GET /api/records/<id>`), its versions, its files, its communities and its
 * `application/ld+json` export, all read as the visitor. Head: canonical URL, Highwire
 * `citation_*` tags (Google Scholar), OpenGraph, an alternate link per export format, JSON-LD.
 *
 * When to use: pages.routes.ts renders these; nothing here does I/O.
 */
import type { VNode } from 'preact';
import { sanitizeHtml } from '@rdm/platform';
import { CITATION_STYLES } from '@rdm/contracts';
import { EXPORT_FORMATS, humanSize, identifierUrl, list, titleOf } from './format.js';
import { type Head, Layout, type MetaTag } from './layout.js';

/** Everything the record page shows. */
export interface RecordPageData {
  baseUrl: string;
  record: any;
  /** Versions of the record (any order; shown newest first), or undefined when unreadable. */
  versions?: any[];
  /** The files list answer (`entries`), or the status the API refused it with. */
  files?: { entries: any[] } | { refused: number };
  /** Communities the record is in (records' `GET …/communities`: `{id, slug, title}` summaries). */
  communities?: any[];
  /** The record's JSON-LD export, as the API serves it. */
  jsonLd?: unknown;
  /** A secret link token the visitor came with (kept on links to the same record's pages). */
  token?: string;
  /** A draft shown read-only (`/uploads/<id>`, `?preview=1`): a banner says it is not published. */
  preview?: boolean;
  /** The citation box: the style shown and records' `text/x-bibliography` answer in it (absent: unavailable). */
  citation?: { style: string; text?: string };
}

const ACCESS_TEXT: Record<string, string> = {
  open: 'Open access: the record and its files are public.',
  restricted: 'Restricted: the files are visible only to people the owners shared them with.',
  'metadata-only': 'Metadata only: the record has no files.',
  embargoed: 'Embargoed: the files become public when the embargo ends.',
};

function creatorName(c: any): string {
  const p = c?.person_or_org ?? {};
  if (p.name) return String(p.name);
  return [p.family_name, p.given_name].filter(Boolean).join(', ');
}

function Person({ c }: { c: any }): VNode {
  const p = c?.person_or_org ?? {};
  const ids = list(p.identifiers).filter(
    (i: any) => identifierUrl(i.scheme, i.identifier) && ['orcid', 'ror', 'isni', 'gnd'].includes(i.scheme),
  );
  const affs = list(c?.affiliations);
  return (
    <li>
      <span>{creatorName(c)}</span>
      {ids.map((i: any) => (
        <>
          {' '}
          <a href={identifierUrl(i.scheme, i.identifier)} title={`${String(i.scheme).toUpperCase()} ${i.identifier}`}>
            {String(i.scheme).toUpperCase()}
          </a>
        </>
      ))}
      {c?.role?.title ? <span class="muted"> ({titleOf(c.role.title)})</span> : null}
      {affs.length ? (
        <span class="muted">
          {' — '}
          {affs.map((a: any, n: number) => (
            <>
              {n > 0 ? '; ' : ''}
              {a.id && /^0[a-z0-9]{8}$/.test(a.id) ? <a href={identifierUrl('ror', a.id)}>{a.name ?? a.id}</a> : (a.name ?? a.id)}
            </>
          ))}
        </span>
      ) : null}
    </li>
  );
}

/** The machine-readable head of a record's page. */
export function recordHead(d: RecordPageData): Head {
  const r = d.record;
  const m = r.metadata ?? {};
  const title = String(m.title ?? r.id);
  const landing = r.links?.self_html ?? `${d.baseUrl}/records/${r.id}`;
  const doi = r.pids?.doi?.identifier as string | undefined;
  const meta: MetaTag[] = [{ name: 'citation_title', content: title }];
  for (const c of list(m.creators)) {
    const n = creatorName(c);
    if (n) meta.push({ name: 'citation_author', content: n });
  }
  if (m.publication_date) meta.push({ name: 'citation_publication_date', content: String(m.publication_date).replace(/-/g, '/') });
  if (doi) meta.push({ name: 'citation_doi', content: doi });
  if (m.publisher) meta.push({ name: 'citation_publisher', content: String(m.publisher) });
  for (const s of list(m.subjects)) if (s?.subject) meta.push({ name: 'citation_keywords', content: String(s.subject) });
  if (d.files && 'entries' in d.files) {
    for (const f of d.files.entries) {
      if (String(f.key).toLowerCase().endsWith('.pdf') && f.links?.content)
        meta.push({ name: 'citation_pdf_url', content: f.links.content });
    }
  }
  meta.push({ name: 'citation_abstract_html_url', content: landing });
  const plain = m.description ? stripTags(String(m.description)).slice(0, 300) : undefined;
  meta.push(
    { property: 'og:type', content: 'website' },
    { property: 'og:title', content: title },
    { property: 'og:url', content: landing },
  );
  if (plain) meta.push({ property: 'og:description', content: plain });
  meta.push({ property: 'og:site_name', content: 'Research data repository' });
  const api = r.links?.self ?? `${d.baseUrl}/api/records/${r.id}`;
  return {
    title,
    description: plain,
    canonical: landing,
    meta,
    // A draft has no exports (records serves them for published records only).
    alternates: d.preview ? [] : EXPORT_FORMATS.map((f) => ({ type: f.mediaType, href: `${api}/export/${f.name}`, title: f.label })),
    jsonLd: d.jsonLd,
  };
}

function stripTags(html: string): string {
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

function withToken(href: string, token?: string): string {
  return token ? `${href}${href.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}` : href;
}

/**
 * The citation box: records' formatted citation in the chosen style, and the style selector as a
 * plain GET form back to this page (`?style=`, the token kept), so it works without JavaScript.
 */
function CitationBox({ d }: { d: RecordPageData }): VNode | null {
  if (!d.citation) return null;
  const r = d.record;
  const action = `${r.links?.self_html ?? `${d.baseUrl}/records/${r.id}`}#citation`;
  return (
    <div class="panel" id="citation">
      <h2 id="h-citation">Cite as</h2>
      {d.citation.text ? <p class="citation">{d.citation.text}</p> : <p class="muted">The citation is not available right now.</p>}
      <form method="get" action={action} class="citation-style">
        {d.token ? <input type="hidden" name="token" value={d.token} /> : null}
        <label for="citation-style">Style</label>{' '}
        <select id="citation-style" name="style">
          {CITATION_STYLES.map((s) => (
            <option value={s.id} selected={s.id === d.citation?.style}>
              {s.title}
            </option>
          ))}
        </select>{' '}
        <button type="submit">Show</button>
      </form>
    </div>
  );
}

/** The landing page of a record. */
export function RecordPage(d: RecordPageData): VNode {
  const r = d.record;
  const m = r.metadata ?? {};
  const access = r.access ?? {};
  const status = String(access.status ?? '');
  const doi = r.pids?.doi?.identifier as string | undefined;
  const api = r.links?.self ?? `${d.baseUrl}/api/records/${r.id}`;
  const versions = [...(d.versions ?? [])].sort((a, b) => (b?.versions?.index ?? 0) - (a?.versions?.index ?? 0));
  const files = d.files && 'entries' in d.files ? d.files.entries : undefined;
  return (
    <Layout head={recordHead(d)} baseUrl={d.baseUrl} side>
      <article>
        {d.preview ? (
          <p class="panel">
            <strong>Preview.</strong> This draft is not published: only people who may see the draft see this page, and it may still change.
          </p>
        ) : null}
        <div class="badges">
          {m.publication_date ? <span class="badge">Published {String(m.publication_date)}</span> : null}
          {m.resource_type ? <span class="badge">{titleOf(m.resource_type.title) || m.resource_type.id}</span> : null}
          {m.version ? <span class="badge">Version {String(m.version)}</span> : null}
          {status ? <span class={status === 'open' ? 'badge' : 'badge warn'}>{status}</span> : null}
        </div>
        <h1>{String(m.title ?? '')}</h1>
        {doi ? (
          <p>
            DOI:{' '}
            <a class="mono" href={`https://doi.org/${doi}`}>
              {doi}
            </a>
          </p>
        ) : null}
        {list(m.creators).length ? (
          <section aria-labelledby="h-creators">
            <h2 id="h-creators">Creators</h2>
            <ul class="plain">
              {list(m.creators).map((c) => (
                <Person c={c} />
              ))}
            </ul>
          </section>
        ) : null}
        {list(m.contributors).length ? (
          <section aria-labelledby="h-contributors">
            <h2 id="h-contributors">Contributors</h2>
            <ul class="plain">
              {list(m.contributors).map((c) => (
                <Person c={c} />
              ))}
            </ul>
          </section>
        ) : null}
        {m.description ? (
          <section aria-labelledby="h-description">
            <h2 id="h-description">Description</h2>
            {/* Sanitized by the API with the platform's allow-list; cleaned again here with the same one. */}
            {/* biome-ignore lint/security/noDangerouslySetInnerHtml: rich text sanitized by the API and again here (platform allow-list) */}
            <div class="description" dangerouslySetInnerHTML={{ __html: sanitizeHtml(String(m.description)) }} />
          </section>
        ) : null}
        <section aria-labelledby="h-files">
          <h2 id="h-files">Files</h2>
          {r.files?.enabled === false ? (
            <p class="muted">This record has no files (metadata only).</p>
          ) : files ? (
            <>
              <table>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Size</th>
                    <th scope="col">Checksum</th>
                  </tr>
                </thead>
                <tbody>
                  {files.map((f: any) => (
                    <tr>
                      <td>
                        <a href={withToken(f.links?.content ?? '', d.token)}>{String(f.key)}</a>
                      </td>
                      <td class="num">{humanSize(f.size)}</td>
                      <td>
                        <code>{String(f.checksum ?? '')}</code>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {r.links?.archive ? (
                <p>
                  <a href={withToken(r.links.archive, d.token)}>Download all files (zip)</a>
                </p>
              ) : null}
            </>
          ) : (
            <p class="muted">The files of this record are restricted; you may not read them.</p>
          )}
        </section>
        {list(m.subjects).length ? (
          <section aria-labelledby="h-subjects">
            <h2 id="h-subjects">Subjects</h2>
            <ul class="inline">
              {list(m.subjects).map((s: any) => (
                <li>{String(s.subject ?? s.id ?? '')}</li>
              ))}
            </ul>
          </section>
        ) : null}
        {list(m.funding).length ? (
          <section aria-labelledby="h-funding">
            <h2 id="h-funding">Funding</h2>
            <ul class="plain">
              {list(m.funding).map((f: any) => (
                <li>
                  {f.funder?.name ?? f.funder?.id ?? ''}
                  {f.award ? (
                    <span class="muted">
                      {' — '}
                      {titleOf(f.award.title)}
                      {f.award.number ? ` (${f.award.number})` : ''}
                    </span>
                  ) : null}
                </li>
              ))}
            </ul>
          </section>
        ) : null}
        {list(m.related_identifiers).length ? (
          <section aria-labelledby="h-related">
            <h2 id="h-related">Related works</h2>
            <ul class="plain">
              {list(m.related_identifiers).map((x: any) => {
                const href = identifierUrl(x.scheme, x.identifier);
                return (
                  <li>
                    <span class="muted">{titleOf(x.relation_type?.title) || x.relation_type?.id || ''} </span>
                    {href ? <a href={href}>{String(x.identifier)}</a> : <span>{String(x.identifier)}</span>}
                    <span class="muted"> ({String(x.scheme ?? '')})</span>
                  </li>
                );
              })}
            </ul>
          </section>
        ) : null}
      </article>
      <aside>
        <div class="panel">
          <h2>Access</h2>
          <p>{ACCESS_TEXT[status] ?? status}</p>
          {access.embargo?.active ? (
            <p>
              Embargoed until {String(access.embargo.until ?? '')}
              {access.embargo.reason ? `: ${access.embargo.reason}` : ''}
            </p>
          ) : null}
        </div>
        {versions.length ? (
          <div class="panel">
            <h2>Versions</h2>
            <ol class="plain">
              {versions.map((v: any) => (
                <li class={v.id === r.id ? 'current' : undefined}>
                  {v.id === r.id ? (
                    <span aria-current="page">Version {String(v.metadata?.version ?? v.versions?.index ?? '')} (this version)</span>
                  ) : (
                    <a href={v.links?.self_html ?? `${d.baseUrl}/records/${v.id}`}>
                      Version {String(v.metadata?.version ?? v.versions?.index ?? '')}
                    </a>
                  )}
                  <span class="muted"> {String(v.metadata?.publication_date ?? '')}</span>
                </li>
              ))}
            </ol>
          </div>
        ) : null}
        {d.communities?.length ? (
          <div class="panel">
            <h2>Communities</h2>
            <ul class="plain">
              {d.communities.map((c: any) => (
                <li>
                  <a href={c.links?.self_html ?? `${d.baseUrl}/communities/${c.slug}`}>{String(c.metadata?.title ?? c.title ?? c.slug)}</a>
                </li>
              ))}
            </ul>
          </div>
        ) : null}
        {list(m.rights).length ? (
          <div class="panel">
            <h2>Licence</h2>
            <ul class="plain">
              {list(m.rights).map((x: any) => {
                const href = x.props?.url ?? x.link;
                const name = titleOf(x.title) || x.id || '';
                return <li>{href ? <a href={href}>{name}</a> : name}</li>;
              })}
            </ul>
          </div>
        ) : null}
        <CitationBox d={d} />
        {d.preview ? null : (
          <div class="panel">
            <h2>Export</h2>
            <ul class="plain">
              {EXPORT_FORMATS.map((f) => (
                <li>
                  <a href={withToken(`${api}/export/${f.name}`, d.token)} type={f.mediaType}>
                    {f.label}
                  </a>
                </li>
              ))}
            </ul>
          </div>
        )}
      </aside>
    </Layout>
  );
}

/** The tombstone of a deleted record (answered with 410). */
export function TombstonePage({ baseUrl, id, body }: { baseUrl: string; id: string; body: any }): VNode {
  const t = body?.tombstone ?? {};
  return (
    <Layout head={{ title: 'Record deleted', noindex: !t.is_visible }} baseUrl={baseUrl}>
      <article>
        <h1>Record deleted</h1>
        <p>The record {id} has been removed.</p>
        <dl>
          {t.removal_reason ? (
            <>
              <dt>Reason</dt>
              <dd>{titleOf(t.removal_reason.title) || String(t.removal_reason.id ?? '')}</dd>
            </>
          ) : null}
          {t.note ? (
            <>
              <dt>Note</dt>
              <dd>{String(t.note)}</dd>
            </>
          ) : null}
          {t.removal_date ? (
            <>
              <dt>Removed on</dt>
              <dd>{String(t.removal_date)}</dd>
            </>
          ) : null}
          {t.citation_text ? (
            <>
              <dt>Citation</dt>
              <dd>{String(t.citation_text)}</dd>
            </>
          ) : null}
        </dl>
      </article>
    </Layout>
  );
}

/** An error page (404, 403, 503…) for browsers. */
export function ErrorPage({ baseUrl, status, message }: { baseUrl: string; status: number; message: string }): VNode {
  const title = status === 404 ? 'Not found' : status === 403 ? 'Permission required' : status === 410 ? 'Gone' : `Error ${status}`;
  return (
    <Layout head={{ title, noindex: true }} baseUrl={baseUrl}>
      <article>
        <h1>{title}</h1>
        <p>{message}</p>
        <p>
          <a href={`${baseUrl}/search`}>Search the records</a>
        </p>
      </article>
    </Layout>
  );
}
