/**
 * The `CommunitiesPort` over NATS RPC (`rdm.communities.rpc.roles` / `.get`), with a short cache:
 * roles per (user, community) and summaries per community live `ttlMs`, and are dropped at once
 * when the communities service announces a change (core-NATS subscriptions to
 * `rdm.communities.member.>` and `rdm.communities.community.>`: the JetStream publishes reach
 * core subscribers too). Use `start()` once; tests of the domain use a fake port instead.
 */
import type { MsgLogger, NatsHandle } from '@rdm/platform';
import { RPC_SUBJECTS } from '@rdm/contracts';
import { callContract } from '@rdm/platform';
import type { CommunityRole } from '../domain/model.js';
import type { CommunitiesPort, CommunitySummary } from '../domain/ports.js';

type NatsConnection = NatsHandle['nc'];
type Subscription = ReturnType<NatsConnection['subscribe']>;

interface Entry<T> {
  value: T;
  at: number;
}

/** NATS implementation of the communities port. */
export class NatsCommunitiesClient implements CommunitiesPort {
  private readonly roleCache = new Map<string, Entry<CommunityRole | null>>();
  private readonly allRoles = new Map<string, Entry<Record<string, CommunityRole>>>();
  private readonly summaries = new Map<string, Entry<CommunitySummary | null>>();
  private subs: Subscription[] = [];

  constructor(
    private readonly nc: NatsConnection,
    private readonly o: { ttlMs: number; timeoutMs: number; logger: MsgLogger },
  ) {}

  /** Subscribe to the invalidating events. */
  async start(): Promise<void> {
    const dec = new TextDecoder();
    const parse = (data: Uint8Array): Record<string, unknown> => {
      try {
        return (JSON.parse(dec.decode(data)) as { data?: Record<string, unknown> }).data ?? {};
      } catch {
        return {};
      }
    };
    this.subs.push(
      this.nc.subscribe('rdm.communities.member.>', {
        callback: (_e, msg) => {
          const d = parse(msg.data);
          if (d.member_type === 'user' && typeof d.member_id === 'string') this.dropUser(d.member_id);
          else this.clearRoles();
        },
      }),
      this.nc.subscribe('rdm.communities.community.>', {
        callback: (_e, msg) => {
          const d = parse(msg.data);
          if (typeof d.id === 'string') this.summaries.delete(d.id);
          else this.summaries.clear();
          // A deleted or restored community changes what its roles grant too.
          this.clearRoles();
        },
      }),
    );
    await this.nc.flush();
  }

  /** Unsubscribe. */
  stop(): void {
    for (const s of this.subs) s.unsubscribe();
    this.subs = [];
  }

  private fresh<T>(e: Entry<T> | undefined): e is Entry<T> {
    return e !== undefined && Date.now() - e.at < this.o.ttlMs;
  }

  private dropUser(userId: string): void {
    this.allRoles.delete(userId);
    for (const k of this.roleCache.keys()) if (k.startsWith(`${userId}|`)) this.roleCache.delete(k);
  }

  private clearRoles(): void {
    this.allRoles.clear();
    this.roleCache.clear();
  }

  async roles(userId: string, communityIds?: string[]): Promise<Record<string, CommunityRole>> {
    if (!communityIds) {
      const hit = this.allRoles.get(userId);
      if (this.fresh(hit)) return hit.value;
      const r = await callContract(
        this.nc,
        RPC_SUBJECTS.communities.roles,
        { user_id: userId },
        {
          timeoutMs: this.o.timeoutMs,
        },
      );
      this.allRoles.set(userId, { value: r.roles ?? {}, at: Date.now() });
      return r.roles ?? {};
    }
    const out: Record<string, CommunityRole> = {};
    const missing: string[] = [];
    for (const cid of communityIds) {
      const hit = this.roleCache.get(`${userId}|${cid}`);
      if (this.fresh(hit)) {
        if (hit.value) out[cid] = hit.value;
      } else missing.push(cid);
    }
    if (missing.length > 0) {
      const r = await callContract(
        this.nc,
        RPC_SUBJECTS.communities.roles,
        { user_id: userId, community_ids: missing },
        { timeoutMs: this.o.timeoutMs },
      );
      const at = Date.now();
      for (const cid of missing) {
        const role = r.roles?.[cid] ?? null;
        this.roleCache.set(`${userId}|${cid}`, { value: role, at });
        if (role) out[cid] = role;
      }
    }
    return out;
  }

  async get(ids: string[]): Promise<Map<string, CommunitySummary>> {
    const out = new Map<string, CommunitySummary>();
    const missing: string[] = [];
    for (const id of ids) {
      const hit = this.summaries.get(id);
      if (this.fresh(hit)) {
        if (hit.value) out.set(id, hit.value);
      } else missing.push(id);
    }
    if (missing.length > 0) {
      const r = await callContract(
        this.nc,
        RPC_SUBJECTS.communities.get,
        { ids: missing },
        {
          timeoutMs: this.o.timeoutMs,
        },
      );
      const at = Date.now();
      const found = new Map((r.communities ?? []).map((c) => [c.id, c]));
      for (const id of missing) {
        const c = found.get(id) ?? [...found.values()].find((x) => x.slug === id) ?? null;
        this.summaries.set(id, { value: c, at });
        if (c) out.set(id, c);
      }
    }
    return out;
  }
}
