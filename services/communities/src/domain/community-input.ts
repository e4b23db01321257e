/**
 * Parsing and validation of a community create/update body (reference §2.2), without I/O:
 * field errors are collected (never thrown one by one) so a client sees every problem at once.
 * Vocabulary ids (type, organizations, funders, awards) are only collected here as references;
 * the service resolves them over RPC and adds the errors of unknown ids.
 *
 * The spec's write form `access{visibility, member_policy, record_policy}` is mapped to the read
 * form with exactly `{visibility, members_visibility, member_policy, record_submission_policy,
 * review_policy, record_restricted_policy}`; the read-form keys are accepted too (InvenioRDM
 * clients send them).
 */
import type { FieldError } from '@rdm/platform';
import { sanitizeHtml } from '@rdm/platform';

/** The read form of `access`. */
export interface CommunityAccess {
  visibility: string;
  members_visibility: string;
  member_policy: string;
  record_submission_policy: string;
  review_policy: string;
  record_restricted_policy: string;
}

/** Allowed values of each access key, and its default. */
export const ACCESS_FIELDS: Record<keyof CommunityAccess, { values: readonly string[]; default: string }> = {
  visibility: { values: ['public', 'restricted'], default: 'public' },
  members_visibility: { values: ['public', 'restricted', 'hidden'], default: 'public' },
  member_policy: { values: ['open', 'closed'], default: 'closed' },
  record_submission_policy: { values: ['open', 'closed'], default: 'open' },
  review_policy: { values: ['open', 'closed', 'members', 'all'], default: 'closed' },
  record_restricted_policy: { values: ['restricted', 'open'], default: 'restricted' },
};

/** Legacy/spec `record_policy` values → `record_submission_policy`. */
const RECORD_POLICY: Record<string, string> = { open: 'open', closed: 'closed', restricted: 'closed' };

/** A vocabulary reference to resolve: where it sits, and its type and id. */
export interface VocabRef {
  field: string;
  /** `communitytypes`, `affiliations`, `funders`, `awards`, or the vocabulary of a custom field. */
  type: string;
  id: string;
}

/** The parsed body. `metadata` still holds bare references (`{id}`) until the service resolves them. */
export interface ParsedCommunity {
  slug?: string;
  metadata: Record<string, any>;
  access: CommunityAccess;
  refs: VocabRef[];
  errors: FieldError[];
  /**
   * The body asks for a `children` other than the stored `{allow: false}`: InvenioRDM's
   * `manage_children` is the system's alone, so the service refuses it with 403 (subcommunities
   * are not supported here, so `children.allow` stays false).
   */
  childrenChange: boolean;
}

/** Messages of the slug rules (reference §2.2). */
export const SLUG_MESSAGES = {
  length: 'Field cannot be blank or longer than 100 characters.',
  chars: 'The identifier should contain only letters, numbers, or dashes.',
  uuid: 'The ID must not be an Universally Unique IDentifier (UUID).',
  taken: 'A community with this identifier already exists.',
  required: 'Missing data for required field.',
  viaRename: 'The ID should be modified through the renaming URL instead.',
  sameRename: 'A new ID value is required for the renaming.',
} as const;

const REQUIRED = 'Missing data for required field.';
const UUID_RE = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** Does `s` parse as a UUID (with or without dashes, like Python's `uuid.UUID`)? */
export function isUuid(s: string): boolean {
  return UUID_RE.test(s.replace(/^urn:uuid:/i, '').replace(/^\{(.*)\}$/, '$1'));
}

/** Validate a slug; returns the lowercased slug or pushes errors. */
export function parseSlug(raw: unknown, errors: FieldError[], field = 'slug'): string | undefined {
  if (raw === undefined || raw === null) {
    errors.push({ field, messages: [REQUIRED] });
    return undefined;
  }
  if (typeof raw !== 'string') {
    errors.push({ field, messages: ['Not a valid string.'] });
    return undefined;
  }
  const slug = raw.trim().toLowerCase();
  const messages: string[] = [];
  if (slug.length < 1 || slug.length > 100) messages.push(SLUG_MESSAGES.length);
  else if (!/^[-\w]+$/.test(slug)) messages.push(SLUG_MESSAGES.chars);
  else if (isUuid(slug)) messages.push(SLUG_MESSAGES.uuid);
  if (messages.length) {
    errors.push({ field, messages });
    return undefined;
  }
  return slug;
}

const isObj = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

function text(
  md: Record<string, any>,
  key: string,
  errors: FieldError[],
  opts: { required?: boolean; max: number; html?: boolean },
): string | undefined {
  const v = md[key];
  const field = `metadata.${key}`;
  if (v === undefined || v === null) {
    if (opts.required) errors.push({ field, messages: [REQUIRED] });
    return undefined;
  }
  if (typeof v !== 'string') {
    errors.push({ field, messages: ['Not a valid string.'] });
    return undefined;
  }
  const value = opts.html ? sanitizeHtml(v) : v;
  if ((!opts.html && value.trim().length < 1) || value.length > opts.max) {
    errors.push({
      field,
      messages: [
        opts.html ? `Field cannot be longer than ${opts.max} characters.` : `Field cannot be blank or longer than ${opts.max} characters.`,
      ],
    });
    return undefined;
  }
  return value;
}

function parseAccess(raw: unknown, errors: FieldError[], current?: CommunityAccess): CommunityAccess {
  const base: CommunityAccess = current
    ? { ...current }
    : (Object.fromEntries(Object.entries(ACCESS_FIELDS).map(([k, v]) => [k, v.default])) as unknown as CommunityAccess);
  if (raw === undefined || raw === null) return base;
  if (!isObj(raw)) {
    errors.push({ field: 'access', messages: ['Invalid input type.'] });
    return base;
  }
  const check = (key: keyof CommunityAccess, value: unknown, field = `access.${key}`) => {
    const allowed = ACCESS_FIELDS[key].values;
    if (typeof value !== 'string' || !allowed.includes(value)) {
      errors.push({ field, messages: [`Must be one of: ${allowed.join(', ')}.`] });
      return;
    }
    base[key] = value;
  };
  for (const key of Object.keys(ACCESS_FIELDS) as (keyof CommunityAccess)[]) {
    if (raw[key] !== undefined && raw[key] !== null) check(key, raw[key]);
  }
  if (raw.record_policy !== undefined && raw.record_policy !== null && raw.record_submission_policy === undefined) {
    const mapped = typeof raw.record_policy === 'string' ? RECORD_POLICY[raw.record_policy] : undefined;
    if (mapped) base.record_submission_policy = mapped;
    else errors.push({ field: 'access.record_policy', messages: [`Must be one of: ${Object.keys(RECORD_POLICY).join(', ')}.`] });
  }
  return base;
}

function parseUrl(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && !!u.hostname;
  } catch {
    return false;
  }
}

function parseMetadata(raw: unknown, errors: FieldError[], refs: VocabRef[]): Record<string, any> {
  if (raw === undefined || raw === null) {
    errors.push({ field: 'metadata', messages: [REQUIRED] });
    return {};
  }
  if (!isObj(raw)) {
    errors.push({ field: 'metadata', messages: ['Invalid input type.'] });
    return {};
  }
  const md: Record<string, any> = {};
  const title = text(raw, 'title', errors, { required: true, max: 250 });
  if (title !== undefined) md.title = title;
  const description = text(raw, 'description', errors, { max: 250 });
  if (description !== undefined) md.description = description;
  for (const key of ['curation_policy', 'page'] as const) {
    const v = text(raw, key, errors, { max: 50000, html: true });
    if (v !== undefined) md[key] = v;
  }
  if (raw.type !== undefined && raw.type !== null) {
    if (!isObj(raw.type) || typeof raw.type.id !== 'string' || raw.type.id === '') {
      errors.push({ field: 'metadata.type.id', messages: [REQUIRED] });
    } else {
      md.type = { id: raw.type.id };
      refs.push({ field: 'metadata.type', type: 'communitytypes', id: raw.type.id });
    }
  }
  if (raw.website !== undefined && raw.website !== null && raw.website !== '') {
    if (parseUrl(raw.website)) md.website = raw.website;
    else errors.push({ field: 'metadata.website', messages: ['Not a valid URL.'] });
  }
  if (raw.organizations !== undefined && raw.organizations !== null) {
    if (!Array.isArray(raw.organizations)) errors.push({ field: 'metadata.organizations', messages: ['Not a valid list.'] });
    else {
      md.organizations = [];
      raw.organizations.forEach((o: unknown, i: number) => {
        const field = `metadata.organizations.${i}`;
        if (isObj(o) && typeof o.id === 'string' && o.id !== '') {
          md.organizations.push({ id: o.id });
          refs.push({ field, type: 'affiliations', id: o.id });
        } else if (isObj(o) && typeof o.name === 'string' && o.name.trim() !== '') {
          md.organizations.push({ name: o.name.trim() });
        } else {
          errors.push({ field, messages: ['An existing id or a free text name must be present.'] });
        }
      });
    }
  }
  if (raw.funding !== undefined && raw.funding !== null) {
    if (!Array.isArray(raw.funding)) errors.push({ field: 'metadata.funding', messages: ['Not a valid list.'] });
    else {
      md.funding = [];
      raw.funding.forEach((f: unknown, i: number) => {
        const field = `metadata.funding.${i}`;
        if (!isObj(f) || !isObj(f.funder) || typeof f.funder.id !== 'string' || f.funder.id === '') {
          errors.push({ field: `${field}.funder`, messages: ['An existing id must be present.'] });
          return;
        }
        const entry: Record<string, any> = { funder: { id: f.funder.id } };
        refs.push({ field: `${field}.funder`, type: 'funders', id: f.funder.id });
        if (f.award !== undefined && f.award !== null) {
          if (!isObj(f.award) || typeof f.award.id !== 'string' || f.award.id === '') {
            errors.push({ field: `${field}.award`, messages: ['An existing id must be present.'] });
            return;
          }
          entry.award = { id: f.award.id };
          refs.push({ field: `${field}.award`, type: 'awards', id: f.award.id });
        }
        md.funding.push(entry);
      });
    }
  }
  return md;
}

/**
 * Parse a create (`current` absent) or update body. On update, `slug` may be omitted or repeat
 * the current slug (another value → 400, renaming has its own URL) and `access` keys not sent
 * keep their current values.
 */
export function parseCommunityBody(body: unknown, current?: { slug: string; access: CommunityAccess }): ParsedCommunity {
  const errors: FieldError[] = [];
  const refs: VocabRef[] = [];
  const b = isObj(body) ? body : {};
  if (!isObj(body)) errors.push({ field: '_schema', messages: ['Invalid input type.'] });
  let slug: string | undefined;
  if (!current) slug = parseSlug(b.slug, errors);
  else if (b.slug !== undefined && b.slug !== null) {
    const s = typeof b.slug === 'string' ? b.slug.trim().toLowerCase() : b.slug;
    if (s !== current.slug) errors.push({ field: 'slug', messages: [SLUG_MESSAGES.viaRename] });
  }
  const metadata = parseMetadata(b.metadata, errors, refs);
  const access = parseAccess(b.access, errors, current?.access);
  const childrenChange = parseChildren(b.children, errors);
  return { slug, metadata, access, refs, errors, childrenChange };
}

/** Validate `children` (`{allow: bool}`); true when it differs from the only stored value `{allow: false}`. */
function parseChildren(raw: unknown, errors: FieldError[]): boolean {
  if (raw === undefined) return false;
  if (!isObj(raw)) {
    errors.push({ field: 'children', messages: ['Invalid input type.'] });
    return false;
  }
  if (raw.allow !== undefined && typeof raw.allow !== 'boolean') {
    errors.push({ field: 'children.allow', messages: ['Not a valid boolean.'] });
    return false;
  }
  return raw.allow !== false || Object.keys(raw).length !== 1;
}

/** Title of a vocabulary entry in English (first value otherwise). */
function enTitle(t: unknown): string | undefined {
  if (!isObj(t)) return typeof t === 'string' ? t : undefined;
  return (t.en as string | undefined) ?? (Object.values(t)[0] as string | undefined);
}

/** A resolved vocabulary entry (rdm.vocabularies.rpc.resolve). */
export interface ResolvedEntry {
  id: string;
  title?: unknown;
  props?: Record<string, unknown>;
  name?: string;
  acronym?: string;
  number?: string;
  identifiers?: { identifier: string; scheme: string }[];
  [k: string]: unknown;
}

/** Expand the bare references of `metadata` with the resolved entries (read form of the spec). */
export function expandMetadata(md: Record<string, any>, entries: Map<string, ResolvedEntry>): Record<string, any> {
  const key = (type: string, id: string) => `${type}:${id}`;
  const out = structuredClone(md);
  if (out.type?.id) {
    const e = entries.get(key('communitytypes', out.type.id));
    if (e) out.type = { id: e.id, title: isObj(e.title) ? e.title : { en: enTitle(e.title) ?? e.id } };
  }
  if (Array.isArray(out.organizations)) {
    out.organizations = out.organizations.map((o: Record<string, any>) => {
      if (!o.id) return o;
      const e = entries.get(key('affiliations', o.id));
      if (!e) return o;
      const org: Record<string, unknown> = { id: e.id, name: e.name ?? enTitle(e.title) ?? e.id };
      if (Array.isArray(e.identifiers)) org.identifiers = e.identifiers;
      return org;
    });
  }
  if (Array.isArray(out.funding)) {
    out.funding = out.funding.map((f: Record<string, any>) => {
      const entry: Record<string, any> = {};
      const fe = entries.get(key('funders', f.funder.id));
      entry.funder = fe ? { id: fe.id, name: fe.name ?? enTitle(fe.title) ?? fe.id } : f.funder;
      if (f.award) {
        const ae = entries.get(key('awards', f.award.id));
        entry.award = ae
          ? {
              id: ae.id,
              ...(ae.number !== undefined ? { number: ae.number } : {}),
              ...(ae.title !== undefined ? { title: isObj(ae.title) ? ae.title : { en: enTitle(ae.title) } } : {}),
              identifiers: Array.isArray(ae.identifiers) ? ae.identifiers : [],
              ...(ae.acronym !== undefined ? { acronym: ae.acronym } : {}),
            }
          : f.award;
      }
      return entry;
    });
  }
  return out;
}
