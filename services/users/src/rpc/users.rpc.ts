/**
 * NATS request-reply endpoints of the users service (proto/README.md):
 * - `rdm.users.rpc.verify-token` `{token}` → `{user_id, roles, token_id}` or null;
 * - `rdm.users.rpc.get-users` `{ids}` → `{users: [{id, username, full_name, email, active, roles}]}`.
 * Callers are other services (trusted); e-mails are therefore returned unfiltered.
 */
import { type MsgLogger, type NatsHandle, type RpcServer, serveContract } from '@rdm/platform';
import { RPC_SUBJECTS } from '@rdm/contracts';
import type { TokensService, VerifiedToken } from '../domain/tokens.service.js';
import type { UsersService } from '../domain/users.service.js';

/** Subject of token verification. */
export const VERIFY_TOKEN_SUBJECT = RPC_SUBJECTS.users.verifyToken;
/** Subject of the user lookup. */
export const GET_USERS_SUBJECT = RPC_SUBJECTS.users.getUsers;

/** Largest id batch of get-users. */
export const MAX_GET_USERS = 1000;

/** One entry of the get-users reply. */
export interface RpcUser {
  id: string;
  username: string | null;
  full_name: string;
  email: string;
  active: boolean;
  roles: string[];
}

/** Handler of verify-token (exported for tests). */
export function verifyTokenHandler(tokens: TokensService) {
  return async (req: { token: string }): Promise<VerifiedToken | null> => tokens.verify(req.token);
}

/** Handler of get-users (exported for tests). */
export function getUsersHandler(users: UsersService) {
  return async (req: { ids: string[] }): Promise<{ users: RpcUser[] }> => {
    const found = await users.getMany(req.ids);
    return {
      users: found.map((u) => ({
        id: u.id,
        username: u.username,
        full_name: u.profile.full_name,
        email: u.email,
        active: u.active,
        roles: u.roles,
      })),
    };
  };
}

/** Dependencies of serveUsersRpc. */
export interface UsersRpcDeps {
  users: UsersService;
  tokens: TokensService;
  logger: MsgLogger;
  /** Override the subjects (tests on a shared NATS use private ones). */
  subjects?: { verifyToken: string; getUsers: string };
}

/** Start both RPC endpoints in queue group `users`. */
export function serveUsersRpc(nc: NatsHandle['nc'], deps: UsersRpcDeps): RpcServer[] {
  const subjects = deps.subjects ?? { verifyToken: VERIFY_TOKEN_SUBJECT, getUsers: GET_USERS_SUBJECT };
  const opts = { queue: 'users', logger: deps.logger };
  return [
    serveContract(nc, VERIFY_TOKEN_SUBJECT, verifyTokenHandler(deps.tokens), { ...opts, subject: subjects.verifyToken }),
    serveContract(nc, GET_USERS_SUBJECT, getUsersHandler(deps.users), { ...opts, subject: subjects.getUsers }),
  ];
}
