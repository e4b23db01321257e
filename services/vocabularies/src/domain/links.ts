/** Absolute links of vocabulary resources, built from PUBLIC_BASE_URL. */
import { kindOf } from './kinds.js';

/** Encode a path segment like InvenioRDM's url_for (`:` stays readable, `/` is kept for subject URIs). */
const seg = (s: string, keepSlash = false) => {
  const e = encodeURIComponent(s).replace(/%3A/gi, ':');
  return keepSlash ? e.replace(/%2F/gi, '/') : e;
};

/** Path (under `/api`) of the entry list of a vocabulary type: `/vocabularies/<type>`, or `/<type>` for the special ones. */
export function listPath(type: string): string {
  return kindOf(type) === 'generic' ? `/api/vocabularies/${seg(type)}` : `/api/${type}`;
}

/** Absolute self link of an entry. */
export function entrySelf(baseUrl: string, type: string, id: string): string {
  return `${baseUrl}${listPath(type)}/${seg(id, type === 'subjects')}`;
}

/** Absolute self link of a vocabulary type (its entry list). */
export function typeSelf(baseUrl: string, type: string): string {
  return `${baseUrl}/api/vocabularies/${seg(type)}`;
}
