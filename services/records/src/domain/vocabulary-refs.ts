/**
 * Vocabulary references of a write: resolve them in ONE batched call, refuse unknown ids with
 * InvenioRDM's hard 400 `Invalid value <id>.` (nothing saved), refuse resource types lacking the
 * `depositable` tag (related-identifier resource types: `linkable`) with `Not a valid value.`,
 * and replace each reference by its dereferenced form (`{id, title}`; affiliations and funders
 * `{id, name}`; subjects `{id, subject, scheme}`; awards `{id, number, title, …}`; licenses
 * `{id, title, description?, icon?, props{url, scheme}}`). Input titles are ignored.
 */
import { RecordErrors } from './errors.js';
import type { ResolvedItem, VocabEntry, VocabulariesPort } from './ports.js';
import type { Path, VocabRef } from './validation.js';

/** What dereferencing found out about the resource type (for search columns). */
export interface ResourceTypeInfo {
  type: string | null;
  subtype: string | null;
}

const key = (type: string, id: string) => `${type}\u0000${id}`;

function firstTitle(e: VocabEntry): string | undefined {
  const t = e.title;
  if (!t || typeof t !== 'object') return undefined;
  return t.en ?? Object.values(t)[0];
}

/** The dereferenced (read) form of a reference of `type`. */
export function derefShape(type: string, e: VocabEntry): Record<string, unknown> {
  switch (type) {
    case 'affiliations':
    case 'funders': {
      const out: Record<string, unknown> = { id: e.id, name: (e.name as string | undefined) ?? firstTitle(e) ?? e.id };
      return out;
    }
    case 'subjects':
      return {
        id: e.id,
        subject: (e.subject as string | undefined) ?? firstTitle(e) ?? e.id,
        scheme: (e.scheme as string | undefined) ?? e.props?.scheme,
      };
    case 'awards': {
      const out: Record<string, unknown> = { id: e.id };
      const number = (e.number as string | undefined) ?? e.props?.number;
      if (number !== undefined) out.number = number;
      if (e.title) out.title = e.title;
      if (e.acronym) out.acronym = e.acronym;
      if (e.program ?? e.props?.program) out.program = e.program ?? e.props?.program;
      if (Array.isArray(e.identifiers) && e.identifiers.length) out.identifiers = e.identifiers;
      return out;
    }
    case 'licenses': {
      const out: Record<string, unknown> = { id: e.id, title: e.title ?? {} };
      if (e.description) out.description = e.description;
      if (e.icon) out.icon = e.icon;
      const props: Record<string, unknown> = {};
      if (e.props?.url) props.url = e.props.url;
      if (e.props?.scheme) props.scheme = e.props.scheme;
      out.props = props;
      return out;
    }
    default:
      return { id: e.id, title: e.title ?? {} };
  }
}

function setAt(root: Record<string, any>, path: Path, value: unknown): void {
  type Node = Record<string | number, unknown>;
  let cur: unknown = root;
  for (const seg of path.slice(0, -1)) {
    if (cur === null || typeof cur !== 'object') return;
    cur = (cur as Node)[seg];
  }
  if (cur && typeof cur === 'object') (cur as Node)[path[path.length - 1] as string | number] = value;
}

/**
 * Resolve and dereference `refs` inside `data` (mutated). Throws 400 for unknown ids and
 * unsuitable resource types. Returns the first resource type's `props.type`/`props.subtype`.
 */
export async function resolveAndDereference(
  data: Record<string, any>,
  refs: VocabRef[],
  port: VocabulariesPort,
): Promise<ResourceTypeInfo> {
  const info: ResourceTypeInfo = { type: null, subtype: null };
  if (refs.length === 0) return info;
  const unique = new Map<string, { type: string; id: string }>();
  for (const r of refs) unique.set(key(r.type, r.id), { type: r.type, id: r.id });
  const answers: ResolvedItem[] = await port.resolve([...unique.values()]);
  const byKey = new Map(answers.map((a) => [key(a.type, a.id), a]));
  for (const r of refs) {
    const a = byKey.get(key(r.type, r.id));
    if (!a || !a.found || !a.entry) throw RecordErrors.invalidVocabularyValue(r.id);
  }
  for (const r of refs) {
    const e = byKey.get(key(r.type, r.id))!.entry!;
    if (r.type === 'resourcetypes') {
      const related = r.path.includes('related_identifiers');
      const needed = related ? 'linkable' : 'depositable';
      if (!(e.tags ?? []).includes(needed)) throw RecordErrors.unsuitableVocabularyValue();
      if (!related && info.type === null && r.path[1] === 'resource_types' && r.path[2] === 0) {
        info.type = typeof e.props?.type === 'string' && e.props.type ? e.props.type : e.id;
        info.subtype = typeof e.props?.subtype === 'string' && e.props.subtype ? e.props.subtype : null;
      }
    }
    setAt(data, r.path, derefShape(r.type, e));
  }
  return info;
}
