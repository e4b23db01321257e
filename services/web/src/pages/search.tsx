/**
 * The search page (`/search?q=…`) and the list of records it shares with the community page:
 * hits, the record facets of the API's aggregations as filter links (no JavaScript: each bucket
 * is a link toggling its filter), and paging links.
 *
 * When to use: pages.routes.ts renders these from `GET /api/records` (or a community's records).
 */
import { sanitizeHtml } from '@rdm/platform';
import type { VNode } from 'preact';
import { titleOf } from './format.js';
import { Layout } from './layout.js';

/** The facets the pages offer, with their labels (records' aggregations). */
export const FACETS: readonly { name: string; label: string }[] = [
  { name: 'resource_type', label: 'Resource types' },
  { name: 'access_status', label: 'Access status' },
  { name: 'file_type', label: 'File types' },
];

/** Aggregation names of the API by facet parameter name. */
const AGGREGATION: Record<string, string> = { resource_type: 'resource_types', access_status: 'access_status', file_type: 'file_type' };

/** The state of a search: query, page, size and the selected facet values. */
export interface SearchState {
  q: string;
  page: number;
  size: number;
  sort?: string;
  filters: Record<string, string[]>;
}

/** The URL of `path` for a search state (only set values). */
export function searchHref(path: string, s: SearchState): string {
  const u = new URLSearchParams();
  if (s.q) u.set('q', s.q);
  if (s.sort) u.set('sort', s.sort);
  for (const [k, vs] of Object.entries(s.filters)) for (const v of vs) u.append(k, v);
  if (s.page > 1) u.set('page', String(s.page));
  if (s.size !== 10) u.set('size', String(s.size));
  const q = u.toString();
  return q ? `${path}?${q}` : path;
}

function toggled(s: SearchState, facet: string, value: string): SearchState {
  const cur = s.filters[facet] ?? [];
  const next = cur.includes(value) ? cur.filter((v) => v !== value) : [...cur, value];
  return { ...s, page: 1, filters: { ...s.filters, [facet]: next } };
}

/** Props of the results block. */
export interface ResultsProps {
  /** The API's list answer (`hits`, `aggregations`). */
  answer: any;
  state: SearchState;
  /** Path of the page the links go to (`/search`, `/communities/<slug>`), absolute. */
  path: string;
}

/** Hits, facets and paging of a record search. */
export function Results({ answer, state, path }: ResultsProps): VNode {
  const hits: any[] = answer?.hits?.hits ?? [];
  const total = Number(answer?.hits?.total ?? 0);
  const pages = Math.max(1, Math.ceil(Math.min(total, 10000) / state.size));
  const aggs = answer?.aggregations ?? {};
  return (
    <>
      <section aria-labelledby="h-results">
        <h2 id="h-results">
          {total} {total === 1 ? 'record' : 'records'}
        </h2>
        {hits.map((h) => {
          const m = h.metadata ?? {};
          return (
            <div class="hit">
              <h3>
                <a href={h.links?.self_html}>{String(m.title ?? h.id)}</a>
              </h3>
              <div class="muted">
                {[m.publication_date, titleOf(m.resource_type?.title), h.access?.status].filter(Boolean).map(String).join(' · ')}
              </div>
              <div>
                {(m.creators ?? [])
                  .slice(0, 5)
                  .map((c: any) => c?.person_or_org?.name ?? '')
                  .filter(Boolean)
                  .join('; ')}
              </div>
            </div>
          );
        })}
        <nav class="pager" aria-label="Pages">
          {state.page > 1 ? <a href={searchHref(path, { ...state, page: state.page - 1 })}>Previous page</a> : null}
          <span>
            Page {state.page} of {pages}
          </span>
          {state.page < pages ? <a href={searchHref(path, { ...state, page: state.page + 1 })}>Next page</a> : null}
        </nav>
      </section>
      <aside>
        {FACETS.map((f) => {
          const buckets: any[] = aggs[AGGREGATION[f.name]]?.buckets ?? [];
          if (!buckets.length) return null;
          return (
            <div class="panel">
              <h2>{f.label}</h2>
              <ul class="plain">
                {buckets.map((b) => {
                  const on = (state.filters[f.name] ?? []).includes(String(b.key));
                  return (
                    <li>
                      <a href={searchHref(path, toggled(state, f.name, String(b.key)))} aria-current={on ? 'true' : undefined}>
                        {on ? '☑ ' : '☐ '}
                        {String(b.label ?? b.key)}
                      </a>{' '}
                      <span class="muted">({Number(b.doc_count ?? 0)})</span>
                    </li>
                  );
                })}
              </ul>
            </div>
          );
        })}
      </aside>
    </>
  );
}

/** The search page. */
export function SearchPage(p: { baseUrl: string; answer: any; state: SearchState }): VNode {
  return (
    <Layout
      head={{ title: p.state.q ? `Search: ${p.state.q}` : 'Search records', canonical: `${p.baseUrl}/search` }}
      baseUrl={p.baseUrl}
      q={p.state.q}
      side
    >
      <div>
        <h1>{p.state.q ? `Search: ${p.state.q}` : 'Search records'}</h1>
        <Results answer={p.answer} state={p.state} path={`${p.baseUrl}/search`} />
      </div>
    </Layout>
  );
}

/** A community's page: its profile, then its records with search and paging. */
export function CommunityPage(p: { baseUrl: string; community: any; answer: any; state: SearchState }): VNode {
  const c = p.community;
  const m = c.metadata ?? {};
  const self = c.links?.self_html ?? `${p.baseUrl}/communities/${c.slug}`;
  return (
    <Layout
      head={{
        title: String(m.title ?? c.slug),
        canonical: self,
        meta: [
          { property: 'og:type', content: 'website' },
          { property: 'og:title', content: String(m.title ?? c.slug) },
          { property: 'og:url', content: self },
        ],
      }}
      baseUrl={p.baseUrl}
    >
      <article>
        <h1>{String(m.title ?? c.slug)}</h1>
        {m.description ? <p>{String(m.description)}</p> : null}
        {m.website ? (
          <p>
            Website: <a href={String(m.website)}>{String(m.website)}</a>
          </p>
        ) : null}
        {(m.organizations ?? []).length ? (
          <p>
            Organisations:{' '}
            {(m.organizations as any[])
              .map((o) => String(o?.name ?? o?.id ?? ''))
              .filter(Boolean)
              .join('; ')}
          </p>
        ) : null}
        {m.curation_policy ? (
          <details>
            <summary>Curation policy</summary>
            {/* biome-ignore lint/security/noDangerouslySetInnerHtml: rich text sanitized by the API and again here (platform allow-list) */}
            <div class="description" dangerouslySetInnerHTML={{ __html: sanitizeHtml(String(m.curation_policy)) }} />
          </details>
        ) : null}
        <form action={self} method="get" aria-label="Search">
          <label for="community-q">Search this community </label>
          <input id="community-q" type="search" name="q" value={p.state.q} />
          <button type="submit">Search</button>
        </form>
        <Results answer={p.answer} state={p.state} path={self} />
      </article>
    </Layout>
  );
}
