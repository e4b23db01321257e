/**
 * Client of `rdm.users.rpc.get-users` (proto/README.md): `RpcUsersClient` implements the domain's
 * `UserEmailsPort` (the e-mail addresses of community owners for abuse reports).
 */
import { injectTraceHeaders, type NatsHandle, callContract } from '@rdm/platform';
import { RPC_SUBJECTS } from '@rdm/contracts';
import type { UserEmailsPort } from '../domain/ports.js';

/** UserEmailsPort over NATS request-reply. */
export class RpcUsersClient implements UserEmailsPort {
  constructor(
    private readonly nc: NatsHandle['nc'],
    private readonly timeoutMs: number,
  ) {}

  async emails(userIds: string[]): Promise<string[]> {
    if (userIds.length === 0) return [];
    const r = await callContract(
      this.nc,
      RPC_SUBJECTS.users.getUsers,
      { ids: [...new Set(userIds)] },
      { timeoutMs: this.timeoutMs, headers: injectTraceHeaders() },
    );
    return (r?.users ?? [])
      .filter((u) => u.active !== false && typeof u.email === 'string' && u.email !== '')
      .map((u) => u.email as string);
  }
}
