/** Ports of the webhooks domain to other services (implemented over NATS/HTTP in rpc/clients.ts). */
import type { Identity } from '@rdm/platform';

/** A user's active roles in communities (communities `rdm.communities.rpc.roles`). */
export interface CommunityRolesPort {
  roles(userId: string, communityIds: string[]): Promise<Record<string, string>>;
}

/** Reads a record as a given identity through records' own read path; null when it may not. */
export interface RecordReaderPort {
  read(identity: Identity, recordId: string): Promise<Record<string, unknown> | null>;
}

/** A user as the users service knows them now. */
export interface UserNow {
  active: boolean;
  roles: string[];
}

/** Users as the users service knows them now (users `rdm.users.rpc.get-users`, one call for many); unknown ids are absent. */
export interface UsersPort {
  current(userIds: string[]): Promise<Map<string, UserNow>>;
}

/** Roles of a community that may subscribe to its events. */
export const MANAGING_ROLES = ['owner', 'manager'] as const;
