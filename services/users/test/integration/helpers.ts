/** Shared helpers of the users integration tests (real PostgreSQL; NATS where a test needs it). */
import { type Identity, type Knex, SYSTEM } from '@rdm/platform';
import { testLogger, testIdentityHeader } from '@rdm/platform/testing';
import { createApp } from '../../src/app.js';
import { type EnsureUserInput, UsersService } from '../../src/domain/users.service.js';

/** Identity secret of the tests. */
export const SECRET = 'integration-identity-secret';
/** Public base URL of the tests. */
export const BASE = 'https://repo.test';

/** The users app over `db`. */
export function makeApp(db: Knex) {
  return createApp({ config: { IDENTITY_SECRET: SECRET, PUBLIC_BASE_URL: BASE }, logger: testLogger('users'), db }).app;
}

/** Headers carrying a signed identity. */
export function as(identity: Identity): Record<string, string> {
  return testIdentityHeader(identity, SECRET);
}

/** The identity of a user (with its roles). */
export function identityOf(user: { id: string; roles: string[] }): Identity {
  return { sub: user.id, roles: user.roles };
}

/** Create (or reuse) a user through the domain service as the system. */
export async function makeUser(db: Knex, input: EnsureUserInput) {
  return (await new UsersService(db).ensureUser(SYSTEM, input)).user;
}

/** Outbox rows of `subject`, oldest first. */
export async function outboxOf(db: Knex, subject: string): Promise<{ payload: any }[]> {
  return db('outbox').where({ subject }).orderBy('seq').select('payload');
}
