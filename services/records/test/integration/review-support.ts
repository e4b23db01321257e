/**
 * Tiny in-memory stand-ins of the requests and communities services for records' integration
 * tests, served on the real RPC subjects (`rdm.requests.rpc.*`, `rdm.communities.rpc.*`) of the
 * private nats-server with the platform's `serveRpc`. Tests only: they implement just what
 * records calls, following proto/README.md.
 */
import { randomUUID } from 'node:crypto';
import { AppError, type MsgLogger, type NatsHandle, type RpcServer, serveRpc } from '@rdm/platform';
import type { CommunityRole, CommunitySummary, RequestView } from '../../src/domain/ports.js';

/** A community of the fake communities service. */
export function community(slug: string, o: Partial<CommunitySummary> = {}): CommunitySummary {
  return {
    id: randomUUID(),
    slug,
    title: slug,
    visibility: 'public',
    members_visibility: 'public',
    member_policy: 'open',
    record_submission_policy: 'open',
    review_policy: 'closed',
    is_deleted: false,
    ...o,
  };
}

/** The fake communities service. */
export class FakeCommunities {
  communities: CommunitySummary[] = [];
  roles = new Map<string, Record<string, CommunityRole>>();
  /** Schema extensions by schema id: a validator of `community_extension` (unknown ids answer 404). */
  extensions = new Map<string, (extension: any) => { valid: boolean; errors?: { field: string; messages: string[] }[] }>();
  calls: { subject: string; payload: any }[] = [];

  add(c: CommunitySummary): CommunitySummary {
    this.communities.push(c);
    return c;
  }
  setRole(user: string, communityId: string, role: CommunityRole): void {
    this.roles.set(user, { ...(this.roles.get(user) ?? {}), [communityId]: role });
  }
  serve(nc: NatsHandle['nc'], logger: MsgLogger): RpcServer[] {
    const opts = { queue: 'communities', logger };
    return [
      serveRpc<{ ids: string[] }>(
        nc,
        'rdm.communities.rpc.get',
        async (r) => {
          this.calls.push({ subject: 'get', payload: r });
          return { communities: this.communities.filter((c) => r.ids.includes(c.id) || r.ids.includes(c.slug)) };
        },
        opts,
      ),
      serveRpc<{ user_id: string; community_ids?: string[] }>(
        nc,
        'rdm.communities.rpc.roles',
        async (r) => {
          this.calls.push({ subject: 'roles', payload: r });
          const all = this.roles.get(r.user_id) ?? {};
          const roles = Object.fromEntries(Object.entries(all).filter(([c]) => !r.community_ids || r.community_ids.includes(c)));
          return { roles };
        },
        opts,
      ),
      serveRpc<{ schema_id: string; community_extension: unknown }>(
        nc,
        'rdm.communities.rpc.validate-extension',
        async (r) => {
          this.calls.push({ subject: 'validate-extension', payload: r });
          const validate = this.extensions.get(r.schema_id);
          if (!validate) throw new AppError('schema_not_found', 404, 'The persistent identifier does not exist.');
          return validate(r.community_extension);
        },
        opts,
      ),
    ];
  }
}

/** The fake requests service: requests in memory; `submit` leaves them `submitted`. */
export class FakeRequests {
  requests = new Map<string, RequestView & { key?: string }>();
  calls: { subject: string; payload: any }[] = [];
  private seq = 0;

  serve(nc: NatsHandle['nc'], logger: MsgLogger, baseUrl: string): RpcServer[] {
    const opts = { queue: 'requests', logger };
    const find = (id: string) => {
      const r = this.requests.get(id);
      if (!r || r.status === 'deleted') throw new AppError('not_found', 404, 'Not found.');
      return r;
    };
    return [
      serveRpc<any>(
        nc,
        'rdm.requests.rpc.create',
        async (r) => {
          this.calls.push({ subject: 'create', payload: r });
          if (r.key) for (const x of this.requests.values()) if (x.key === r.key) return { request: x };
          const id = randomUUID();
          const req = {
            id,
            number: String(++this.seq),
            type: r.type,
            title: r.title ?? '',
            // Types created directly submitted by records (as the requests registry says).
            status: ['record-deletion', 'quota-increase'].includes(r.type) ? 'submitted' : 'created',
            is_open: ['record-deletion', 'quota-increase'].includes(r.type),
            payload: r.payload,
            is_closed: false,
            created_by: r.created_by,
            receiver: r.receiver,
            topic: r.topic,
            links: { self: `${baseUrl}/api/requests/${id}`, self_html: `${baseUrl}/me/requests/${id}`, actions: {} },
            key: r.key,
          };
          this.requests.set(id, req);
          return { request: req };
        },
        opts,
      ),
      serveRpc<any>(
        nc,
        'rdm.requests.rpc.get',
        async (r) => {
          this.calls.push({ subject: 'get', payload: r });
          return { request: find(r.id) };
        },
        opts,
      ),
      serveRpc<any>(
        nc,
        'rdm.requests.rpc.action',
        async (r) => {
          this.calls.push({ subject: 'action', payload: r });
          const req = find(r.id);
          // The system's accept of an owner's deletion request (the effect follows over NATS).
          if (r.action === 'accept' && req.type === 'record-deletion' && req.status === 'submitted') {
            Object.assign(req, { status: 'accepted', is_open: false, is_closed: true });
            return { request: req };
          }
          if (r.action !== 'submit' || req.status !== 'created') {
            throw new AppError('bad_request', 400, `Error for action '${r.action}': Could not execute the action`);
          }
          Object.assign(req, { status: 'submitted', is_open: true, title: r.data?.title ?? req.title });
          return { request: req };
        },
        opts,
      ),
      serveRpc<any>(
        nc,
        'rdm.requests.rpc.delete',
        async (r) => {
          this.calls.push({ subject: 'delete', payload: r });
          const req = find(r.id);
          if (req.status !== 'created') throw new AppError('bad_request', 400, "Error for action 'delete': Could not execute the action");
          req.status = 'deleted';
          return { deleted: true };
        },
        opts,
      ),
    ];
  }
}
