/**
 * The one stylesheet of every page, served by the web service itself under a content-hashed name
 * (`/static/site.<hash>.css`, cached for a year: a new stylesheet is a new URL). No asset comes
 * from another host. Dark mode follows the visitor's `prefers-color-scheme`.
 *
 * When to edit: the look of the pages changes; the hash follows by itself.
 */
import { createHash } from 'node:crypto';

/** The stylesheet's text. */
export const STYLESHEET = `:root{color-scheme:light dark;--bg:#fff;--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--accent:#0a58ca;--panel:#f6f8fa;--warn:#9a6700}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#30363d;--accent:#58a6ff;--panel:#161b22;--warn:#d29922}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:var(--accent)}
header.site,footer.site{border-bottom:1px solid var(--line);padding:.6rem 1rem;display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
footer.site{border-top:1px solid var(--line);border-bottom:0;color:var(--muted);font-size:.9rem;margin-top:2rem}
header.site form{margin-left:auto;display:flex;gap:.4rem}
input,select,button{font:inherit;color:inherit;background:var(--bg);border:1px solid var(--line);border-radius:4px;padding:.25rem .5rem}
main{max-width:72rem;margin:0 auto;padding:1rem;display:grid;gap:1.5rem;grid-template-columns:minmax(0,1fr)}
@media (min-width:56rem){main.with-side{grid-template-columns:minmax(0,1fr) 20rem}}
h1{font-size:1.6rem;line-height:1.25;margin:.2rem 0 .6rem}
h2{font-size:1.15rem;margin:1.4rem 0 .4rem;border-bottom:1px solid var(--line);padding-bottom:.2rem}
.muted{color:var(--muted)}
.badges{display:flex;gap:.4rem;flex-wrap:wrap;margin:.2rem 0}
.badge{border:1px solid var(--line);border-radius:1rem;padding:0 .6rem;font-size:.85rem;background:var(--panel)}
.badge.warn{color:var(--warn);border-color:var(--warn)}
.panel{border:1px solid var(--line);border-radius:6px;padding:.6rem .9rem;background:var(--panel)}
.citation{overflow-wrap:anywhere;margin:.3rem 0 .6rem}
.citation-style select{max-width:100%}
aside .panel{margin-bottom:1rem}
ul.plain{list-style:none;padding:0;margin:0}
ul.inline{list-style:none;padding:0;margin:0;display:flex;flex-wrap:wrap;gap:.2rem 1rem}
table{border-collapse:collapse;width:100%;font-size:.95rem}
th,td{text-align:left;padding:.3rem .4rem;border-bottom:1px solid var(--line);vertical-align:top}
td.num{text-align:right;white-space:nowrap}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85em;word-break:break-all}
.description{overflow-wrap:anywhere}
.current{font-weight:600}
nav.pager{display:flex;gap:1rem;margin-top:1rem}
.hit{padding:.6rem 0;border-bottom:1px solid var(--line)}
.hit h3{margin:0;font-size:1.05rem}
`;

/** Content hash of the stylesheet (first 12 hex digits of its SHA-256). */
export const STYLESHEET_HASH = createHash('sha256').update(STYLESHEET).digest('hex').slice(0, 12);

/** The stylesheet's file name under `/static/`. */
export const STYLESHEET_NAME = `site.${STYLESHEET_HASH}.css`;
