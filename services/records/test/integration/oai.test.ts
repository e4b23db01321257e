import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VocabPropsCache } from '../../src/export/vocab-props.js';
import { validateXml, XSD } from '../../src/export/xsd/xmllint.js';
import { OaiProvider } from '../../src/oai/oai.service.js';
import { OaiSets } from '../../src/oai/sets.js';
import { publish, restrictAfterPublication } from './export-support.js';
import { BASE, type Env, SECRET, startEnv } from './support.js';

const COMMUNITY = { id: 'c0ffee00-0000-4000-8000-000000000001', slug: 'ocean', title: 'Ocean', visibility: 'public', is_deleted: false };
const HIDDEN = { id: 'c0ffee00-0000-4000-8000-000000000002', slug: 'secret', title: 'Secret', visibility: 'restricted', is_deleted: false };

const all = (xml: string, re: RegExp) => [...xml.matchAll(re)].map((m) => m[1]);
const errorCode = (xml: string) => /<error code="([^"]+)"/.exec(xml)?.[1];

describe('OAI-PMH /oai2d', () => {
  let env: Env;
  let provider: OaiProvider;
  const published: Record<string, any>[] = [];
  let restrictedLater: Record<string, any>;
  let neverPublic: Record<string, any>;

  /** A provider as a fresh process would build it (nothing shared but the database and the secret). */
  const newProvider = (pageSize: number) =>
    new OaiProvider({
      db: env.db,
      sets: new OaiSets(env.db, env.deps.communities, 0),
      props: new VocabPropsCache(env.deps.vocabularies),
      config: {
        baseUrl: BASE,
        secret: SECRET,
        repositoryName: 'Invenio',
        adminEmail: 'admin@rdm.example.org',
        doiResolverUrl: 'https://doi.org',
        pageSize,
      },
    });

  /** Ask and check the answer against OAI-PMH.xsd (with every metadata format's schema). */
  const ask = async (args: Record<string, string>, p = provider) => {
    const raw = Object.fromEntries(Object.entries(args).map(([k, v]) => [k, [v]]));
    const xml = await p.handle(raw);
    expect(validateXml(xml, XSD.oaiPmh)).toEqual([]);
    return xml;
  };

  beforeAll(async () => {
    env = await startEnv();
    env.fakeCommunities.add(COMMUNITY as any);
    env.fakeCommunities.add(HIDDEN as any);
    for (let i = 0; i < 7; i++) published.push(await publish(env, { files: i === 0 ? ['a.csv'] : [] }));
    neverPublic = await publish(env, { access: { record: 'restricted', files: 'restricted' } });
    restrictedLater = published[6];
    await restrictAfterPublication(env, restrictedLater.id);
    // Why SQL: how records enter communities is the review tests' business; the sets read the
    // community ids the search document carries.
    await env
      .db('search_docs')
      .where({ id: published[1].id, kind: 'record' })
      .update({ community_ids: [COMMUNITY.id, HIDDEN.id] });
    await env
      .db('search_docs')
      .where({ id: published[2].id, kind: 'record' })
      .update({ community_ids: [COMMUNITY.id] });
    provider = newProvider(3);
  });
  afterAll(async () => {
    await env?.close();
  });

  it('should answer Identify (persistent deletions, second granularity)', async () => {
    const xml = await ask({ verb: 'Identify' });
    expect(xml).toContain(`<baseURL>${BASE}/oai2d</baseURL>`);
    expect(xml).toContain('<deletedRecord>persistent</deletedRecord>');
    expect(xml).toContain('<granularity>YYYY-MM-DDThh:mm:ssZ</granularity>');
    expect(xml).toMatch(/<earliestDatestamp>\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z<\/earliestDatestamp>/);
  });

  it('should list the four metadata formats', async () => {
    const xml = await ask({ verb: 'ListMetadataFormats' });
    expect(all(xml, /<metadataPrefix>([^<]+)</g)).toEqual(['oai_dc', 'datacite', 'oai_datacite', 'marcxml']);
    const one = await ask({ verb: 'ListMetadataFormats', identifier: published[0].pids.oai.identifier });
    expect(all(one, /<metadataPrefix>([^<]+)</g)).toHaveLength(4);
  });

  it('should list community sets (public communities only) and resource-type sets', async () => {
    const xml = await ask({ verb: 'ListSets' });
    expect(all(xml, /<setSpec>([^<]+)</g)).toEqual(['community-ocean', 'resource-type-image-photo']);
  });

  for (const prefix of ['oai_dc', 'datacite', 'oai_datacite', 'marcxml']) {
    it(`should GetRecord in ${prefix}, valid against the schemas`, async () => {
      const xml = await ask({ verb: 'GetRecord', identifier: published[0].pids.oai.identifier, metadataPrefix: prefix });
      expect(xml).toContain(`<identifier>${published[0].pids.oai.identifier}</identifier>`);
      expect(xml).toContain('<metadata>');
    });
  }

  it('should harvest every item exactly once across resumption tokens that survive a restart', async () => {
    const seen: string[] = [];
    let xml = await ask({ verb: 'ListRecords', metadataPrefix: 'oai_dc' });
    let pages = 1;
    for (;;) {
      seen.push(...all(xml, /<header(?: status="deleted")?><identifier>([^<]+)</g));
      const token = /<resumptionToken[^>]*>([^<]+)<\/resumptionToken>/.exec(xml)?.[1];
      if (!token) break;
      expect(xml).toMatch(/completeListSize="7"/);
      // Each page from a NEW provider: the token carries everything (no process state).
      xml = await ask({ verb: 'ListRecords', resumptionToken: token }, newProvider(3));
      pages++;
    }
    expect(pages).toBe(3);
    expect(xml).toMatch(/<resumptionToken completeListSize="7" cursor="6"\/>/);
    expect(seen.sort()).toEqual(published.map((r) => r.pids.oai.identifier).sort());
    expect(seen.join()).not.toContain(neverPublic.id);
  });

  it('should show a record restricted after publication as a deleted header without metadata', async () => {
    const id = restrictedLater.pids.oai.identifier;
    const xml = await ask({ verb: 'GetRecord', identifier: id, metadataPrefix: 'oai_dc' });
    expect(xml).toContain('<header status="deleted">');
    expect(xml).not.toContain('<metadata>');
    const ids = await ask({ verb: 'ListIdentifiers', metadataPrefix: 'oai_dc' }, newProvider(100));
    expect(ids).toContain(`<header status="deleted"><identifier>${id}</identifier>`);
    expect(errorCode(await ask({ verb: 'ListMetadataFormats', identifier: id }))).toBe('noMetadataFormats');
  });

  it('should show a tombstoned record (deletion marker) as deleted', async () => {
    await env.db('search_docs').where({ id: published[5].id, kind: 'record' }).update({ deletion_status: 'D' });
    try {
      const xml = await ask({ verb: 'GetRecord', identifier: published[5].pids.oai.identifier, metadataPrefix: 'datacite' });
      expect(xml).toContain('<header status="deleted">');
    } finally {
      await env.db('search_docs').where({ id: published[5].id, kind: 'record' }).update({ deletion_status: 'P' });
    }
  });

  it('should filter by set and by from/until on the update time', async () => {
    const ocean = await ask({ verb: 'ListIdentifiers', metadataPrefix: 'oai_dc', set: 'community-ocean' }, newProvider(100));
    expect(all(ocean, /<identifier>([^<]+)</g).sort()).toEqual([published[1].pids.oai.identifier, published[2].pids.oai.identifier].sort());
    expect(ocean).toContain('<setSpec>community-ocean</setSpec>');
    expect(ocean).not.toContain('community-secret');
    const rt = await ask({ verb: 'ListIdentifiers', metadataPrefix: 'oai_dc', set: 'resource-type-image-photo' }, newProvider(100));
    expect(all(rt, /<header><identifier>([^<]+)</g)).toHaveLength(6);
    const future = await ask({ verb: 'ListRecords', metadataPrefix: 'oai_dc', from: '2999-01-01' });
    expect(errorCode(future)).toBe('noRecordsMatch');
    const past = await ask({ verb: 'ListIdentifiers', metadataPrefix: 'oai_dc', until: '2000-01-01T00:00:00Z' });
    expect(errorCode(past)).toBe('noRecordsMatch');
    const now = new Date();
    const window = await ask(
      { verb: 'ListIdentifiers', metadataPrefix: 'oai_dc', from: '2000-01-01T00:00:00Z', until: `${now.toISOString().slice(0, 19)}Z` },
      newProvider(100),
    );
    expect(all(window, /<identifier>([^<]+)</g)).toHaveLength(7);
  });

  it('should answer every OAI-PMH error code', async () => {
    const id = published[0].pids.oai.identifier;
    expect(errorCode(await ask({ verb: 'Nope' }))).toBe('badVerb');
    expect(errorCode(await ask({ verb: 'ListRecords' }))).toBe('badArgument');
    expect(errorCode(await ask({ verb: 'ListRecords', metadataPrefix: 'oai_dc', from: 'yesterday' }))).toBe('badArgument');
    // Out of the supported range (issue 18: a 500 before).
    expect(errorCode(await ask({ verb: 'ListRecords', metadataPrefix: 'oai_dc', until: '9999-12-31' }))).toBe('badArgument');
    expect(errorCode(await ask({ verb: 'ListIdentifiers', metadataPrefix: 'oai_dc', from: '0000-01-01' }))).toBe('badArgument');
    expect(errorCode(await ask({ verb: 'ListRecords', resumptionToken: 'forged.token' }))).toBe('badResumptionToken');
    expect(errorCode(await ask({ verb: 'ListSets', resumptionToken: 'x' }))).toBe('badResumptionToken');
    expect(errorCode(await ask({ verb: 'GetRecord', identifier: id, metadataPrefix: 'mods' }))).toBe('cannotDisseminateFormat');
    expect(errorCode(await ask({ verb: 'GetRecord', identifier: 'oai:elsewhere:zzzzz-zzz00', metadataPrefix: 'oai_dc' }))).toBe(
      'idDoesNotExist',
    );
    expect(errorCode(await ask({ verb: 'GetRecord', identifier: `oai:rdm.example.org:${neverPublic.id}`, metadataPrefix: 'oai_dc' }))).toBe(
      'idDoesNotExist',
    );
    expect(errorCode(await ask({ verb: 'ListIdentifiers', metadataPrefix: 'oai_dc', set: 'community-nope' }))).toBe('noRecordsMatch');
    expect(errorCode(await ask({ verb: 'ListIdentifiers', metadataPrefix: 'oai_dc', set: 'community-secret' }))).toBe('noRecordsMatch');
    expect(errorCode(await ask({ verb: 'ListMetadataFormats', identifier: restrictedLater.pids.oai.identifier }))).toBe(
      'noMetadataFormats',
    );
    // A repository without any set answers noSetHierarchy (checked inside a rolled-back transaction).
    let xml = '';
    await env.db
      .transaction(async (trx) => {
        await trx('search_docs').where({ kind: 'record' }).update({ community_ids: [], resource_type_id: null });
        const db = trx as unknown as typeof env.db;
        const p = new OaiProvider({
          db,
          sets: new OaiSets(db, env.deps.communities, 0),
          props: new VocabPropsCache(undefined),
          config: { baseUrl: BASE, secret: SECRET, repositoryName: 'x', adminEmail: 'a@b.org', doiResolverUrl: 'https://doi.org' },
        });
        xml = await p.handle({ verb: ['ListSets'] });
        throw new Error('rollback');
      })
      .catch((e: Error) => {
        if (e.message !== 'rollback') throw e;
      });
    expect(errorCode(xml)).toBe('noSetHierarchy');
    expect(validateXml(xml, XSD.oaiPmh)).toEqual([]);
  });

  it('should serve GET and POST /oai2d over HTTP as text/xml, refusing repeated arguments', async () => {
    const get = await env.request.get('/oai2d?verb=Identify');
    expect(get.status).toBe(200);
    expect(get.headers['content-type']).toBe('text/xml; charset=utf-8');
    expect(validateXml(get.text, XSD.oaiPmh)).toEqual([]);
    const post = await env.request.post('/oai2d').type('form').send('verb=ListMetadataFormats');
    expect(post.status).toBe(200);
    expect(post.text).toContain('<ListMetadataFormats>');
    const repeated = await env.request.get('/oai2d?verb=ListRecords&metadataPrefix=oai_dc&metadataPrefix=marcxml');
    expect(errorCode(repeated.text)).toBe('badArgument');
    expect(repeated.text).toContain(`<request>${BASE}/oai2d</request>`);
  });
});
