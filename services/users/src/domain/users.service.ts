/**
 * The users domain: reading and searching users with InvenioRDM's visibility rules, and the
 * account operations the CLI performs (create or reuse, grant admin, deactivate). Every
 * multi-statement write runs in one transaction together with its outbox event.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  compileToSql,
  definePolicy,
  Errors,
  type FieldError,
  type Identity,
  type Knex,
  type ListArgs,
  parseQuery,
  type QueryAst,
  QuerySyntaxError,
  rankSql,
  type SqlFragment,
  systemProcess,
  withTransaction,
  writeOutbox,
} from '@rdm/platform';
import {
  findUserByEmail,
  findUserById,
  findUserByUsername,
  findUsersByIds,
  insertUser,
  searchUsers,
  updateUser,
  USER_FULL_TEXT,
  USER_SEARCH_FIELDS,
  type UserSort,
  type UserWrite,
} from '../repo/users.repo.js';
import type { UserSearchIndex } from '../search/user-index.js';
import { UserErrors } from './errors.js';
import { ADMIN_ROLE, DEFAULT_PREFERENCES, isEmail, isUserId, isUsername, type User, type Visibility, VISIBILITIES } from './user.js';
import { listScope, usersPolicy } from './users.policy.js';

/** Sorts of `GET /api/users` (InvenioRDM's public user search: bestmatch, newest, oldest). */
export const USER_SORTS: readonly UserSort[] = ['bestmatch', 'newest', 'oldest'];

/** Account operations are for the system (the CLI); admins pass as superusers. */
const accountsPolicy = definePolicy<'manage', unknown>({ manage: [systemProcess] });

/** Input of `ensureUser`. */
export interface EnsureUserInput {
  email: string;
  username?: string | null;
  fullName?: string;
  affiliations?: string;
  /** Grant the admin role (never removes it when false). */
  admin?: boolean;
  /** Profile visibility of a NEW user (default public); an existing user's is set only when given. */
  visibility?: Visibility;
  /** E-mail visibility of a NEW user (default restricted, InvenioRDM's default). */
  emailVisibility?: Visibility;
  /** Confirmed e-mail (default true). */
  confirmed?: boolean;
  /** Active account (default true). */
  active?: boolean;
}

/** Result of `ensureUser`. */
export interface EnsureUserResult {
  user: User;
  created: boolean;
}

/** Is `e` a PostgreSQL unique violation? */
function isUniqueViolation(e: unknown): e is { code: string; constraint?: string } {
  return (e as { code?: string })?.code === '23505';
}

/** The users domain service. */
export class UsersService {
  /** `index`: the search engine index (SEARCH_ENGINE opensearch/elasticsearch); absent: the postgres engine. */
  constructor(
    private readonly db: Knex,
    readonly index?: UserSearchIndex,
  ) {}

  /** One user as `identity` may see it; unknown, malformed or hidden → 404 (InvenioRDM hides existence). */
  async read(identity: Identity, id: string): Promise<User> {
    if (!isUserId(id)) throw UserErrors.userNotFound();
    const user = await findUserById(this.db, id);
    if (!user || !usersPolicy.can('read', identity, user)) throw UserErrors.userNotFound();
    return user;
  }

  /** The caller themselves; anonymous → 403 `Permission denied.` (InvenioRDM never sends 401). */
  async me(identity: Identity): Promise<User> {
    if (identity.sub === null || !isUserId(identity.sub)) throw Errors.permissionDenied();
    const user = await findUserById(this.db, identity.sub);
    if (!user || !user.active) throw Errors.permissionDenied();
    return user;
  }

  /** Search users visible to `identity` (active + confirmed; public profiles or self; admins: all). */
  async search(identity: Identity, args: ListArgs): Promise<{ total: number; hits: User[] }> {
    let ast: QueryAst | undefined;
    let where: SqlFragment | undefined;
    let rank: SqlFragment | undefined;
    if (args.q) {
      try {
        ast = parseQuery(args.q);
        // The search engines get the AST (user-index.ts); postgres the compiled SQL.
        if (!this.index) {
          where = compileToSql(ast, USER_SEARCH_FIELDS, { fullText: USER_FULL_TEXT });
          rank = rankSql(ast, USER_SEARCH_FIELDS, { fullText: USER_FULL_TEXT });
        }
      } catch (e) {
        if (e instanceof QuerySyntaxError) throw Errors.invalidQuerySyntax(e);
        throw e;
      }
    }
    const common = { scope: listScope(identity), sort: args.sort as UserSort, limit: args.size, offset: args.from };
    if (this.index) return this.index.search({ ...common, ast });
    return searchUsers(this.db, { ...common, where, rank });
  }

  /** Users by ids for other services (RPC `get-users`): unknown and malformed ids are skipped. */
  async getMany(ids: string[]): Promise<User[]> {
    const valid = [...new Set(ids.filter(isUserId))];
    return findUsersByIds(this.db, valid);
  }

  /** A user by e-mail (system use: CLI). */
  async findByEmail(identity: Identity, email: string): Promise<User | undefined> {
    accountsPolicy.require('manage', identity);
    return findUserByEmail(this.db, email.trim());
  }

  /**
   * Create the user of `input.email`, or reuse the existing one: make it active and confirmed,
   * add the admin role when asked, apply the given name/username/visibility. A new user emits
   * `rdm.users.user.created` in the same transaction.
   */
  async ensureUser(identity: Identity, input: EnsureUserInput): Promise<EnsureUserResult> {
    accountsPolicy.require('manage', identity);
    const email = input.email.trim();
    const username = input.username?.trim() || null;
    const errors: FieldError[] = [];
    if (!isEmail(email)) errors.push({ field: 'email', messages: ['Not a valid email address.'] });
    if (username !== null && !isUsername(username)) {
      errors.push({
        field: 'username',
        messages: [
          'Username must start with a letter, be at least three characters long and only contain alphanumeric characters, dashes and underscores.',
        ],
      });
    }
    for (const [field, v] of [
      ['preferences.visibility', input.visibility],
      ['preferences.email_visibility', input.emailVisibility],
    ] as const) {
      if (v !== undefined && !VISIBILITIES.includes(v)) errors.push({ field, messages: ['Must be one of: public, restricted.'] });
    }
    if ((input.fullName ?? '').length > 255) errors.push({ field: 'profile.full_name', messages: ['Longer than maximum length 255.'] });
    if (errors.length) throw UserErrors.invalid(errors);

    for (let attempt = 0; ; attempt++) {
      try {
        const result = await withTransaction(this.db, async (trx) => {
          if (username !== null) {
            const holder = await findUserByUsername(trx, username);
            if (holder && holder.email.toLowerCase() !== email.toLowerCase()) {
              throw UserErrors.invalid([{ field: 'username', messages: ['Username already exists.'] }]);
            }
          }
          const existing = await findUserByEmail(trx, email, { forUpdate: true });
          if (existing) {
            const next: UserWrite = {
              email: existing.email,
              username: username ?? existing.username,
              active: input.active ?? true,
              confirmed: input.confirmed ?? true,
              profile: {
                full_name: input.fullName ?? existing.profile.full_name,
                affiliations: input.affiliations ?? existing.profile.affiliations,
              },
              preferences: {
                ...existing.preferences,
                ...(input.visibility ? { visibility: input.visibility } : {}),
                ...(input.emailVisibility ? { email_visibility: input.emailVisibility } : {}),
              },
              roles: input.admin && !existing.roles.includes(ADMIN_ROLE) ? [...existing.roles, ADMIN_ROLE] : existing.roles,
            };
            const user = sameWrite(existing, next) ? existing : await updateUser(trx, existing.id, next);
            if (user !== existing) await this.emitUpdated(trx, user);
            if (existing.active && !user.active) await this.emitDeactivated(trx, user);
            return { user, created: false };
          }
          const user = await insertUser(trx, {
            email,
            username,
            active: input.active ?? true,
            confirmed: input.confirmed ?? true,
            profile: { full_name: input.fullName ?? '', affiliations: input.affiliations ?? '' },
            preferences: {
              ...DEFAULT_PREFERENCES,
              visibility: input.visibility ?? 'public',
              email_visibility: input.emailVisibility ?? DEFAULT_PREFERENCES.email_visibility,
            },
            roles: input.admin ? [ADMIN_ROLE] : [],
          });
          await writeOutbox(trx, {
            subject: 'rdm.users.user.created',
            aggregate: { type: 'user', id: user.id, revision: user.revision_id },
            data: { id: user.id, email: user.email },
          });
          return { user, created: true };
        });
        await this.index?.afterCommit([result.user.id]);
        return result;
      } catch (e) {
        // Why: two creators of one e-mail race; the loser finds the winner's row on retry.
        if (isUniqueViolation(e) && attempt < 2) continue;
        if (isUniqueViolation(e)) throw UserErrors.invalid([{ field: 'username', messages: ['Username already exists.'] }]);
        throw e;
      }
    }
  }

  /** Deactivate the user of `email`: tokens stop working; emits `rdm.users.user.deactivated` once. */
  async deactivate(identity: Identity, email: string): Promise<User> {
    accountsPolicy.require('manage', identity);
    const user = await withTransaction(this.db, async (trx) => {
      const user = await findUserByEmail(trx, email.trim(), { forUpdate: true });
      if (!user) throw UserErrors.userNotFound();
      if (!user.active) return user;
      const updated = await updateUser(trx, user.id, { ...toWrite(user), active: false });
      await this.emitDeactivated(trx, updated);
      return updated;
    });
    await this.index?.afterCommit([user.id]);
    return user;
  }

  /** `rdm.users.user.updated`: an existing user's fields changed (the search indexer reloads it). */
  private async emitUpdated(trx: Knex.Transaction, user: User): Promise<void> {
    await writeOutbox(trx, {
      subject: 'rdm.users.user.updated',
      aggregate: { type: 'user', id: user.id, revision: user.revision_id },
      data: { id: user.id },
    });
  }

  private async emitDeactivated(trx: Knex.Transaction, user: User): Promise<void> {
    await writeOutbox(trx, {
      subject: 'rdm.users.user.deactivated',
      aggregate: { type: 'user', id: user.id, revision: user.revision_id },
      data: { id: user.id },
    });
  }
}

/** The writable fields of a user. */
function toWrite(u: User): UserWrite {
  return {
    email: u.email,
    username: u.username,
    active: u.active,
    confirmed: u.confirmed,
    profile: { ...u.profile },
    preferences: { ...u.preferences },
    roles: [...u.roles],
  };
}

/** True when writing `next` would not change `u` (so no revision bump). */
function sameWrite(u: User, next: UserWrite): boolean {
  return isDeepStrictEqual(toWrite(u), next);
}
