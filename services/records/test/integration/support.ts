/**
 * Integration-test environment of the records service: a fresh migrated schema on the real
 * PostgreSQL, a PRIVATE nats-server (so stub responders never race the real files/vocabularies
 * services that may be running on the shared server), stub files and vocabularies RPC
 * responders served with the platform's real `serveRpc`, and the koa app under supertest.
 */
import type { CitationPool } from '../../src/export/citation-pool.js';
import { AppError, callRpc, type NatsHandle, type SearchEngine, serveRpc } from '@rdm/platform';
import { spawnNatsServer, testDb, testLogger, testNats, testIdentityHeader } from '@rdm/platform/testing';
import supertest from 'supertest';
import { type AppDeps, createApp } from '../../src/app.js';
import type { Manifest, ManifestEntry, VocabEntry } from '../../src/domain/ports.js';
import { serveAuthorizeFilesRpc } from '../../src/rpc/authorize-files.rpc.js';
import { serveAuthorizeRecordRpc } from '../../src/rpc/authorize-record.rpc.js';
import { RpcFilesClient } from '../../src/rpc/files.client.js';
import { RpcCommunitiesClient } from '../../src/rpc/communities.client.js';
import { RpcRequestsClient } from '../../src/rpc/requests.client.js';
import { RpcVocabulariesClient } from '../../src/rpc/vocabularies.client.js';
import { EngineIndexer } from '../../src/search/engine-index.js';
import { FakeCommunities, FakeRequests } from './review-support.js';
import { gatewayFront } from '@rdm/platform/testing';

/** Identity secret of the tests. */
export const SECRET = 'test-identity-secret-0123456789';
/** PUBLIC_BASE_URL of the tests. */
export const BASE = 'https://rdm.example.org';

/** Signed identity header of a user (or admin). */
export function as(user: string | null, roles: string[] = []): Record<string, string> {
  if (user === null) return {};
  return testIdentityHeader({ sub: user, roles }, SECRET);
}

/** The identity header of an anonymous caller whose address the gateway established as `ip`. */
export function anonymousFrom(ip: string): Record<string, string> {
  return testIdentityHeader({ sub: null, roles: [], clientIp: ip }, SECRET);
}

/** In-memory files service behind the real RPC subjects. */
export class FakeFiles {
  buckets = new Map<string, { locked: boolean; entries: ManifestEntry[] }>();
  calls: { subject: string; payload: any }[] = [];

  bucket(id: string) {
    let b = this.buckets.get(id);
    if (!b) {
      b = { locked: false, entries: [] };
      this.buckets.set(id, b);
    }
    return b;
  }

  /** Register and (by default) commit a file in a bucket. */
  addFile(bucketId: string, key: string, o: { size?: number; pending?: boolean } = {}): void {
    const now = new Date().toISOString();
    const size = o.size ?? 1024;
    this.bucket(bucketId).entries.push({
      id: `f-${bucketId}-${key}`,
      key,
      checksum: o.pending ? undefined : 'md5:d41d8cd98f00b204e9800998ecf8427e',
      ext: key.includes('.') ? key.split('.').pop() : null,
      size: o.pending ? undefined : size,
      mimetype: key.endsWith('.png') ? 'image/png' : key.endsWith('.pdf') ? 'application/pdf' : 'application/octet-stream',
      storage_class: 'L',
      metadata: null,
      access: { hidden: false },
      status: o.pending ? 'pending' : 'completed',
      created: now,
      updated: now,
      file_id: `file-${key}`,
      version_id: `ver-${key}`,
      bucket_id: bucketId,
    });
  }

  manifest(id: string): Manifest {
    const b = this.buckets.get(id) ?? { locked: false, entries: [] };
    return {
      bucket_id: id,
      locked: b.locked,
      entries: b.entries,
      count: b.entries.length,
      total_bytes: b.entries.reduce((s, e) => s + (e.size ?? 0), 0),
      pending: b.entries.filter((e) => e.status !== 'completed').length,
    };
  }
}

/** Stub vocabulary entries: `${type}/${id}` → entry. */
export const VOCAB: Record<string, VocabEntry> = {
  'resourcetypes/image-photo': {
    id: 'image-photo',
    title: { en: 'Photo' },
    props: { type: 'image', subtype: 'image-photo' },
    tags: ['depositable', 'linkable'],
  },
  'resourcetypes/dataset': {
    id: 'dataset',
    title: { en: 'Dataset' },
    props: { type: 'dataset', subtype: '' },
    tags: ['depositable', 'linkable'],
  },
  'resourcetypes/publication-article': {
    id: 'publication-article',
    title: { en: 'Journal article' },
    props: { type: 'publication', subtype: 'publication-article' },
    tags: ['depositable', 'linkable'],
  },
  'resourcetypes/internal-only': { id: 'internal-only', title: { en: 'Internal' }, props: { type: 'internal' }, tags: [] },
  'creatorsroles/researcher': { id: 'researcher', title: { en: 'Researcher' } },
  'contributorsroles/editor': { id: 'editor', title: { en: 'Editor' } },
  'affiliations/01ggx4157': { id: '01ggx4157', title: { en: 'European Organization for Nuclear Research' }, name: 'CERN' },
  'languages/eng': { id: 'eng', title: { en: 'English' } },
  'languages/dan': { id: 'dan', title: { en: 'Danish' } },
  'licenses/cc-by-4.0': {
    id: 'cc-by-4.0',
    title: { en: 'Creative Commons Attribution 4.0 International' },
    props: { url: 'https://creativecommons.org/licenses/by/4.0/legalcode', scheme: 'spdx' },
  },
  'titletypes/alternative-title': { id: 'alternative-title', title: { en: 'Alternative title' } },
  'descriptiontypes/methods': { id: 'methods', title: { en: 'Methods' } },
  'datetypes/other': { id: 'other', title: { en: 'Other' } },
  'relationtypes/iscitedby': { id: 'iscitedby', title: { en: 'Is cited by' } },
  'funders/00k4n6c32': { id: '00k4n6c32', title: { en: 'European Commission' }, name: 'European Commission' },
  'awards/755021': { id: '755021', title: { en: 'Personalised Treatment For Cystic Fibrosis Patients' }, number: '755021' },
  'subjects/http://id.nlm.nih.gov/mesh/A-D000007': {
    id: 'http://id.nlm.nih.gov/mesh/A-D000007',
    subject: 'Abdominal Injuries',
    scheme: 'MeSH',
  },
};

/** A running test environment. */
export interface Env {
  request: ReturnType<typeof supertest>;
  files: FakeFiles;
  vocabCalls: { items: { type: string; id: string }[] }[];
  db: Awaited<ReturnType<typeof testDb>>['db'];
  nats: NatsHandle;
  deps: AppDeps;
  /** The app's parts (parts.ts: service, review/communities sub-services, saga). */
  parts: ReturnType<typeof createApp>;
  /** Stand-ins of the requests and communities services. */
  fakeRequests: FakeRequests;
  fakeCommunities: FakeCommunities;
  /** Call an RPC on the private NATS. */
  rpc<T>(subject: string, payload: unknown): Promise<T>;
  /**
   * After a test wrote `search_docs` with raw SQL (outside the index port): bring the parents'
   * documents into the search engine, as the outbox indexer would; nothing on postgres.
   */
  syncSearch(parentIds: string[]): Promise<void>;
  close(): Promise<void>;
}

let portSeq = 0;

/** Start the environment (one per test file). */
export async function startEnv(o: { search?: { engine: SearchEngine; prefix: string }; citations?: CitationPool } = {}): Promise<Env> {
  const port = 14300 + (process.pid % 500) + portSeq++ * 7;
  const server = spawnNatsServer({ port });
  await server.start();
  const nats = await testNats(server.url, 'records-test');
  const tdb = await testDb('records');
  const logger = testLogger('records');
  const files = new FakeFiles();
  const vocabCalls: { items: { type: string; id: string }[] }[] = [];
  const servers = [
    serveRpc<{ bucket_id: string }>(
      nats.nc,
      'rdm.files.rpc.manifest',
      async (r) => {
        files.calls.push({ subject: 'manifest', payload: r });
        return files.manifest(r.bucket_id);
      },
      { queue: 'files', logger },
    ),
    serveRpc<{ bucket_id: string; if_complete?: boolean }>(
      nats.nc,
      'rdm.files.rpc.lock',
      async (r) => {
        files.calls.push({ subject: 'lock', payload: r });
        const m = files.manifest(r.bucket_id);
        // `if_complete`: lock only a bucket with entries, none pending (proto/README.md).
        if (!r.if_complete || (m.count > 0 && m.pending === 0)) files.bucket(r.bucket_id).locked = true;
        return files.manifest(r.bucket_id);
      },
      { queue: 'files', logger },
    ),
    serveRpc<{ from_bucket_id: string; to_bucket_id: string }>(
      nats.nc,
      'rdm.files.rpc.import',
      async (r) => {
        files.calls.push({ subject: 'import', payload: r });
        const from = files.bucket(r.from_bucket_id);
        const to = files.bucket(r.to_bucket_id);
        to.entries = from.entries.map((e) => ({ ...e, bucket_id: r.to_bucket_id }));
        return files.manifest(r.to_bucket_id);
      },
      { queue: 'files', logger },
    ),
    serveRpc<{ bucket_id: string }>(
      nats.nc,
      'rdm.files.rpc.delete-bucket',
      async (r) => {
        files.calls.push({ subject: 'delete-bucket', payload: r });
        return { deleted: files.buckets.delete(r.bucket_id) };
      },
      { queue: 'files', logger },
    ),
    serveRpc<{ items: { type: string; id: string }[] }>(
      nats.nc,
      'rdm.vocabularies.rpc.resolve',
      async (r) => {
        vocabCalls.push(r);
        return {
          items: r.items.map((i) => {
            const entry = VOCAB[`${i.type}/${i.id}`];
            return entry ? { ...i, found: true, entry: { ...entry, type: i.type } } : { ...i, found: false };
          }),
        };
      },
      { queue: 'vocabularies', logger },
    ),
  ];
  const fakeRequests = new FakeRequests();
  const fakeCommunities = new FakeCommunities();
  servers.push(...fakeRequests.serve(nats.nc, logger, BASE), ...fakeCommunities.serve(nats.nc, logger));
  const deps: AppDeps = {
    config: {
      PUBLIC_BASE_URL: BASE,
      IDENTITY_SECRET: SECRET,
      DOI_PREFIX: '10.1234',
      DOI_RESOLVER_URL: 'https://doi.org',
      OAI_ID_PREFIX: '',
      SITE_NAME: 'Invenio',
    },
    logger,
    db: tdb.db,
    files: new RpcFilesClient(nats.nc, 2000),
    vocabularies: new RpcVocabulariesClient(nats.nc, 2000),
    requests: new RpcRequestsClient(nats.nc, 2000, 5000),
    communities: new RpcCommunitiesClient(nats.nc, 2000),
    nc: nats.nc,
    ...(o.citations ? { citations: o.citations } : {}),
    ...(o.search ? { engineIndex: new EngineIndexer({ db: tdb.db, engine: o.search.engine, logger, prefix: o.search.prefix }) } : {}),
  };
  const parts = createApp(deps);
  const { app, service } = parts;
  const authz = serveAuthorizeFilesRpc(nats.nc, service, logger);
  const authzRecord = serveAuthorizeRecordRpc(nats.nc, service, logger);
  return {
    request: supertest(gatewayFront(app.callback(), SECRET)),
    files,
    vocabCalls,
    db: tdb.db,
    nats,
    deps,
    parts,
    fakeRequests,
    fakeCommunities,
    rpc: <T>(subject: string, payload: unknown) => callRpc<T>(nats.nc, subject, payload, { timeoutMs: 2000 }),
    async syncSearch(parentIds) {
      const ix = deps.engineIndex;
      if (!ix) return;
      await ix.engine.bulk(ix.alias, await ix.load(parentIds.map((p) => `p:${p}`)), { refresh: true });
    },
    async close() {
      await authz.stop();
      await authzRecord.stop();
      for (const s of servers) await s.stop();
      await nats.close();
      await tdb.destroy();
      await server.dispose();
    },
  };
}

/** A full, valid metadata block (the spec's creation walkthrough). */
export function fullMetadata(): Record<string, unknown> {
  return {
    resource_types: [{ id: 'image-photo' }],
    title: 'A Romans story',
    publication_date: '2020-06-01',
    creators: [
      {
        person_or_org: {
          type: 'personal',
          given_name: 'Troy',
          family_name: 'Brown',
          identifiers: [{ scheme: 'orcid', identifier: '0000-0002-1825-0097' }],
        },
        role: { id: 'researcher' },
        affiliations: [{ id: '01ggx4157' }, { name: 'Free text U' }],
      },
      { person_or_org: { type: 'organizational', name: 'Mars Institute' } },
    ],
    contributors: [{ person_or_org: { type: 'personal', family_name: 'Collins', given_name: 'Thomas' }, role: { id: 'editor' } }],
    additional_titles: [{ title: 'Another title', type: { id: 'alternative-title' }, lang: { id: 'eng' } }],
    description: '<p>A <b>description</b></p>',
    additional_descriptions: [{ description: 'Some methods', type: { id: 'methods' }, lang: { id: 'eng' } }],
    rights: [
      { id: 'cc-by-4.0' },
      { title: { en: 'A custom license' }, description: { en: 'A description' }, link: 'https://customlicense.org/licenses/by/4.0/' },
    ],
    copyright: '(c) 2020 Mars Institute',
    subjects: [{ id: 'http://id.nlm.nih.gov/mesh/A-D000007' }, { subject: 'custom' }],
    languages: [{ id: 'dan' }, { id: 'eng' }],
    dates: [{ date: '1939/1945', type: { id: 'other' }, description: 'A date' }],
    version: 'v1.0',
    publisher: 'InvenioRDM',
    identifiers: [
      { identifier: '10.9999/rdm.9999999', scheme: 'doi' },
      { identifier: 'https://example.org/x', scheme: 'url' },
    ],
    related_identifiers: [
      { identifier: '10.9999/rdm.9999988', scheme: 'doi', relation_type: { id: 'iscitedby' }, resource_type: { id: 'dataset' } },
    ],
    locations: {
      features: [
        {
          geometry: { type: 'Point', coordinates: [-32.94682, -60.63932] },
          place: 'test location place',
          description: 'test location description',
        },
      ],
    },
    funding: [{ funder: { id: '00k4n6c32' }, award: { id: '755021' } }],
    references: [{ reference: 'Nielsen et al,..', identifier: '0000 0001 2156 142X', scheme: 'isni' }],
  };
}
