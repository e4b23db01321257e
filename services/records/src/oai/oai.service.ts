/**
 * OAI-PMH 2.0 data provider (`/oai2d`): the six verbs over the public published records, metadata
 * prefixes `oai_dc`, `datacite`, `oai_datacite`, `marcxml`, community and resource-type sets,
 * `from`/`until` on the record update time (second granularity), stateless resumption tokens
 * (tokens.ts), deletedRecord `persistent`. Metadata comes from the anonymous JSON read form of the
 * stored document, so only public metadata is ever disseminated. Protocol errors are 200 responses
 * with `<error code>`; infrastructure errors propagate (JSON 503 from the error middleware).
 */
import type { Knex } from '@rdm/platform';
import { dataciteJson } from '../export/datacite.js';
import { dataciteResourceXml } from '../export/datacite-xml.js';
import { dublinCoreXml } from '../export/dublincore.js';
import { marcXml } from '../export/marcxml.js';
import { publicJsonOfDoc } from '../export/reader.js';
import type { ExportContext, RecordJson } from '../export/util.js';
import type { VocabPropsCache } from '../export/vocab-props.js';
import { el, textEl, type XmlChild, type XmlNode, xmlDocument } from '../export/xml.js';
import * as repo from '../repo/oai.repo.js';
import { checkArgs, fromBound, type OaiArgs, OaiError, type RawArgs, untilExclusiveBound } from './oai.args.js';
import type { OaiSets } from './sets.js';
import { decodeToken, encodeToken, OAI_TOKEN_TTL_SECONDS, type TokenState } from './tokens.js';

/** A metadata format of the repository. */
interface MetadataFormat {
  prefix: string;
  schema: string;
  namespace: string;
  render(r: RecordJson, ctx: ExportContext): XmlNode;
}

const OAI_DATACITE_NS = 'http://schema.datacite.org/oai/oai-1.1/';

const FORMATS: MetadataFormat[] = [
  {
    prefix: 'oai_dc',
    schema: 'http://www.openarchives.org/OAI/2.0/oai_dc.xsd',
    namespace: 'http://www.openarchives.org/OAI/2.0/oai_dc/',
    render: dublinCoreXml,
  },
  {
    prefix: 'datacite',
    schema: 'http://schema.datacite.org/meta/kernel-4.5/metadata.xsd',
    namespace: 'http://datacite.org/schema/kernel-4',
    render: (r, c) => dataciteResourceXml(dataciteJson(r, c)),
  },
  {
    prefix: 'oai_datacite',
    schema: 'http://schema.datacite.org/oai/oai-1.1/oai.xsd',
    namespace: OAI_DATACITE_NS,
    render: (r, c) =>
      el(
        'oai_datacite',
        {
          xmlns: OAI_DATACITE_NS,
          'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
          'xsi:schemaLocation': `${OAI_DATACITE_NS} ${OAI_DATACITE_NS}oai.xsd`,
        },
        el('schemaVersion', null, '4.5'),
        el('datacentreSymbol', null, c.datacentreSymbol || c.siteName),
        el('payload', null, dataciteResourceXml(dataciteJson(r, c))),
      ),
  },
  {
    prefix: 'marcxml',
    schema: 'http://www.loc.gov/standards/marcxml/schema/MARC21slim.xsd',
    namespace: 'http://www.loc.gov/MARC21/slim',
    render: marcXml,
  },
];

/** Configuration of the provider. */
export interface OaiConfig {
  /** PUBLIC_BASE_URL. */
  baseUrl: string;
  /** Secret of the resumption tokens. */
  secret: string;
  repositoryName: string;
  adminEmail: string;
  doiResolverUrl: string;
  datacentreSymbol?: string;
  /** Items per ListRecords page (100) and per ListIdentifiers page (5 × that). */
  pageSize?: number;
}

/** Dependencies of the provider. */
export interface OaiDeps {
  db: Knex;
  sets: OaiSets;
  props: VocabPropsCache;
  config: OaiConfig;
}

/** Second-granularity datestamp of a cursor (`…:ss.uuuuuuZ` → `…:ssZ`). */
const datestamp = (cursor: string) => `${cursor.slice(0, 19)}Z`;

/** The OAI-PMH provider: one call per request, answering the XML document. */
export class OaiProvider {
  private readonly pageSize: number;

  constructor(private readonly d: OaiDeps) {
    this.pageSize = d.config.pageSize ?? 100;
  }

  /** The base URL of the endpoint. */
  get baseUrl(): string {
    return `${this.d.config.baseUrl}/oai2d`;
  }

  /** Answer a request (raw arguments: name → values). */
  async handle(raw: RawArgs, now = new Date()): Promise<string> {
    let args: OaiArgs | undefined;
    try {
      args = checkArgs(raw);
      const body = await this.dispatch(args, now);
      return this.envelope(now, this.requestAttrs(args), body);
    } catch (e) {
      if (!(e instanceof OaiError)) throw e;
      // Why (protocol §3.6): after badVerb/badArgument the request element carries no attributes.
      const attrs = !args || e.code === 'badVerb' || e.code === 'badArgument' ? {} : this.requestAttrs(args);
      return this.envelope(now, attrs, [el('error', { code: e.code }, e.message)]);
    }
  }

  private requestAttrs(a: OaiArgs): Record<string, string | undefined> {
    return {
      verb: a.verb,
      identifier: a.identifier,
      metadataPrefix: a.metadataPrefix,
      from: a.from,
      until: a.until,
      set: a.set,
      resumptionToken: a.resumptionToken,
    };
  }

  private envelope(now: Date, attrs: Record<string, string | undefined>, body: XmlChild[]): string {
    return xmlDocument(
      el(
        'OAI-PMH',
        {
          xmlns: 'http://www.openarchives.org/OAI/2.0/',
          'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
          'xsi:schemaLocation': 'http://www.openarchives.org/OAI/2.0/ http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd',
        },
        el('responseDate', null, `${now.toISOString().slice(0, 19)}Z`),
        el('request', attrs, this.baseUrl),
        ...body,
      ),
    );
  }

  private format(prefix: string | undefined): MetadataFormat {
    const f = FORMATS.find((x) => x.prefix === prefix);
    if (!f) throw new OaiError('cannotDisseminateFormat', `The metadata format "${prefix}" is not supported by this repository.`);
    return f;
  }

  private async dispatch(a: OaiArgs, now: Date): Promise<XmlChild[]> {
    switch (a.verb) {
      case 'Identify':
        return [await this.identify()];
      case 'ListMetadataFormats':
        return [await this.listMetadataFormats(a.identifier)];
      case 'ListSets':
        if (a.resumptionToken !== undefined) throw new OaiError('badResumptionToken', 'The resumption token is invalid or expired.');
        return [await this.listSets()];
      case 'GetRecord':
        return [await this.getRecord(a.identifier!, a.metadataPrefix!)];
      default:
        return [await this.list(a, now)];
    }
  }

  private async identify(): Promise<XmlNode> {
    const earliest = await repo.earliestOaiDatestamp(this.d.db);
    return el(
      'Identify',
      null,
      el('repositoryName', null, this.d.config.repositoryName),
      el('baseURL', null, this.baseUrl),
      el('protocolVersion', null, '2.0'),
      el('adminEmail', null, this.d.config.adminEmail),
      el('earliestDatestamp', null, earliest ? datestamp(earliest) : '1970-01-01T00:00:00Z'),
      el('deletedRecord', null, 'persistent'),
      el('granularity', null, 'YYYY-MM-DDThh:mm:ssZ'),
    );
  }

  private async itemOf(identifier: string): Promise<repo.OaiItemRow | undefined> {
    const id = identifier.slice(identifier.lastIndexOf(':') + 1);
    if (!identifier.startsWith('oai:') || !id) return undefined;
    const row = await repo.getOaiItem(this.d.db, id);
    return row && row.oai_identifier === identifier ? row : undefined;
  }

  private async listMetadataFormats(identifier?: string): Promise<XmlNode> {
    if (identifier !== undefined) {
      const row = await this.itemOf(identifier);
      if (!row) throw new OaiError('idDoesNotExist', `No item has the identifier "${identifier}".`);
      if (row.deleted) throw new OaiError('noMetadataFormats', 'The item is deleted: no metadata format can be disseminated for it.');
    }
    return el(
      'ListMetadataFormats',
      null,
      ...FORMATS.map((f) =>
        el(
          'metadataFormat',
          null,
          el('metadataPrefix', null, f.prefix),
          el('schema', null, f.schema),
          el('metadataNamespace', null, f.namespace),
        ),
      ),
    );
  }

  private async listSets(): Promise<XmlNode> {
    const sets = await this.d.sets.list();
    if (sets.length === 0) throw new OaiError('noSetHierarchy', 'This repository has no sets yet.');
    return el('ListSets', null, ...sets.map((s) => el('set', null, el('setSpec', null, s.spec), el('setName', null, s.name))));
  }

  private async getRecord(identifier: string, prefix: string): Promise<XmlNode> {
    const format = this.format(prefix);
    const row = await this.itemOf(identifier);
    if (!row) throw new OaiError('idDoesNotExist', `No item has the identifier "${identifier}".`);
    const [record] = await this.records([row], format);
    return el('GetRecord', null, record);
  }

  private async list(a: OaiArgs, now: Date): Promise<XmlNode> {
    const withRecords = a.verb === 'ListRecords';
    let state: Omit<TokenState, 'after' | 'offset' | 'total' | 'exp'> & Partial<TokenState>;
    if (a.resumptionToken !== undefined) {
      const t = decodeToken(a.resumptionToken, this.d.config.secret, now.getTime());
      if (!t || t.verb !== a.verb) throw new OaiError('badResumptionToken', 'The resumption token is invalid or expired.');
      state = t;
    } else {
      state = { verb: a.verb, metadataPrefix: a.metadataPrefix!, set: a.set, from: a.from, until: a.until };
    }
    const format = this.format(state.metadataPrefix);
    const filter: repo.OaiListFilter = {
      from: state.from ? fromBound(state.from) : undefined,
      untilExclusive: state.until ? untilExclusiveBound(state.until) : undefined,
      after: state.after,
    };
    if (state.set !== undefined) {
      const parsed = await this.d.sets.parse(state.set);
      if ('none' in parsed) {
        if ((await this.d.sets.list()).length === 0) throw new OaiError('noSetHierarchy', 'This repository has no sets yet.');
        throw new OaiError('noRecordsMatch', `No item belongs to the set "${state.set}".`);
      }
      Object.assign(filter, parsed);
    }
    const limit = withRecords ? this.pageSize : this.pageSize * 5;
    const rows = await repo.listOaiItems(this.d.db, filter, limit + 1, withRecords);
    if (rows.length === 0) throw new OaiError('noRecordsMatch', 'No item matches the arguments.');
    const more = rows.length > limit;
    const page = rows.slice(0, limit);
    const offset = state.offset ?? 0;
    const total =
      state.total ??
      (more
        ? await repo.countOaiItems(this.d.db, {
            from: filter.from,
            untilExclusive: filter.untilExclusive,
            communityId: filter.communityId,
            resourceTypeId: filter.resourceTypeId,
          })
        : page.length);
    const items = withRecords ? await this.records(page, format) : await this.headers(page);
    let token: XmlNode | undefined;
    if (more || offset > 0) {
      const last = page[page.length - 1];
      const exp = Math.floor(now.getTime() / 1000) + OAI_TOKEN_TTL_SECONDS;
      const next: TokenState = {
        verb: a.verb,
        metadataPrefix: format.prefix,
        set: state.set,
        from: state.from,
        until: state.until,
        after: { cursor: last.cursor, id: last.id },
        offset: offset + page.length,
        total,
        exp,
      };
      const attrs = {
        completeListSize: Math.max(total, offset + page.length),
        cursor: offset,
        expirationDate: more ? `${new Date(exp * 1000).toISOString().slice(0, 19)}Z` : undefined,
      };
      token = el('resumptionToken', attrs, more ? encodeToken(next, this.d.config.secret) : undefined);
    }
    return el(a.verb, null, ...items, token);
  }

  private async headers(rows: repo.OaiItemRow[]): Promise<XmlNode[]> {
    const communities = await this.d.sets.communitiesById(rows.flatMap((r) => r.community_ids ?? []));
    return rows.map((r) => this.header(r, communities));
  }

  private header(r: repo.OaiItemRow, communities: Map<string, { slug: string }>): XmlNode {
    return el(
      'header',
      r.deleted ? { status: 'deleted' } : null,
      el('identifier', null, r.oai_identifier),
      el('datestamp', null, datestamp(r.cursor)),
      ...this.d.sets.specsOf(r, communities).map((s) => textEl('setSpec', s)),
    );
  }

  private async records(rows: repo.OaiItemRow[], format: MetadataFormat): Promise<XmlNode[]> {
    const communities = await this.d.sets.communitiesById(rows.flatMap((r) => r.community_ids ?? []));
    const o = { baseUrl: this.d.config.baseUrl, doiResolverUrl: this.d.config.doiResolverUrl };
    const json = rows.map((r) => (r.deleted || !r.doc ? undefined : publicJsonOfDoc(r.doc, o)));
    const props = await this.d.props.lookupFor(json.filter((j): j is RecordJson => !!j));
    const ctx: ExportContext = {
      baseUrl: this.d.config.baseUrl,
      siteName: this.d.config.repositoryName,
      doiResolverUrl: this.d.config.doiResolverUrl,
      datacentreSymbol: this.d.config.datacentreSymbol,
      props,
    };
    return rows.map((r, i) => {
      const j = json[i];
      return el('record', null, this.header(r, communities), j ? el('metadata', null, format.render(j, ctx)) : undefined);
    });
  }
}
