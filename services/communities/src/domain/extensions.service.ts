/**
 * Community schema extensions (spec "Community schema extension"; not upstream InvenioRDM): a
 * community owner or an administrator registers a JSON Schema draft-04 document; each
 * registration is a new immutable version with its own id. Records validate a record's
 * `metadata.community_extension` (`<slug>:<field>` keys) over RPC through `validate`, which
 * keeps compiled validators in a bounded cache keyed by schema id (ids never change content,
 * so entries never go stale).
 */
import { Errors, type FieldError, type Identity, type Knex, withTransaction } from '@rdm/platform';
import type { ValidateFunction } from 'ajv';
import ajv04Module from 'ajv-draft-04';
import {
  type ExtensionRow,
  extensionById,
  extensionSchema,
  insertExtensionVersion,
  latestExtensionBySlug,
  listLatestExtensions,
  type ScopedExtensionRow,
} from '../repo/extensions.repo.js';
import { roleOf } from '../repo/members.repo.js';
import { isSuperuser } from './communities.policy.js';
import type { CommunitiesService } from './communities.service.js';
import { isUuid } from './community-input.js';
import { CommunityErrors } from './errors.js';

type Ajv04Class = (typeof ajv04Module)['default'];
// Why: ajv-draft-04 is CommonJS; under ESM its default import is `module.exports`, the class sits on `.default`.
const Ajv04 = ((ajv04Module as unknown as { default?: Ajv04Class }).default ?? ajv04Module) as Ajv04Class;

/** Largest number of compiled validators kept. */
const CACHE_MAX = 500;
/** Largest accepted schema document (bytes of JSON). */
export const MAX_SCHEMA_BYTES = 256 * 1024;

/** The schema extensions service. */
export class ExtensionsService {
  private readonly ajv = new Ajv04({ allErrors: true, strict: false });
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(
    private readonly db: Knex,
    private readonly communities: CommunitiesService,
  ) {}

  /** Register a new version for a community (owner or administrator); invalid draft-04 → 400. */
  async register(identity: Identity, slug: string, body: unknown): Promise<ExtensionRow & { slug: string }> {
    const c = await this.communities.authorize(identity, slug, 'register_extension');
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw Errors.validation([{ field: '_schema', messages: ['The body must be a JSON Schema (draft-04) object.'] }]);
    }
    const schema = body as Record<string, unknown>;
    if (Buffer.byteLength(JSON.stringify(schema)) > MAX_SCHEMA_BYTES) throw Errors.payloadTooLarge();
    const errors = this.checkSchema(schema);
    if (errors.length) throw Errors.validation(errors, 'Invalid JSON Schema (draft-04).');
    const section = typeof schema.title === 'string' && schema.title.trim() ? schema.title.trim() : c.row.title;
    return withTransaction(this.db, async (trx) => ({
      ...(await insertExtensionVersion(trx, c.row.id, section, schema)),
      slug: c.row.slug,
    }));
  }

  /** Meta-validate a draft-04 document and make sure it compiles. */
  private checkSchema(schema: Record<string, unknown>): FieldError[] {
    if (schema.$schema !== undefined && typeof schema.$schema === 'string' && !/draft-04/.test(schema.$schema)) {
      return [{ field: '$schema', messages: ['Only JSON Schema draft-04 is supported.'] }];
    }
    if (!this.ajv.validateSchema(schema)) {
      const byField = new Map<string, string[]>();
      for (const e of this.ajv.errors ?? []) {
        const field = e.instancePath.split('/').filter(Boolean).join('.') || '_schema';
        byField.set(field, [...(byField.get(field) ?? []), e.message ?? 'Invalid value.']);
      }
      return [...byField].map(([field, messages]) => ({ field, messages }));
    }
    try {
      this.ajv.compile({ ...schema, $id: undefined, id: undefined });
    } catch (e) {
      return [{ field: '_schema', messages: [String((e as Error).message).slice(0, 500)] }];
    }
    return [];
  }

  /**
   * Whether `identity` may read this community (its `read` permission). A schema names its
   * community (slug, title as section), so every read below answers a non-reader exactly as it
   * answers an unknown slug or id (404): the extension routes must not reveal that a restricted
   * community exists.
   */
  private async readable(identity: Identity, row: ScopedExtensionRow): Promise<boolean> {
    const role = identity.sub ? await roleOf(this.db, row.community_id, identity.sub) : null;
    const community = { visibility: row.community_visibility, access: row.community_access };
    return this.communities.policy.can('read', identity, { community, role });
  }

  /**
   * Latest version of each live community the caller may read:
   * `{community_id, community_schema_version, community_slug, schema_id, section}`.
   */
  async list(identity: Identity): Promise<Record<string, unknown>[]> {
    // Why filtered in SQL: restricted communities are listed only to their members (read
    // permission), as the communities search does; administrators and the system read everything.
    const rows = await listLatestExtensions(this.db, isSuperuser(identity) ? null : { userId: identity.sub });
    return rows.map((r) => ({
      community_id: r.community_id,
      community_schema_version: r.version,
      community_slug: r.slug,
      schema_id: r.id,
      section: r.section,
    }));
  }

  /** Latest schema of a community by slug (404 when none, or when the caller may not read the community). */
  async latest(identity: Identity, slug: string): Promise<ExtensionRow> {
    const row = await latestExtensionBySlug(this.db, slug);
    if (!row || !(await this.readable(identity, row))) throw CommunityErrors.schemaNotFound();
    const { community_visibility: _v, community_access: _a, ...ext } = row;
    return ext;
  }

  /** One version by schema id (404 when unknown, its community deleted, or not readable by the caller). */
  async get(identity: Identity, schemaId: string): Promise<ExtensionRow> {
    if (!isUuid(schemaId)) throw CommunityErrors.schemaNotFound();
    const row = await extensionById(this.db, schemaId);
    if (!row || !(await this.readable(identity, row))) throw CommunityErrors.schemaNotFound();
    const { community_visibility: _v, community_access: _a, ...ext } = row;
    return ext;
  }

  /** Compiled validator of a schema id (cached, LRU-bounded). */
  private async validator(schemaId: string): Promise<{ fn: ValidateFunction; slug: string }> {
    const row = await extensionSchema(this.db, isUuid(schemaId) ? schemaId.toLowerCase() : '00000000-0000-0000-0000-000000000000');
    if (!row) throw CommunityErrors.schemaNotFound();
    let fn: ValidateFunction | undefined = this.cache.get(schemaId);
    if (fn) {
      this.cache.delete(schemaId);
    } else {
      const schema = { ...row.json_schema };
      schema.$id = undefined;
      schema.id = undefined;
      fn = this.ajv.compile(schema) as ValidateFunction;
    }
    this.cache.set(schemaId, fn);
    if (this.cache.size > CACHE_MAX) this.cache.delete(this.cache.keys().next().value as string);
    return { fn, slug: row.slug };
  }

  /**
   * `rdm.communities.rpc.validate-extension`: validate `community_extension` (keys
   * `<slug>:<field>`) against the schema; errors use `metadata.community_extension.<key>` fields.
   */
  async validate(schemaId: string, extension: unknown): Promise<{ valid: boolean; errors?: FieldError[] }> {
    const { fn, slug } = await this.validator(schemaId);
    const base = 'metadata.community_extension';
    if (typeof extension !== 'object' || extension === null || Array.isArray(extension)) {
      return { valid: false, errors: [{ field: base, messages: ['Must be an object.'] }] };
    }
    const errors: FieldError[] = [];
    const doc: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(extension)) {
      if (!k.startsWith(`${slug}:`)) errors.push({ field: `${base}.${k}`, messages: [`Field must be prefixed with "${slug}:".`] });
      else doc[k.slice(slug.length + 1)] = v;
    }
    if (!fn(doc)) {
      const byField = new Map<string, string[]>();
      for (const e of fn.errors ?? []) {
        const path = e.instancePath.split('/').filter(Boolean);
        if (e.keyword === 'required') path.push(String((e.params as { missingProperty: string }).missingProperty));
        if (e.keyword === 'additionalProperties') path.push(String((e.params as { additionalProperty: string }).additionalProperty));
        const field = path.length ? `${base}.${slug}:${path.join('.')}` : base;
        const msg = e.keyword === 'required' ? 'Missing data for required field.' : (e.message ?? 'Invalid value.');
        byField.set(field, [...(byField.get(field) ?? []), msg]);
      }
      errors.push(...[...byField].map(([field, messages]) => ({ field, messages })));
    }
    return errors.length ? { valid: false, errors } : { valid: true };
  }

  /** Compiled validators currently cached (tests). */
  get cacheSize(): number {
    return this.cache.size;
  }
}
