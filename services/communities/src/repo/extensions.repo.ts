/**
 * SQL of the community schema extensions (`schema_extensions`): registering a version and
 * reading versions with what the read permission of their community needs. Use it from
 * `domain/extensions.service.ts`, which decides who may do what.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from '@rdm/platform';
import type { CommunityRow } from './communities.repo.js';

/** A stored extension version. */
export interface ExtensionRow {
  id: string;
  community_id: string;
  version: number;
  section: string;
  json_schema: Record<string, unknown>;
  created: Date;
}

/** An extension row with what the read permission of its community needs. */
export type ScopedExtensionRow = ExtensionRow & { community_visibility: string; community_access: CommunityRow['access'] };

/** The latest version of a community, as the extensions list shows it. */
export interface LatestExtension {
  id: string;
  community_id: string;
  version: number;
  section: string;
  slug: string;
}

/** Insert the next version of a community's schema (the community row locked: versions stay distinct). */
export async function insertExtensionVersion(
  trx: Knex.Transaction,
  communityId: string,
  section: string,
  schema: Record<string, unknown>,
): Promise<ExtensionRow> {
  // Why the lock: two registrations at once must get distinct version numbers.
  await trx('communities').where({ id: communityId }).forUpdate().first('id');
  const last = await trx('schema_extensions').where({ community_id: communityId }).max({ v: 'version' }).first();
  const version = Number((last as { v: number | null } | undefined)?.v ?? 0) + 1;
  const [row] = await trx('schema_extensions')
    .insert({ id: randomUUID(), community_id: communityId, version, section, json_schema: JSON.stringify(schema) })
    .returning('*');
  return row as ExtensionRow;
}

/**
 * Latest version of each live community, by slug; `readableBy` (unless null: everything) keeps
 * public communities and those the user is an active member of.
 */
export async function listLatestExtensions(db: Knex, readableBy: { userId: string | null } | null): Promise<LatestExtension[]> {
  const q = db('schema_extensions as s')
    .join('communities as c', 'c.id', 's.community_id')
    .where('c.deletion_status', 'P')
    .whereRaw('s.version = (SELECT max(version) FROM schema_extensions x WHERE x.community_id = s.community_id)')
    .orderBy('c.slug')
    .select('s.id', 's.community_id', 's.version', 's.section', 'c.slug');
  if (readableBy) {
    const userId = readableBy.userId;
    q.where((w) => {
      w.where('c.visibility', 'public');
      if (userId) {
        w.orWhereExists((m) =>
          m
            .from('members as m')
            .whereRaw('m.community_id = c.id')
            .where({ 'm.member_type': 'user', 'm.member_id': userId, 'm.active': true }),
        );
      }
    });
  }
  return (await q) as LatestExtension[];
}

/** Latest version of a live community by slug (lower-cased), or undefined. */
export async function latestExtensionBySlug(db: Knex, slug: string): Promise<ScopedExtensionRow | undefined> {
  return db('schema_extensions as s')
    .join('communities as c', 'c.id', 's.community_id')
    .where('c.slug', slug.toLowerCase())
    .where('c.deletion_status', 'P')
    .orderBy('s.version', 'desc')
    .first<ScopedExtensionRow | undefined>('s.*', 'c.visibility as community_visibility', 'c.access as community_access');
}

/** One version of a live community by schema id (a uuid, lower-cased), or undefined. */
export async function extensionById(db: Knex, schemaId: string): Promise<ScopedExtensionRow | undefined> {
  return db('schema_extensions as s')
    .join('communities as c', 'c.id', 's.community_id')
    .where('s.id', schemaId.toLowerCase())
    .where('c.deletion_status', 'P')
    .first<ScopedExtensionRow | undefined>('s.*', 'c.visibility as community_visibility', 'c.access as community_access');
}

/** The schema document of a version and its community's slug (deleted communities included), or undefined. */
export async function extensionSchema(
  db: Knex,
  schemaId: string,
): Promise<{ json_schema: Record<string, unknown>; slug: string } | undefined> {
  return db('schema_extensions as s')
    .join('communities as c', 'c.id', 's.community_id')
    .where('s.id', schemaId)
    .first('s.json_schema', 'c.slug');
}
