/**
 * PostgreSQL restarts during a deposit workload (issue 10 §2, fault trials): several depositors
 * each loop "create draft → init file → upload → commit → publish" through the gateway while the
 * stack's private PostgreSQL cluster (support/stack.ts, never the shared one) is stopped — fast
 * or immediate (a crash), alternately — and started again. Use it from a faults test that owns a
 * running `FaultStack`.
 *
 * During each outage: every answer is the step's success or 503 with `Retry-After` and the error
 * body (never 500, 502, 504 or a dropped connection); the gateway's and the services' `/readyz`
 * turn not-ready. After it: everything is ready again with the same processes (no restart), and
 * every depositor publishes again. Finally (`verifyDeposits`): every publish answered 201/202 is
 * readable, its file's bytes and checksum match, it is found exactly once by id and by its unique
 * title word; a publish that failed under the outage left either a whole publication or an
 * unpublished draft (nothing half-published); every outbox is drained and the DLQ is empty.
 */
import { createHash, randomBytes } from 'node:crypto';
import { GATEWAY, SERVICES, sleep } from '../../../scripts/up.js';
import type { User } from './saga.js';
import type { FaultStack } from './stack.js';

/** What the deposit checks read: the API's base URL, an admin pool on the database, NATS's stream counts (a fault stack, or a kind cluster through port-forwards). */
export interface DepositTarget {
  base: string;
  pg: FaultStack['pg'];
  nats: { streamMessages(name: string): Promise<number> };
}

/** An answer with what the trials check of a refusal. */
export interface Answer {
  status: number;
  body: any;
  retryAfter: string | null;
  text: string;
}

/** One HTTP call (30 s bound); status 0 when the connection failed. Never throws. */
export async function httpCall(
  url: string,
  o: { method?: string; token?: string; json?: unknown; raw?: string; timeoutMs?: number } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  let body: string | undefined;
  if (o.raw !== undefined) {
    headers['content-type'] = 'application/octet-stream';
    body = o.raw;
  } else if (o.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(o.json);
  }
  try {
    const res = await fetch(url, { method: o.method ?? 'GET', headers, body, signal: AbortSignal.timeout(o.timeoutMs ?? 30_000) });
    const text = await res.text();
    let parsed: any;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed, retryAfter: res.headers.get('retry-after'), text };
  } catch (err) {
    return { status: 0, body: undefined, retryAfter: null, text: (err as Error).message };
  }
}

/** Why an answer is not an acceptable refusal (null when it is a proper 503). */
export function badRefusal(a: Answer): string | null {
  if (a.status !== 503) return `HTTP ${a.status} ${a.text.slice(0, 200)}`;
  if (!a.retryAfter) return `503 without Retry-After: ${a.text.slice(0, 200)}`;
  if (a.body?.status !== 503 || typeof a.body?.message !== 'string') return `503 body ${a.text.slice(0, 200)}`;
  return null;
}

/** One deposit: its draft, the unique word of its title, its file and how the publish ended. */
export interface Deposit {
  user: User;
  word: string;
  content: string;
  md5: string;
  id?: string;
  /** `published` (201/202), `publish-unknown` (the publish was refused under the outage), or the step abandoned. */
  outcome: string;
  at: number;
}

/** The depositors' loops; `violations` collects every answer that is neither success nor a proper 503. */
export class DepositWorkload {
  readonly deposits: Deposit[] = [];
  readonly violations: string[] = [];
  /** Proper 503 refusals seen, by step. */
  readonly refusals = new Map<string, number>();
  private stopping = false;
  private loops: Promise<void>[] = [];

  constructor(
    private readonly base: string,
    private readonly users: User[],
  ) {}

  /** Start one loop per depositor. */
  start(): void {
    this.loops = this.users.map((u) => this.loop(u));
  }

  /** Let every loop finish its current deposit and stop. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.loops);
  }

  /** Deposits published (201/202) since `t`, per depositor id. */
  publishedSince(t: number): Map<string, number> {
    const out = new Map<string, number>();
    for (const d of this.deposits) if (d.outcome === 'published' && d.at >= t) out.set(d.user.id, (out.get(d.user.id) ?? 0) + 1);
    return out;
  }

  private async loop(user: User): Promise<void> {
    while (!this.stopping) {
      const ok = await this.depositOnce(user);
      if (!ok) await sleep(300);
    }
  }

  /** One deposit; false when a step was refused (the loop backs off). */
  private async depositOnce(user: User): Promise<boolean> {
    const word = `dep${randomBytes(5).toString('hex')}`;
    const content = `deposit ${word}\n${randomBytes(512).toString('hex')}\n`;
    const d: Deposit = { user, word, content, md5: `md5:${createHash('md5').update(content).digest('hex')}`, outcome: 'started', at: 0 };
    this.deposits.push(d);
    const api = `${this.base}/api/records`;
    const steps: { name: string; want: number[]; run: () => Promise<Answer> }[] = [
      {
        name: 'create',
        want: [201],
        run: () =>
          httpCall(api, {
            method: 'POST',
            token: user.token,
            json: {
              access: { record: 'public', files: 'public' },
              files: { enabled: true },
              metadata: {
                title: `Deposit under restarts ${word}`,
                publication_date: '2024-01-01',
                resource_type: { id: 'dataset' },
                creators: [{ person_or_org: { type: 'personal', given_name: 'Fault', family_name: 'Depositor' } }],
              },
            },
          }),
      },
      {
        name: 'init',
        want: [201],
        run: () => httpCall(`${api}/${d.id}/draft/files`, { method: 'POST', token: user.token, json: [{ key: 'data.txt' }] }),
      },
      {
        name: 'upload',
        want: [200],
        run: () => httpCall(`${api}/${d.id}/draft/files/data.txt/content`, { method: 'PUT', token: user.token, raw: content }),
      },
      {
        name: 'commit',
        want: [200, 201],
        run: () => httpCall(`${api}/${d.id}/draft/files/data.txt/commit`, { method: 'POST', token: user.token }),
      },
      {
        name: 'publish',
        want: [201, 202],
        run: () => httpCall(`${api}/${d.id}/draft/actions/publish`, { method: 'POST', token: user.token }),
      },
    ];
    for (const step of steps) {
      const a = await step.run();
      if (step.name === 'create' && a.status === 201) d.id = a.body?.id;
      if (step.want.includes(a.status)) continue;
      const bad = badRefusal(a);
      if (bad) this.violations.push(`${step.name} of ${d.id ?? word} (user ${user.id}): ${bad}`);
      else this.refusals.set(step.name, (this.refusals.get(step.name) ?? 0) + 1);
      d.outcome = step.name === 'publish' ? 'publish-unknown' : `abandoned@${step.name}`;
      d.at = Date.now();
      return false;
    }
    d.outcome = 'published';
    d.at = Date.now();
    return true;
  }
}

/** What one outage showed. */
export interface OutageReport {
  mode: string;
  /** Answers seen from the probes during the outage (`<probe> <status>` → count). */
  seen: Map<string, number>;
  violations: string[];
  /** Seconds from the start of PostgreSQL to every service and the gateway ready again. */
  recoverySeconds: number;
}

const PROCESSES = [...SERVICES, GATEWAY];

/**
 * Stop the private cluster (`mode`), hold the outage `holdMs` while probing the API and the
 * readiness endpoints, start it again and wait until everything is ready with the same pids.
 */
export async function postgresOutage(stack: FaultStack, token: string, mode: 'fast' | 'immediate', holdMs: number): Promise<OutageReport> {
  if (!stack.postgres) throw new Error('no private PostgreSQL cluster (FAULTS_DATABASE_URL is set)');
  const pids = new Map(PROCESSES.map((n) => [n, stack.pid(n)]));
  const seen = new Map<string, number>();
  const violations: string[] = [];
  const see = (k: string) => seen.set(k, (seen.get(k) ?? 0) + 1);
  await stack.postgres.stop(mode);
  const until = Date.now() + holdMs;
  let gatewayNotReady = false;
  let recordsNotReady = false;
  let apiRefused = false;
  while (Date.now() < until || !(gatewayNotReady && recordsNotReady && apiRefused)) {
    if (Date.now() > until + 20_000) break;
    const [gw, rec, mine] = await Promise.all([
      httpCall(stack.readyUrl(GATEWAY), { timeoutMs: 10_000 }),
      httpCall(stack.readyUrl('records'), { timeoutMs: 10_000 }),
      httpCall(`${stack.base}/api/user/records?size=1`, { token, timeoutMs: 20_000 }),
    ]);
    see(`gateway /readyz ${gw.status}`);
    see(`records /readyz ${rec.status}`);
    see(`GET /api/user/records ${mine.status}`);
    gatewayNotReady ||= gw.status === 503;
    recordsNotReady ||= rec.status === 503;
    if (mine.status !== 200) {
      const bad = badRefusal(mine);
      if (bad) violations.push(`outage (${mode}): GET /api/user/records: ${bad}`);
      else apiRefused = true;
    }
    if (gw.status !== 200 && gw.status !== 503) violations.push(`outage (${mode}): gateway /readyz ${gw.status}`);
    await sleep(250);
  }
  if (!gatewayNotReady) violations.push(`outage (${mode}): the gateway's /readyz never said not ready`);
  if (!recordsNotReady) violations.push(`outage (${mode}): records' /readyz never said not ready`);
  if (!apiRefused) violations.push(`outage (${mode}): no API call was refused with 503`);
  const t0 = Date.now();
  await stack.postgres.start();
  try {
    await stack.waitAllReady(90_000);
  } catch (err) {
    violations.push(`after the outage (${mode}): not ready again within 90 s: ${(err as Error).message}`);
  }
  const recoverySeconds = (Date.now() - t0) / 1000;
  for (const [name, pid] of pids) {
    if (stack.pid(name) !== pid)
      violations.push(`after the outage (${mode}): ${name} was restarted or died (pid ${pid} → ${stack.pid(name)})`);
  }
  return { mode, seen, violations, recoverySeconds };
}

/** A read for the verifier: waits out 503 / no connection (bounded, 30 s): it checks what is stored. */
async function read(url: string, token?: string): Promise<Answer> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const a = await httpCall(url, { token });
    if ((a.status !== 503 && a.status !== 0) || Date.now() > deadline) return a;
    await sleep(250);
  }
}

/** Wait until no outbox row of any service is unsent (bounded); returns what is still pending. */
export async function drainOutboxes(stack: Pick<DepositTarget, 'pg'>, timeoutMs: number): Promise<string[]> {
  const { rows: schemas } = await stack.pg.query<{ s: string }>(
    "SELECT table_schema AS s FROM information_schema.tables WHERE table_name = 'outbox' ORDER BY 1",
  );
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pending: string[] = [];
    for (const { s } of schemas) {
      if (!/^[a-z_]+$/.test(s)) continue;
      const { rows } = await stack.pg.query<{ n: string }>(`SELECT count(*)::text AS n FROM "${s}".outbox WHERE published_at IS NULL`);
      if (rows[0].n !== '0') pending.push(`${s}.outbox: ${rows[0].n} unsent`);
    }
    if (pending.length === 0 || Date.now() > deadline) return pending;
    await sleep(500);
  }
}

/** The invariants over every deposit once the workload stopped and the outboxes drained; returns violations. */
export async function verifyDeposits(stack: DepositTarget, deposits: Deposit[]): Promise<string[]> {
  const bad: string[] = [];
  const api = `${stack.base}/api`;
  for (const d of deposits) {
    if (!d.id || (d.outcome !== 'published' && d.outcome !== 'publish-unknown')) continue;
    const p = `${d.outcome} ${d.id}`;
    const rec = await read(`${api}/records/${d.id}`);
    const isPublished = rec.status === 200 && rec.body?.is_published === true;
    const byId = await read(`${api}/records?q=${encodeURIComponent(`id:${d.id}`)}`);
    const byWord = await read(`${api}/records?q=${d.word}&allversions=true`);
    if (d.outcome === 'publish-unknown' && !isPublished) {
      // Not published: wholly a draft, nothing of it public.
      if (rec.status !== 404) bad.push(`${p}: record reads ${rec.status}`);
      const draft = await read(`${api}/records/${d.id}/draft`, d.user.token);
      if (draft.status !== 200 || draft.body?.is_published !== false)
        bad.push(`${p}: draft reads ${draft.status} ${draft.body?.is_published}`);
      if (byId.body?.hits?.total !== 0 || byWord.body?.hits?.total !== 0)
        bad.push(`${p}: unpublished, yet search finds ${byId.body?.hits?.total} / ${byWord.body?.hits?.total}`);
      continue;
    }
    if (!isPublished) bad.push(`${p}: record reads ${rec.status} published=${rec.body?.is_published}`);
    const files = await read(`${api}/records/${d.id}/files`);
    const entries = files.body?.entries ?? [];
    if (entries.length !== 1 || entries[0].checksum !== d.md5 || entries[0].status !== 'completed')
      bad.push(`${p}: files ${files.status} ${JSON.stringify(entries.map((e: any) => [e.key, e.checksum, e.status]))}`);
    const bytes = await read(`${api}/records/${d.id}/files/data.txt/content`);
    if (bytes.status !== 200 || bytes.text !== d.content) bad.push(`${p}: content ${bytes.status}, ${bytes.text.length} bytes`);
    if (byId.body?.hits?.total !== 1) bad.push(`${p}: search by id finds ${byId.status} ${byId.body?.hits?.total}`);
    if (byWord.body?.hits?.total !== 1) bad.push(`${p}: search by its title word finds ${byWord.status} ${byWord.body?.hits?.total}`);
    const mine = await read(`${api}/user/records?q=${d.word}`, d.user.token);
    if (mine.body?.hits?.total !== 1) bad.push(`${p}: the owner's records list it ${mine.body?.hits?.total} times`);
  }
  const ids = deposits.filter((d) => d.id).map((d) => d.id as string);
  const { rows } = await stack.pg.query<{ id: string; n: string }>(
    'SELECT id, count(*)::text AS n FROM records.records WHERE id = ANY($1) GROUP BY id HAVING count(*) > 1',
    [ids],
  );
  for (const r of rows) bad.push(`record ${r.id}: ${r.n} rows`);
  const dlq = await stack.nats.streamMessages('DLQ');
  if (dlq !== 0) bad.push(`${dlq} messages in the DLQ stream`);
  return bad;
}
