/**
 * MARC21 slim XML (`application/marcxml+xml`; the OAI-PMH `marcxml` prefix), validated against
 * MARC21slim.xsd in the tests. Tags after InvenioRDM's MARCXMLSchema (001, 005, 024 DOI, 041
 * languages, 100/700 names, 245, 260, 500/520, 536 funding, 540/542 rights and access, 653
 * subjects, 856 files and related URLs, 909 OAI, 980 type and communities). Why the indicator
 * cases differ from InvenioRDM (`909CO` → `909co`, `999C5` left out): the MARC21 slim schema
 * allows only digits, lowercase letters and blanks as indicators.
 */
import { el, type XmlNode } from './xml.js';
import type { ExportContext, RecordJson } from './util.js';
import * as util from './util.js';

type Sub = [code: string, value: unknown];

function field(tag: string, ind1: string, ind2: string, subs: Sub[]): XmlNode | undefined {
  const kept = subs.filter(([, v]) => v !== undefined && v !== null && String(v).trim() !== '');
  if (kept.length === 0) return undefined;
  return el('datafield', { tag, ind1, ind2 }, ...kept.map(([code, v]) => el('subfield', { code }, String(v))));
}

/** The fixed leader: record length and base address left to the reader (as InvenioRDM), language material. */
export const MARC_LEADER = '00000nam  2200000uu 4500';

function nameSubs(c: Record<string, any>, ctx: ExportContext, rolesType: string): Sub[] {
  const p = c.person_or_org ?? {};
  const subs: Sub[] = [['a', util.personName(p)]];
  for (const a of util.list(c.affiliations)) subs.push(['u', a.name]);
  for (const i of util.list(p.identifiers)) subs.push(['0', `(${i.scheme}) ${i.identifier}`]);
  const marc = ctx.props(rolesType, c.role?.id).marc;
  if (typeof marc === 'string' && marc) subs.push(['4', marc]);
  return subs;
}

/** The `<record>` element (MARC21 slim, namespace declared on it) of a record. */
export function marcXml(r: RecordJson, ctx: ExportContext): XmlNode {
  const m = r.metadata ?? {};
  const fields: (XmlNode | undefined)[] = [];
  const doi = util.doiOf(r);
  if (doi)
    fields.push(
      field('024', '7', ' ', [
        ['a', doi],
        ['2', 'doi'],
      ]),
    );
  for (const l of util.list(m.languages)) fields.push(field('041', ' ', ' ', [['a', l.id]]));
  const creators = util.list(m.creators);
  if (creators[0]) fields.push(field('100', ' ', ' ', nameSubs(creators[0], ctx, 'creatorsroles')));
  fields.push(field('245', ' ', ' ', [['a', util.plain(m.title)]]));
  fields.push(
    field('260', ' ', ' ', [
      ['b', m.publisher],
      ['c', m.publication_date],
    ]),
  );
  for (const d of util.list(m.additional_descriptions)) fields.push(field('500', ' ', ' ', [['a', util.stripHtml(d.description)]]));
  fields.push(field('520', ' ', ' ', [['a', util.stripHtml(m.description)]]));
  for (const f of util.list(m.funding)) {
    fields.push(
      field('536', ' ', ' ', [
        ['a', util.l10n(f.award?.title)],
        ['c', f.award?.number],
        ['f', f.funder?.name ?? util.l10n(f.funder?.title)],
      ]),
    );
  }
  for (const right of util.list(m.rights))
    fields.push(
      field('540', ' ', ' ', [
        ['a', util.l10n(right.title)],
        ['u', right.props?.url ?? right.link],
      ]),
    );
  if (m.copyright) fields.push(field('540', ' ', ' ', [['a', m.copyright]]));
  fields.push(field('542', ' ', ' ', [['l', r.access?.status]]));
  for (const s of util.list(m.subjects)) fields.push(field('653', ' ', ' ', [['a', s.subject]]));
  for (const c of creators.slice(1)) fields.push(field('700', ' ', ' ', nameSubs(c, ctx, 'creatorsroles')));
  for (const c of util.list(m.contributors)) fields.push(field('700', ' ', ' ', nameSubs(c, ctx, 'contributorsroles')));
  for (const f of util.visibleFiles(r)) {
    fields.push(
      field('856', '4', ' ', [
        ['s', f.size],
        ['u', util.fileUrl(r, f.key, ctx)],
        ['z', f.checksum],
      ]),
    );
  }
  for (const x of util.list(m.related_identifiers)) {
    const url = util.identifierUrl(x.identifier, x.scheme);
    fields.push(
      field('856', '4', '2', [
        ['u', url],
        ['z', x.relation_type?.id],
      ]),
    );
  }
  const oai = r.pids?.oai?.identifier;
  const communities = util.list(r.parent?.communities?.entries);
  fields.push(field('909', 'c', 'o', [['o', oai], ...communities.map((c): Sub => ['p', c.slug])]));
  const rtProps = ctx.props('resourcetypes', util.resourceTypeOf(r)?.id);
  fields.push(
    field('980', ' ', ' ', [
      ['a', rtProps.marc21_type ?? util.resourceTypeOf(r)?.id],
      ['b', rtProps.marc21_subtype],
    ]),
  );
  for (const c of communities) fields.push(field('980', ' ', ' ', [['a', c.slug ? `user-${c.slug}` : undefined]]));

  const updated = typeof r.updated === 'string' ? r.updated.replace(/[-:T]/g, '').slice(0, 14) : undefined;
  return el(
    'record',
    {
      xmlns: 'http://www.loc.gov/MARC21/slim',
      'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
      'xsi:schemaLocation': 'http://www.loc.gov/MARC21/slim http://www.loc.gov/standards/marcxml/schema/MARC21slim.xsd',
      type: 'Bibliographic',
    },
    el('leader', null, MARC_LEADER),
    el('controlfield', { tag: '001' }, r.id),
    updated && updated.length === 14 ? el('controlfield', { tag: '005' }, `${updated}.0`) : undefined,
    ...fields,
  );
}
