/**
 * Pod kills in the kind cluster (issue 22, item 4): three depositors loop "create draft → init
 * file → upload → commit → publish" through the ingress while `kubectl delete pod` takes down the
 * records pod, then the files pod, then the NATS pod, each in turn once the release has rolled
 * out again and every depositor has published since the previous kill. Every answer must be the
 * step's success or a 503 with `Retry-After` and the error body (never a 500, 502, 504, a dropped
 * connection or the ingress's own 404); afterwards the fault trials' verifier
 * (e2e/faults/support/deposits.ts) finds every accepted publish published exactly once — readable,
 * its file's bytes intact, found once by search — every outbox drained and the DLQ empty.
 *
 * Runs in `make test-kind` against the cluster of scripts/kind/up.sh; fails when there is none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../../scripts/up.js';
import { type Deposit, DepositWorkload, drainOutboxes, verifyDeposits } from '../faults/support/deposits.js';
import type { User } from '../faults/support/saga.js';
import type { PgPool } from '../faults/support/stack.js';
import { BASE, clusterPg, clusterUp, clusterUser, kns, type PortForward, pinIngressHost, portForward, streamMessages } from './cluster.js';

const DEPOSITORS = 3;
/** What is killed, in order: the pod and the workload that brings it back. */
const VICTIMS: { name: string; workload: string; pods: () => Promise<string[]> }[] = [
  { name: 'records', workload: 'deploy/rdm-records', pods: () => podsOf('rdm-records-') },
  { name: 'files', workload: 'deploy/rdm-files', pods: () => podsOf('rdm-files-') },
  { name: 'nats', workload: 'statefulset/rdm-nats', pods: async () => ['pod/rdm-nats-0'] },
];
/** How long every depositor may take to publish again after a kill. */
const RECOVERY_MS = 180_000;

async function podsOf(prefix: string): Promise<string[]> {
  const names = (await kns(['get', 'pods', '-o', 'name'])).split('\n').filter(Boolean);
  return names.filter((n) => n.startsWith(`pod/${prefix}`) && !/-migrate-/.test(n));
}

describe('kind cluster: pod kills under a deposit workload through the ingress', () => {
  const forwards: PortForward[] = [];
  let pg: PgPool | undefined;
  let users: User[] = [];

  beforeAll(async () => {
    if (!(await clusterUp())) throw new Error('no kind cluster with the release (run scripts/kind/up.sh, or `make test-kind`)');
    pinIngressHost();
    users = await Promise.all(Array.from({ length: DEPOSITORS }, (_, i) => clusterUser(`podkill${i}`)));
  }, 300_000);

  afterAll(async () => {
    await pg?.end().catch(() => {});
    for (const f of forwards) f.close();
  });

  it('loses nothing: every accepted publish ends published exactly once', async () => {
    const work = new DepositWorkload(BASE, users);
    const log: string[] = [];
    work.start();
    try {
      await waitPublished(work, 0, users, 'the first deposits');
      for (const v of VICTIMS) {
        const t = Date.now();
        const pods = await v.pods();
        expect(pods.length, `pods of ${v.name}`).toBeGreaterThan(0);
        await kns(['delete', ...pods, '--wait=false']);
        await kns(['rollout', 'status', v.workload, '--timeout=300s'], 320_000);
        const rolled = (Date.now() - t) / 1000;
        await waitPublished(work, t, users, `after the ${v.name} kill`);
        log.push(
          `${v.name}: ${pods.join(' ')} deleted, rolled out again after ${rolled.toFixed(1)} s, every depositor published again after ${((Date.now() - t) / 1000).toFixed(1)} s`,
        );
      }
    } finally {
      await work.stop();
    }
    const published = work.deposits.filter((d: Deposit) => d.outcome === 'published').length;
    log.push(
      `deposits: ${work.deposits.length}, published ${published}, refusals (proper 503) by step ${JSON.stringify(Object.fromEntries(work.refusals))}`,
    );
    console.log(log.join('\n'));

    const pgForward = await portForward('svc/rdm-postgresql', 5432);
    const natsForward = await portForward('pod/rdm-nats-0', 8222);
    forwards.push(pgForward, natsForward);
    pg = await clusterPg(pgForward);
    const target = { base: BASE, pg, nats: { streamMessages: (name: string) => streamMessages(natsForward, name) } };
    expect(await drainOutboxes(target, 120_000), 'outboxes').toEqual([]);
    expect(await verifyDeposits(target, work.deposits), 'verifier').toEqual([]);
    expect(work.violations, 'answers other than success or a proper 503').toEqual([]);
    expect(published).toBeGreaterThan(VICTIMS.length * DEPOSITORS);
  });
});

/** Wait until every depositor has published at least once since `t`. */
async function waitPublished(work: DepositWorkload, t: number, users: User[], what: string): Promise<void> {
  const deadline = Date.now() + RECOVERY_MS;
  for (;;) {
    const by = work.publishedSince(t);
    if (users.every((u) => (by.get(u.id) ?? 0) > 0)) return;
    if (Date.now() > deadline)
      throw new Error(
        `${what}: not every depositor published within ${RECOVERY_MS / 1000} s (${JSON.stringify(Object.fromEntries(by))}); last violations: ${work.violations.slice(-5).join(' | ')}`,
      );
    await sleep(500);
  }
}
