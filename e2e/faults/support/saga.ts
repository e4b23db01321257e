/**
 * Fixtures, probes and the verifier of the review-saga fault trials (e2e/faults/review-saga.test.ts).
 *
 * - Through the gateway only (like e2e): users from the users CLI, a reviewed community with
 *   curators, drafts with one file whose community-submission review is submitted.
 * - `sagaState(requestId)`: one SQL round-trip reading what each side has COMMITTED (requests'
 *   row and outbox, records' `review_effects` ledger and outbox); the trials kill at the first
 *   state at or past their kill point and record the state they actually hit.
 * - `verifySagas(...)`: after the dust settles, every accepted request has exactly one published
 *   record and every published record of the community has an accepted request — via the API
 *   (request, timeline, record, files, community listing) and, for "exactly one", the outboxes.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT, sleep } from '../../../scripts/up.js';
import type { FaultStack, PgPool } from './stack.js';

/** A parsed answer; `status` 0 when the connection failed. */
export interface Res {
  status: number;
  body: any;
  error?: string;
}

/** One call through the gateway (JSON or raw bytes), 60 s bound; never throws. */
export async function call(
  base: string,
  method: string,
  path: string,
  o: { token?: string; json?: unknown; raw?: string } = {},
): Promise<Res> {
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
    const res = await fetch(`${base}${path}`, { method, headers, body, signal: AbortSignal.timeout(60_000) });
    const text = await res.text();
    let parsed: any = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    return { status: res.status, body: parsed };
  } catch (err) {
    return { status: 0, body: undefined, error: (err as Error).message };
  }
}

/** Throw unless `res` has `status`. */
export function expectStatus(step: string, res: Res, status: number): void {
  if (res.status !== status)
    throw new Error(`${step}: HTTP ${res.status} (expected ${status}) ${res.error ?? JSON.stringify(res.body)?.slice(0, 400)}`);
}

/** A user with a token. */
export interface User {
  id: string;
  token: string;
}

/** Create a user with the users CLI against the stack's database (as `make user` does). */
export async function cliUser(databaseUrl: string, prefix: string, o: { admin?: boolean } = {}): Promise<User> {
  const email = `${prefix}-${randomBytes(4).toString('hex')}@faults.test`;
  const args = ['src/cli.ts', 'create-user', `--email=${email}`, `--name=${prefix}`];
  if (o.admin) args.push('--admin');
  const { stdout } = await promisify(execFile)(join(REPO_ROOT, 'node_modules', '.bin', 'tsx'), args, {
    cwd: join(REPO_ROOT, 'services', 'users'),
    env: { ...process.env, NODE_OPTIONS: '', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
    timeout: 120_000,
  });
  const out = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as Partial<User>;
  if (!out.id || !out.token) throw new Error(`users CLI printed no token: ${stdout}`);
  return { id: out.id, token: out.token };
}

/** Run `fn` over 0…n-1 with at most `concurrency` at once. */
export async function pool<T>(n: number, concurrency: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await fn(i);
      }
    }),
  );
  return out;
}

/** Create a community that requires review (admin token); returns `{id, slug}`. */
export async function makeCommunity(base: string, admin: string): Promise<{ id: string; slug: string }> {
  const slug = `faults-${randomBytes(4).toString('hex')}`;
  const res = await call(base, 'POST', '/api/communities', {
    token: admin,
    json: {
      slug,
      access: { visibility: 'public', member_policy: 'open', record_policy: 'open', review_policy: 'closed' },
      metadata: { title: `Fault trials ${slug}`, type: { id: 'project' } },
    },
  });
  expectStatus('create community', res, 201);
  return { id: res.body.id, slug };
}

/** Invite `user` as curator and have them accept. */
export async function addCurator(base: string, owner: string, communityId: string, user: User): Promise<void> {
  expectStatus(
    'invite',
    await call(base, 'POST', `/api/communities/${communityId}/invitations`, {
      token: owner,
      json: { members: [{ id: user.id, type: 'user' }], role: 'curator' },
    }),
    204,
  );
  const mine = await call(base, 'GET', '/api/user/requests?size=100', { token: user.token });
  const inv = (mine.body?.hits?.hits ?? []).find((h: any) => h.topic?.community === communityId && h.status === 'submitted');
  if (!inv) throw new Error(`invitation of ${user.id} not found`);
  expectStatus('accept invitation', await call(base, 'POST', `/api/requests/${inv.id}/actions/accept`, { token: user.token }), 200);
}

/** Content of each trial's file (its md5 is checked on the published record). */
export const FILE = 'time,value\n1,2\n3,4\n';
const FILE_MD5 = `md5:${createHash('md5').update(FILE).digest('hex')}`;

/** A draft with one file whose community-submission review is submitted. */
export interface Submitted {
  draftId: string;
  requestId: string;
}

/** Create a draft with one committed file, attach a review for `communityId` and submit it (202). */
export async function submittedReview(base: string, token: string, communityId: string, n: number): Promise<Submitted> {
  const created = await call(base, 'POST', '/api/records', {
    token,
    json: {
      access: { record: 'public', files: 'public' },
      files: { enabled: true },
      metadata: {
        title: `Fault trial record ${n}`,
        publication_date: '2024-01-01',
        resource_type: { id: 'dataset' },
        creators: [{ person_or_org: { type: 'personal', given_name: 'Fault', family_name: 'Trial' } }],
      },
    },
  });
  expectStatus('create draft', created, 201);
  const id = created.body.id as string;
  const d = `/api/records/${id}/draft`;
  expectStatus('init file', await call(base, 'POST', `${d}/files`, { token, json: [{ key: 'data.csv' }] }), 201);
  expectStatus('upload', await call(base, 'PUT', `${d}/files/data.csv/content`, { token, raw: FILE }), 200);
  expectStatus('commit', await call(base, 'POST', `${d}/files/data.csv/commit`, { token }), 200);
  const review = await call(base, 'PUT', `${d}/review`, {
    token,
    json: { type: 'community-submission', receiver: { community: communityId } },
  });
  expectStatus('attach review', review, 200);
  const sub = await call(base, 'POST', `${d}/actions/submit-review`, { token, json: { payload: { content: 'Please', format: 'html' } } });
  expectStatus('submit review', sub, 202);
  if (sub.body?.status !== 'submitted') throw new Error(`submit-review answered status ${sub.body?.status}`);
  return { draftId: id, requestId: review.body.id };
}

/** What both sides have committed for one request. */
export interface SagaState {
  /** requests.requests.status (`accepting` = accept committed, effect not applied). */
  req: string | null;
  /** The `rdm.requests.request.accepted` outbox row is marked published (JetStream acked it). */
  acceptRelayed: boolean | null;
  /** records.review_effects.outcome (`published` = publication committed). */
  effect: string | null;
  /** The `rdm.records.record.published` outbox row is marked published. */
  publishRelayed: boolean | null;
}

const STATE_SQL = `SELECT
  (SELECT status FROM requests.requests WHERE id = $1::text::uuid) AS req,
  (SELECT bool_and(published_at IS NOT NULL) FROM requests.outbox WHERE aggregate_id = $1::text AND subject = 'rdm.requests.request.accepted') AS accept_relayed,
  (SELECT outcome FROM records.review_effects WHERE request_id = $1::text) AS effect,
  (SELECT bool_and(published_at IS NOT NULL) FROM records.outbox
     WHERE subject = 'rdm.records.record.published' AND payload->'data'->>'request_id' = $1::text) AS publish_relayed`;

/** One round-trip: the committed state of the saga of `requestId`. */
export async function sagaState(pg: PgPool, requestId: string): Promise<SagaState> {
  const { rows } = await pg.query<{
    req: string | null;
    accept_relayed: boolean | null;
    effect: string | null;
    publish_relayed: boolean | null;
  }>(STATE_SQL, [requestId]);
  const r = rows[0];
  return { req: r.req, acceptRelayed: r.accept_relayed, effect: r.effect, publishRelayed: r.publish_relayed };
}

/**
 * A short label of a state, e.g. `req=accepting(sent) effect=published(unsent)`: `sent` = the
 * outbox row is marked published (after JetStream's ack); `unsent` = not marked yet (the event may
 * be on its way: the relay marks it after the ack).
 */
export function stateLabel(s: SagaState): string {
  const rel = (b: boolean | null) => (b === null ? '' : b ? '(sent)' : '(unsent)');
  return `req=${s.req}${s.req === 'accepting' || s.req === 'accepted' ? rel(s.acceptRelayed) : ''} effect=${s.effect ?? '-'}${s.effect ? rel(s.publishRelayed) : ''}`;
}

/** Poll `sagaState` back to back until `reached` (or `stop()`), at most `timeoutMs`; returns the state. */
export async function waitState(
  pg: PgPool,
  requestId: string,
  reached: (s: SagaState) => boolean,
  o: { timeoutMs?: number; stop?: () => boolean } = {},
): Promise<{ state: SagaState; reached: boolean }> {
  const deadline = Date.now() + (o.timeoutMs ?? 20_000);
  for (;;) {
    const state = await sagaState(pg, requestId);
    if (reached(state)) return { state, reached: true };
    if (o.stop?.() || Date.now() > deadline) return { state, reached: false };
  }
}

/** One saga under trial and what its accept call answered. */
export interface Trial extends Submitted {
  label: string;
  /** HTTP status of the accept call (0: connection failed). */
  acceptStatus: number;
  acceptBody: any;
  /** The fault may fail the call itself (the requests service or NATS died under it). */
  mayFail: boolean;
  /** After a 200: what `GET /api/records/<id>` answered next (read-your-writes), e.g. `200 published`. */
  readAfter?: string;
}

/** Wait until every trial's request left `accepting` and both outboxes are relayed; returns what is still pending. */
export async function settle(stack: FaultStack, trials: Trial[], timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ids = trials.map((t) => t.requestId);
    const { rows } = await stack.pg.query<{ id: string; status: string }>(
      "SELECT id::text, status FROM requests.requests WHERE id = ANY($1::uuid[]) AND status <> 'accepted'",
      [ids],
    );
    const ob = await stack.pg.query<{ n: string }>(
      'SELECT ((SELECT count(*) FROM requests.outbox WHERE published_at IS NULL) + (SELECT count(*) FROM records.outbox WHERE published_at IS NULL))::text AS n',
    );
    const pending = rows.map((r) => `${r.id}: ${r.status}`);
    if (Number(ob.rows[0].n) > 0) pending.push(`${ob.rows[0].n} outbox rows not relayed`);
    if (pending.length === 0 || Date.now() > deadline) return pending;
    await sleep(250);
  }
}

/**
 * A read for the verifier: retried (bounded, 20 s) while the answer is 503 or no connection —
 * the verifier checks what is stored, not availability (right after a NATS restart, the first
 * RPC of a service can still time out: see the fault-trials report).
 */
async function read(base: string, path: string, token?: string): Promise<Res> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await call(base, 'GET', path, { token });
    if ((res.status !== 503 && res.status !== 0) || Date.now() > deadline) return res;
    await sleep(250);
  }
}

/**
 * The invariants, after `settle`: returns every violation found (empty = none). `curator` reads
 * requests and timelines; records, files and the community listing are read anonymously.
 */
export async function verifySagas(
  stack: FaultStack,
  trials: Trial[],
  o: { curator: string; community: { id: string; slug: string } },
): Promise<string[]> {
  const bad: string[] = [];
  const { base, pg } = stack;
  const byRecord = new Map(trials.map((t) => [t.draftId, t]));
  for (const t of trials) {
    const p = `${t.label} request ${t.requestId} / record ${t.draftId}`;
    // The accept call: 200 only with the final state, 202 only with the pending one, or a failure
    // of the connection / gateway (the requests service died under it); never another answer.
    if (t.acceptStatus === 200 && t.acceptBody?.status !== 'accepted') bad.push(`${p}: accept 200 with status ${t.acceptBody?.status}`);
    if (t.acceptStatus === 202 && (t.acceptBody?.status !== 'submitted' || t.acceptBody?.is_open !== true))
      bad.push(`${p}: accept 202 with status ${t.acceptBody?.status}`);
    const allowed = t.mayFail ? [200, 202, 0, 502, 503, 504] : [200, 202];
    if (!allowed.includes(t.acceptStatus)) bad.push(`${p}: accept answered ${t.acceptStatus} ${JSON.stringify(t.acceptBody)}`);
    if (t.acceptStatus === 200 && t.readAfter !== '200 published') bad.push(`${p}: accept 200, then the record read ${t.readAfter}`);
    const req = await read(base, `/api/requests/${t.requestId}`, o.curator);
    if (req.status !== 200 || req.body.status !== 'accepted' || req.body.is_closed !== true)
      bad.push(`${p}: request reads ${req.status} ${req.body?.status}`);
    const tl = await read(base, `/api/requests/${t.requestId}/timeline?size=100`, o.curator);
    const logs = (tl.body?.hits?.hits ?? []).filter((e: any) => e.type === 'L').map((e: any) => e.payload?.event);
    if (logs.filter((e: string) => e === 'accepted').length !== 1 || logs.includes('accept_failed'))
      bad.push(`${p}: timeline log events ${JSON.stringify(logs)}`);
    const rec = await read(base, `/api/records/${t.draftId}`);
    if (
      rec.status !== 200 ||
      rec.body.is_published !== true ||
      JSON.stringify(rec.body.parent?.communities?.ids) !== JSON.stringify([o.community.id])
    )
      bad.push(
        `${p}: record reads ${rec.status} published=${rec.body?.is_published} communities=${JSON.stringify(rec.body?.parent?.communities?.ids)}`,
      );
    const versions = await read(base, `/api/records/${t.draftId}/versions`);
    if (versions.body?.hits?.total !== 1) bad.push(`${p}: ${versions.body?.hits?.total} versions`);
    const files = await read(base, `/api/records/${t.draftId}/files`);
    const entries = files.body?.entries ?? [];
    if (entries.length !== 1 || entries[0].checksum !== FILE_MD5)
      bad.push(`${p}: files ${JSON.stringify(entries.map((e: any) => [e.key, e.checksum]))}`);
  }
  // Exactly one publication event and one accept per request, no refusal: the outboxes.
  const ids = trials.map((t) => t.requestId);
  const pub = await pg.query<{ rid: string; n: string }>(
    `SELECT payload->'data'->>'request_id' AS rid, count(*)::text AS n FROM records.outbox
      WHERE subject = 'rdm.records.record.published' AND payload->'data'->>'request_id' = ANY($1) GROUP BY 1`,
    [ids],
  );
  const pubs = new Map(pub.rows.map((r) => [r.rid, Number(r.n)]));
  const acc = await pg.query<{ rid: string; n: string }>(
    `SELECT aggregate_id AS rid, count(*)::text AS n FROM requests.outbox WHERE subject = 'rdm.requests.request.accepted' AND aggregate_id = ANY($1) GROUP BY 1`,
    [ids],
  );
  const accs = new Map(acc.rows.map((r) => [r.rid, Number(r.n)]));
  const failed = await pg.query<{ rid: string }>(
    `SELECT payload->'data'->>'request_id' AS rid FROM records.outbox WHERE subject = 'rdm.records.review.failed' AND payload->'data'->>'request_id' = ANY($1)`,
    [ids],
  );
  for (const t of trials) {
    if (pubs.get(t.requestId) !== 1) bad.push(`${t.label} ${t.requestId}: ${pubs.get(t.requestId) ?? 0} record.published events`);
    if (accs.get(t.requestId) !== 1) bad.push(`${t.label} ${t.requestId}: ${accs.get(t.requestId) ?? 0} request.accepted events`);
  }
  for (const r of failed.rows) bad.push(`${r.rid}: review.failed emitted`);
  const rows = await pg.query<{ id: string; n: string }>(
    'SELECT id, count(*)::text AS n FROM records.records WHERE id = ANY($1) GROUP BY id',
    [trials.map((t) => t.draftId)],
  );
  for (const r of rows.rows) if (r.n !== '1') bad.push(`record ${r.id}: ${r.n} rows`);
  // Every published record of the community belongs to an accepted request of ours, once.
  const listed = await read(base, `/api/communities/${o.community.slug}/records?size=1000`);
  const hits: any[] = listed.body?.hits?.hits ?? [];
  if (listed.body?.hits?.total !== hits.length) bad.push(`community listing: total ${listed.body?.hits?.total} vs ${hits.length} hits`);
  const seen = new Map<string, number>();
  for (const h of hits) seen.set(h.id, (seen.get(h.id) ?? 0) + 1);
  for (const [id, n] of seen) {
    if (n !== 1) bad.push(`community listing: record ${id} ${n} times`);
    if (!byRecord.has(id)) bad.push(`community listing: record ${id} has no trial request`);
  }
  for (const t of trials) if (!seen.has(t.draftId)) bad.push(`${t.label} record ${t.draftId}: not listed in the community`);
  // Nothing dead-lettered.
  const dlq = await stack.nats.streamMessages('DLQ');
  if (dlq !== 0) bad.push(`${dlq} messages in the DLQ stream`);
  return bad;
}
