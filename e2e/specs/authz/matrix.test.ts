/**
 * Authorisation matrix generated from the routes: every operation of `/api/openapi.json` (the
 * gateway's routing table) × actor (anonymous, the owner, another user, each role of the
 * record's community, an administrator, secret links of each level) × state (fixtures.ts), with
 * the expected answers as data (table.ts).
 *
 * - The first test fails when a routed operation has no row (or a row names no routed
 *   operation): adding a route means adding its authorisation rows.
 * - The second runs every cell, reads first (concurrently, on the untouched world), then the
 *   writes row by row, and searches every answer for the markers of restricted content the actor
 *   may not read (titles, file keys, e-mail addresses, comments, slugs). It prints every failing
 *   cell (operation, actor, state, expected, got) in one summary, then fails.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, api, overloadRetries } from '../../support/client.js';
import { ACTORS, type Actor, buildWorld, COMMUNITY_STATES, PLAIN_ACTORS, RECORD_STATES, REQUEST_STATES, type World } from './fixtures.js';
import { type Cell, EXCLUDED, KNOWN, type Row, type Scope, TABLE, type Vars } from './table.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
/** Concurrent calls while reading (the stack shares two cores with everything else). */
const CONCURRENCY = 8;
/** Concurrent refusals per chain while writing (the chains of each scope and state write side by side). */
const WRITE_CONCURRENCY = 2;

const STATES: Record<Scope, readonly string[]> = {
  record: RECORD_STATES,
  community: COMMUNITY_STATES,
  request: REQUEST_STATES,
  global: ['any'],
};
const STATES_ORDER = [...new Set(Object.values(STATES).flat())];
const actorsOf = (scope: Scope): readonly Actor[] => (scope === 'record' ? ACTORS : PLAIN_ACTORS);

/** `/a/{x}/b` and `/a/{y}/b` are the same operation (OpenAPI path templating). */
const shape = (op: string) => op.replace(/\{[^}]*\}/g, '{}');

/** One expectation: alternatives of statuses and hit counts; null when not sent. */
interface Want {
  statuses: number[];
  hits: number[];
  text: string;
}

function parseToken(token: string): Want | null {
  if (token === '-') return null;
  const w: Want = { statuses: [], hits: [], text: token };
  for (const alt of token.split('|')) {
    if (alt.startsWith('#')) w.hits.push(Number(alt.slice(1)));
    else w.statuses.push(Number(alt));
  }
  if ([...w.statuses, ...w.hits].some((n) => !Number.isInteger(n))) throw new Error(`bad token ${token}`);
  return w;
}

/** Success is the only answer expected: such cells may get a fresh target (`prepare`). */
const successOnly = (w: Want) => w.statuses.every((s) => s >= 200 && s < 300);

/** The placeholders of a state. */
function varsOf(w: World, scope: Scope, state: string): Vars {
  const manager = w.users.manager.email;
  if (scope === 'record') {
    const r = w.records[state as keyof World['records']];
    return {
      id: r.id,
      parent: r.parent,
      key: r.key,
      media: r.media,
      image: r.image,
      scheme: 'doi',
      format: 'json',
      part: '1',
      link_id: r.links.view.id,
      grant_id: '0',
      user_id: w.extra.id,
    };
  }
  if (scope === 'community') {
    const c = w.communities[state as keyof World['communities']];
    return {
      id: c.id,
      slug: c.slug,
      fid: w.communities.public.featured ?? '',
      target: w.extraRecord,
      schemaId: c.schema ?? '00000000-0000-4000-8000-000000000000',
      managerEmail: manager,
    };
  }
  if (scope === 'request') {
    const q = w.requests[state as keyof World['requests']];
    return { id: q.id, comment_id: q.comment, commentText: q.commentText };
  }
  return { owner: w.users.owner.id, invitee: w.invitee.id };
}

/** Fill `{name}`s: path segments and query values encoded. */
function fill(template: string, vars: Vars): string {
  const sub = (s: string) =>
    s.replace(/\{(\w+)\}/g, (_, k: string) => {
      if (!(k in vars)) throw new Error(`no value for {${k}} in ${template}`);
      return vars[k]!;
    });
  const [path, query] = template.split('?', 2) as [string, string | undefined];
  const p = path
    .split('/')
    .map((seg) => (seg.includes('{') ? encodeURIComponent(sub(seg)) : seg))
    .join('/');
  if (!query) return p;
  const qs = new URLSearchParams(query.split('&').map((kv) => kv.split('=', 2).map(sub) as [string, string]));
  return `${p}?${qs.toString()}`;
}

/** A failing cell. */
interface Failure {
  row: number;
  op: string;
  call: string;
  state: string;
  actor: Actor;
  expected: string;
  got: string;
}

/** Run one cell; returns the answer and the failures it shows. */
async function runCell(row: Row, c: Cell, want: Want, token: string | undefined): Promise<{ res: ApiResponse; failures: Failure[] }> {
  const method = row.op.slice(0, row.op.indexOf(' '));
  let path = fill(row.path ?? row.op.slice(method.length + 1), c.vars);
  if (token) path += `${path.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}`;
  const user = c.actor === 'anon' || c.actor.startsWith('link:') ? undefined : c.w.users[c.actor as keyof World['users']].token;
  const send = () => api(path, { method, token: user, body: row.body?.(c), raw: row.raw, headers: row.headers });
  let res = await send();
  // Why again: a 503 is the stack's overload (a 5 s RPC timeout on a loaded machine), never an
  // answer of the table; the cell is asked twice more before it counts.
  for (let i = 1; res.status === 503 && i <= 2; i++) {
    await new Promise((r) => setTimeout(r, 1000 * i));
    res = await send();
  }
  const failures: Failure[] = [];
  const fail = (got: string) =>
    failures.push({
      row: TABLE.indexOf(row),
      op: row.op,
      call: `${method} ${path}`,
      state: c.state,
      actor: c.actor,
      expected: want.text,
      got,
    });
  const total = res.status === 200 ? res.body?.hits?.total : undefined;
  const hitOk = want.hits.length > 0 && res.status === 200 && want.hits.includes(total);
  if (!hitOk && !want.statuses.includes(res.status)) {
    fail(want.hits.length && res.status === 200 ? `#${total}` : `${res.status} ${res.text.slice(0, 120).replace(/\s+/g, ' ')}`);
  }
  // Why without `links` for searches: they echo the query.
  const text = want.hits.length ? JSON.stringify({ ...res.body, links: undefined }) : `${res.text} ${res.headers.get('location') ?? ''}`;
  const who = c.actor.startsWith('link:') ? `${c.actor}@${c.state}` : c.actor;
  for (const m of c.w.markers) {
    if (!m.readers.has(who) && text.includes(m.text)) fail(`${res.status}, shows the ${m.what}`);
  }
  const wrong = await row.check?.(c, res, !successOnly(want));
  if (wrong) fail(`${res.status}, ${wrong}`);
  return { res, failures };
}

/** Run `tasks` with at most `n` at once. */
async function pool<T>(tasks: (() => Promise<T>)[], n: number): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, tasks.length) }, async () => {
      while (next < tasks.length) {
        const i = next++;
        out[i] = await tasks[i]!();
      }
    }),
  );
  return out;
}

/** Column names of the expectation tables. */
const COLUMN: Record<Actor, string> = {
  anon: 'anon',
  owner: 'owner',
  other: 'other',
  reader: 'reader',
  curator: 'curator',
  manager: 'manager',
  cowner: 'cowner',
  admin: 'admin',
  'link:view': 'lview',
  'link:preview': 'lprev',
  'link:edit': 'ledit',
};

/** A row's expectation table: state → one token per actor (the header checked against the scope's actors). */
function parseExpect(row: Row): Map<string, string[]> {
  const [header, ...lines] = row.expect
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/));
  const actors = actorsOf(row.scope);
  const want = ['state', ...actors.map((a) => COLUMN[a])];
  if (header!.join(' ') !== want.join(' ')) throw new Error(`${row.op}: table header "${header!.join(' ')}", not "${want.join(' ')}"`);
  const out = new Map<string, string[]>();
  for (const [state, ...tokens] of lines) {
    if (tokens.length !== actors.length) throw new Error(`${row.op} ${state}: ${tokens.length} tokens for ${actors.length} actors`);
    out.set(state!, tokens);
  }
  return out;
}

/** The cells of one row in one state. */
function cellsOf(row: Row, w: World, state: string): { c: Cell; want: Want }[] {
  const tokens = parseExpect(row).get(state);
  if (!tokens) throw new Error(`${row.op}: no line for state ${state}`);
  return actorsOf(row.scope).flatMap((actor, i) => {
    const want = parseToken(tokens[i]!);
    return want ? [{ c: { w, state, actor, vars: varsOf(w, row.scope, state) }, want }] : [];
  });
}

const linkToken = (c: Cell, vars: Partial<Vars> & { token?: string }) => {
  if (!c.actor.startsWith('link:')) return undefined;
  if (vars.token) return vars.token;
  const level = c.actor.slice(5) as 'view' | 'preview' | 'edit';
  return c.w.records[c.state as keyof World['records']].links[level].token;
};

describe('authorisation matrix', () => {
  let w: World;
  beforeAll(async () => {
    const t = Date.now();
    // One 503 in set-up (an RPC timing out on a loaded machine) would fail every cell: retried.
    w = await overloadRetries(3, buildWorld);
    process.stderr.write(`[authz] world built in ${((Date.now() - t) / 1000).toFixed(1)} s\n`);
  }, 600_000);

  it('should have rows for every routed operation, and only for routed operations', async () => {
    const doc = await api('/api/openapi.json');
    expect(doc.status).toBe(200);
    const routed = new Map<string, string>();
    for (const [path, item] of Object.entries(doc.body.paths as Record<string, Record<string, unknown>>)) {
      for (const m of METHODS) if (m in item) routed.set(shape(`${m.toUpperCase()} ${path}`), `${m.toUpperCase()} ${path}`);
    }
    const rowed = new Set(TABLE.map((r) => shape(r.op)));
    const excluded = new Set(Object.keys(EXCLUDED).map(shape));
    const missing = [...routed].filter(([s]) => !rowed.has(s) && !excluded.has(s)).map(([, op]) => op);
    const stale = TABLE.filter((r) => !routed.has(shape(r.op)) && !r.mayBeUnrouted).map((r) => r.op);
    const staleExclusions = Object.keys(EXCLUDED).filter((op) => !routed.has(shape(op)));
    expect({ missing, stale, staleExclusions }).toEqual({ missing: [], stale: [], staleExclusions: [] });
    for (const row of TABLE) {
      const table = parseExpect(row);
      expect([...table.keys()], row.op).toEqual([...STATES[row.scope]]);
      for (const tokens of table.values()) for (const t of tokens) parseToken(t);
    }
  });

  it('should answer every cell as the table says, and never show what the caller may not read', async () => {
    const started = Date.now();
    let failures: Failure[] = [];
    let cells = 0;
    const readOnly = (r: Row) => r.op.startsWith('GET ') && !r.prepare && !r.restore && !r.after;

    // Reads first, all at once: the world is as fixtures.ts made it.
    const reads = TABLE.filter(readOnly).flatMap((row) =>
      STATES[row.scope].flatMap((state) =>
        cellsOf(row, w, state).map(
          ({ c, want }) =>
            async () =>
              runCell(row, c, want, linkToken(c, {})),
        ),
      ),
    );
    for (const r of await pool(reads, CONCURRENCY)) failures.push(...r.failures);
    cells += reads.length;
    const readSeconds = (Date.now() - started) / 1000;

    // Then the writes, row by row: refusals at once on the shared target, successes one by one.
    const writes = async (rows: Row[], state: string) => {
      for (const row of rows) {
        const all = cellsOf(row, w, state);
        const refused = all.filter((x) => !successOnly(x.want));
        const allowed = all.filter((x) => successOnly(x.want));
        // A hook that fails is a failing cell too (the world may no longer be as described).
        const hook = async (what: string, c: Cell, f: () => Promise<unknown>) => {
          try {
            return await f();
          } catch (e) {
            failures.push({
              row: TABLE.indexOf(row),
              op: row.op,
              call: what,
              state,
              actor: c.actor,
              expected: '(set-up)',
              got: (e as Error).message.slice(0, 200),
            });
            return undefined;
          }
        };
        // Rows with a `check` look at shared state after each answer: one cell at a time.
        const shared = await pool(
          refused.map(
            ({ c, want }) =>
              () =>
                runCell(row, c, want, linkToken(c, {})),
          ),
          row.check ? 1 : WRITE_CONCURRENCY,
        );
        for (const [i, r] of shared.entries()) {
          failures.push(...r.failures);
          const c = refused[i]!.c;
          if (row.restoreAny && r.res.status >= 200 && r.res.status < 300) await hook('restore', c, () => row.restore!(c, r.res));
        }
        for (const { c, want } of allowed) {
          const prepared = await hook('prepare', c, async () => row.prepare?.(c));
          const fresh = (prepared && typeof prepared === 'object' ? prepared : {}) as Partial<Vars> & { token?: string };
          const cell = { ...c, vars: { ...c.vars, ...fresh } as Vars };
          const r = await runCell(row, cell, want, linkToken(cell, fresh));
          failures.push(...r.failures);
          if (row.restore) await hook('restore', cell, () => row.restore!(cell, r.res));
        }
        if (row.after) await hook('after', all[0]!.c, () => row.after!(w, state));
        cells += all.length;
      }
    };
    // Each state of each scope has fixtures of its own: the chains of (scope, state) run side by side.
    const chains = (Object.keys(STATES) as Scope[]).flatMap((scope) =>
      STATES[scope].map((state) =>
        writes(
          TABLE.filter((r) => !readOnly(r) && r.scope === scope),
          state,
        ),
      ),
    );
    await Promise.all(chains);

    const seconds = (Date.now() - started) / 1000;
    // In table order: row, then state, then actor (the chains finish in any order).
    const rank = (f: Failure) => [f.row, STATES_ORDER.indexOf(f.state), ACTORS.indexOf(f.actor)];
    failures.sort((a, b) => {
      const [x, y] = [rank(a), rank(b)];
      return x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!;
    });
    // Known defects (table.ts KNOWN): listed, not counted; one that now passes fails the run, so
    // the entry must go when the defect is fixed.
    const keyOf = (op: string, actor: string, state: string) => `${op} | ${actor} | ${state}`;
    const knownCells = new Map<string, string>();
    for (const k of KNOWN) for (const a of k.actors) for (const st of k.states) knownCells.set(keyOf(k.op, a, st), k.why);
    const failed = new Set(failures.map((f) => keyOf(f.op, f.actor, f.state)));
    const knownFailures = failures.filter((f) => knownCells.has(keyOf(f.op, f.actor, f.state)));
    const fixedKnown = [...knownCells.keys()].filter((k) => !failed.has(k));
    failures = failures.filter((f) => !knownCells.has(keyOf(f.op, f.actor, f.state)));
    if (knownFailures.length) {
      const why = [...new Set(knownFailures.map((f) => `  ${f.op}: ${knownCells.get(keyOf(f.op, f.actor, f.state))}`))];
      process.stderr.write(`[authz] ${knownFailures.length} cells fail as known defects (table.ts KNOWN):\n${why.join('\n')}\n`);
    }
    expect(fixedKnown, 'known defects that now pass: remove them from KNOWN in table.ts').toEqual([]);
    const lines = failures.map((f) => [f.op, f.actor, f.state, f.expected, f.got, f.call]);
    const widths = [0, 1, 2, 3].map((i) => Math.max(...lines.map((l) => l[i]!.length), 9));
    const table = lines
      .map(
        (l) =>
          `  ${l
            .slice(0, 4)
            .map((s, i) => s.padEnd(widths[i]!))
            .join('  ')}  got ${l[4]}   (${l[5]})`,
      )
      .join('\n');
    const head = `  ${['operation', 'actor', 'state', 'expected'].map((s, i) => s.padEnd(widths[i]!)).join('  ')}  got   (call)`;
    const summary = `[authz] ${cells} cells in ${seconds.toFixed(1)} s (reads ${readSeconds.toFixed(1)} s); ${failures.length} failing`;
    process.stderr.write(`${summary}\n${failures.length ? `${head}\n${table}\n` : ''}`);
    expect(failures.length, `${failures.length} failing cells (listed above)`).toBe(0);
  }, 900_000);
});
