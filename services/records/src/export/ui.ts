/**
 * The InvenioRDM UI JSON form (`application/vnd.inveniordm.v1+json`): the record JSON as the
 * caller sees it plus a `ui` block of display-ready values, after InvenioRDM's UIJSONSerializer
 * (localized dates, resource type and access status titles, creators with numbered affiliations,
 * language titles, the description as plain text). English only (no i18n here).
 */
import { type ExportContext, l10n, list, type RecordJson, resourceTypeOf, stripHtml } from './util.js';

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** `2020-06-01` → `June 1, 2020` (long) / `Jun 1, 2020` (medium); intervals joined with an en dash. */
export function formatEdtf(value: unknown, style: 'long' | 'medium'): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const one = (d: string) => {
    const m = /^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?/.exec(d);
    if (!m) return d;
    const month = m[2] ? MONTHS[Number(m[2]) - 1] : undefined;
    const name = month && style === 'medium' ? month.slice(0, 3) : month;
    if (!name) return m[1];
    return m[3] ? `${name} ${Number(m[3])}, ${m[1]}` : `${name} ${m[1]}`;
  };
  return value.split('/').map(one).join(' – ');
}

const ACCESS: Record<string, { title: string; description: string; icon: string; message_class: string }> = {
  open: { title: 'Open', description: 'The record and files are publicly accessible.', icon: 'unlock', message_class: '' },
  restricted: {
    title: 'Restricted',
    description: 'The record is publicly accessible, but files are restricted to users with access.',
    icon: 'ban',
    message_class: 'error',
  },
  'metadata-only': { title: 'Metadata-only', description: 'No files are available for this record.', icon: 'tag', message_class: '' },
  embargoed: {
    title: 'Embargoed',
    description: 'The files will be made publicly available on the embargo date.',
    icon: 'outline clock',
    message_class: 'warning',
  },
};

function people(items: Record<string, any>[]) {
  const affiliations: [number, string, string | null][] = [];
  const index = new Map<string, number>();
  const out = items.map((c) => {
    const copy = structuredClone(c);
    const ids: [number, string][] = [];
    for (const a of list(c.affiliations)) {
      if (!a.name) continue;
      const key = a.id ?? a.name;
      let n = index.get(key);
      if (n === undefined) {
        n = affiliations.length + 1;
        index.set(key, n);
        affiliations.push([n, a.name, a.id ?? null]);
      }
      ids.push([n, a.name]);
    }
    copy.affiliations = ids;
    return copy;
  });
  return { creators: out, affiliations };
}

/** The UI JSON form of a record. */
export function uiJson(r: RecordJson, _ctx: ExportContext): Record<string, any> {
  const m = r.metadata ?? {};
  const rt = resourceTypeOf(r);
  const status = String(r.access?.status ?? 'open');
  const access = ACCESS[status] ?? ACCESS.open;
  const ui: Record<string, any> = {
    publication_date_l10n_medium: formatEdtf(m.publication_date, 'medium'),
    publication_date_l10n_long: formatEdtf(m.publication_date, 'long'),
    created_date_l10n_long: formatEdtf(typeof r.created === 'string' ? r.created.slice(0, 10) : undefined, 'long'),
    updated_date_l10n_long: formatEdtf(typeof r.updated === 'string' ? r.updated.slice(0, 10) : undefined, 'long'),
    resource_type: rt ? { id: rt.id, title_l10n: l10n(rt.title) ?? rt.id } : undefined,
    access_status: {
      id: status,
      title_l10n: access.title,
      description_l10n: access.description,
      icon: access.icon,
      embargo_date_l10n: formatEdtf(r.access?.embargo?.until, 'long') ?? null,
      message_class: access.message_class,
    },
    creators: people(list(m.creators)),
    contributors: people(list(m.contributors)),
    languages: list(m.languages).map((l) => ({ id: l.id, title_l10n: l10n(l.title) ?? l.id })),
    description_stripped: stripHtml(m.description),
    version: m.version ?? 'v1',
    is_draft: r.is_draft === true,
  };
  if (list(m.additional_titles).length) {
    ui.additional_titles = list(m.additional_titles).map((t) => ({
      ...t,
      type: t.type ? { ...t.type, title_l10n: l10n(t.type.title) } : t.type,
    }));
  }
  if (list(m.dates).length) {
    ui.dates = list(m.dates).map((d) => ({
      ...d,
      date: formatEdtf(d.date, 'long'),
      type: d.type ? { ...d.type, title_l10n: l10n(d.type.title) } : d.type,
    }));
  }
  if (list(m.rights).length)
    ui.rights = list(m.rights).map((x) => ({ ...x, title_l10n: l10n(x.title), description_l10n: l10n(x.description) }));
  for (const k of Object.keys(ui)) if (ui[k] === undefined) delete ui[k];
  return { ...r, ui };
}
