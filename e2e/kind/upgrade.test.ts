/**
 * An upgrade in the kind cluster (issue 22, item 5): `helm upgrade` of the running release to a
 * second build of the image that carries one more migration (records schema: a table the
 * migration creates and fills), while readers keep reading published records, their files and the
 * search through the ingress. Every answer during the upgrade must be a 200 or a 503 with
 * `Retry-After` (the rolling update keeps a ready pod: `maxUnavailable` 0 at one replica, the
 * PodDisruptionBudget's `maxUnavailable: 1`), proper 503s at most `MAX_REFUSED_RATIO` of the reads;
 * afterwards the migration has run once, every pod runs the new image, and every record reads as
 * before (same revision, same file bytes).
 *
 * Runs in `make test-kind` against the cluster of scripts/kind/up.sh; fails when there is none.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../../scripts/up.js';
import { type Answer, badRefusal, httpCall } from '../faults/support/deposits.js';
import type { PgPool } from '../faults/support/stack.js';
import {
  BASE,
  clusterPg,
  clusterUp,
  clusterUser,
  KIND_NAMESPACE,
  kns,
  type PortForward,
  pinIngressHost,
  portForward,
  REPO_ROOT,
} from './cluster.js';

const READERS = 4;
const RECORDS = 3;
/** At most this share of the reads during the upgrade may be a proper 503. */
const MAX_REFUSED_RATIO = 0.01;
const MIGRATION = '29991231000000_upgrade_trial.js';

/** Run a shell command with the kind scripts' environment (docker, kind, helm, kubectl). */
async function sh(script: string, timeoutMs = 900_000): Promise<string> {
  const { stdout } = await promisify(execFile)('bash', ['-c', `source scripts/kind/env.sh >/dev/null && ${script}`], {
    cwd: REPO_ROOT,
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

interface Seeded {
  id: string;
  revision: number;
  content: string;
}

describe('kind cluster: helm upgrade to a build with a new migration under a read workload', () => {
  const seeded: Seeded[] = [];
  let forward: PortForward | undefined;
  let pg: PgPool | undefined;
  let buildDir = '';
  /** One signed-in reader each: the gateway's rate limit (1,000 a minute per token, 500 per anonymous address) is not what this measures. */
  let readerTokens: string[] = [];

  beforeAll(async () => {
    if (!(await clusterUp())) throw new Error('no kind cluster with the release (run scripts/kind/up.sh, or `make test-kind`)');
    pinIngressHost();
    const user = await clusterUser('upgrade');
    readerTokens = (await Promise.all(Array.from({ length: READERS }, (_, i) => clusterUser(`reader${i}`)))).map((u) => u.token);
    const api = `${BASE}/api/records`;
    for (let i = 0; i < RECORDS; i++) {
      const content = `upgrade trial ${i} ${Date.now()}\n`;
      const d = await httpCall(api, {
        method: 'POST',
        token: user.token,
        json: {
          access: { record: 'public', files: 'public' },
          files: { enabled: true },
          metadata: {
            title: `Upgrade trial ${i}`,
            publication_date: '2024-01-01',
            resource_type: { id: 'dataset' },
            creators: [{ person_or_org: { type: 'personal', given_name: 'Upgrade', family_name: 'Trial' } }],
          },
        },
      });
      expect(d.status, d.text).toBe(201);
      const id = d.body.id as string;
      for (const [url, o, want] of [
        [`${api}/${id}/draft/files`, { method: 'POST', json: [{ key: 'data.txt' }] }, 201],
        [`${api}/${id}/draft/files/data.txt/content`, { method: 'PUT', raw: content }, 200],
        [`${api}/${id}/draft/files/data.txt/commit`, { method: 'POST' }, 200],
        [`${api}/${id}/draft/actions/publish`, { method: 'POST' }, 202],
      ] as const) {
        const a = await httpCall(url, { ...o, token: user.token });
        expect(a.status, `${url}: ${a.text}`).toBe(want);
      }
      const rec = await httpCall(`${api}/${id}`);
      seeded.push({ id, revision: rec.body.revision_id, content });
    }
  }, 600_000);

  afterAll(async () => {
    // The trial's migration is not the project's: remove it, or the next kind-up (the project's own
    // build, without that file) would find the migration directory "corrupt" and stop.
    if (!pg) {
      forward = await portForward('svc/rdm-postgresql', 5432).catch(() => undefined);
      if (forward) pg = await clusterPg(forward).catch(() => undefined);
    }
    if (pg) {
      await pg.query('DROP TABLE IF EXISTS records.upgrade_trial').catch(() => {});
      await pg.query('DELETE FROM records.knex_migrations WHERE name LIKE $1', [`${MIGRATION.replace(/\.js$/, '')}.%`]).catch(() => {});
    }
    await pg?.end().catch(() => {});
    forward?.close();
    if (buildDir) rmSync(buildDir, { recursive: true, force: true });
  });

  it('serves reads through the rolling upgrade, runs the new migration once and keeps every record', async () => {
    const before = (await kns(['get', 'deploy', 'rdm-records', '-o', 'jsonpath={.spec.template.spec.containers[0].image}'])).trim();
    const repo = before.split(':')[0] as string;
    // The second build: the running image plus one migration (records schema), as a release adds one.
    buildDir = mkdtempSync(join(tmpdir(), 'rdm-upgrade-'));
    writeFileSync(
      join(buildDir, MIGRATION),
      [
        'export async function up(knex) {',
        "  await knex.schema.withSchema('records').createTable('upgrade_trial', (t) => { t.text('build').primary(); t.timestamp('at').defaultTo(knex.fn.now()); });",
        "  await knex.withSchema('records').table('upgrade_trial').insert({ build: 'second' });",
        '}',
        'export async function down() {}',
        '',
      ].join('\n'),
    );
    writeFileSync(join(buildDir, 'Dockerfile'), `FROM ${before}\nCOPY ${MIGRATION} /app/dist/records/db/migrations/${MIGRATION}\n`);
    const tag = `upgrade-${createHash('sha256').update(before).digest('hex').slice(0, 8)}-${Date.now().toString(36)}`;
    const next = `${repo}:${tag}`;
    await sh(`docker build -q -t ${next} ${buildDir} && kind_ load docker-image --name "$KIND_CLUSTER" ${next} >/dev/null`);

    // Readers: a record, its file and the search, in a loop, through the ingress.
    const answers: { what: string; a: Answer }[] = [];
    let reading = true;
    const readers = Array.from({ length: READERS }, async (_, r) => {
      for (let i = r; reading; i++) {
        const s = seeded[i % seeded.length] as Seeded;
        const url = [
          `${BASE}/api/records/${s.id}`,
          `${BASE}/api/records/${s.id}/files/data.txt/content`,
          `${BASE}/api/records?q=${encodeURIComponent('"Upgrade trial"')}&size=5`,
        ][i % 3] as string;
        answers.push({ what: url, a: await httpCall(url, { token: readerTokens[r], timeoutMs: 20_000 }) });
        await sleep(100); // ≤ 10 a second per reader: inside its token's rate limit
      }
    });
    const t0 = Date.now();
    await sleep(2_000);
    let upgrade = '';
    try {
      upgrade = await sh(
        `helm upgrade rdm charts/rdm --namespace "${KIND_NAMESPACE}" --reuse-values --set image.tag=${tag} --timeout 15m && ` +
          `for w in $(kubectl -n "${KIND_NAMESPACE}" get deploy -o name); do kubectl -n "${KIND_NAMESPACE}" rollout status "$w" --timeout=600s; done`,
      );
      await sleep(3_000);
    } finally {
      reading = false;
      await Promise.all(readers);
    }
    const seconds = (Date.now() - t0) / 1000;
    const bad = answers.filter((x) => x.a.status !== 200 && badRefusal(x.a) !== null).map((x) => `${x.what}: ${badRefusal(x.a)}`);
    const refused = answers.filter((x) => x.a.status === 503 && badRefusal(x.a) === null).length;
    console.log(
      `upgrade ${before} -> ${next}: ${answers.length} reads in ${seconds.toFixed(1)} s, ${refused} proper 503s, ${bad.length} other failures`,
    );
    expect(upgrade).toContain('successfully rolled out');
    expect(bad, 'answers other than 200 or a proper 503').toEqual([]);
    expect(refused, `proper 503s (at most ${MAX_REFUSED_RATIO * 100} % of ${answers.length})`).toBeLessThanOrEqual(
      Math.floor(answers.length * MAX_REFUSED_RATIO),
    );

    // Every pod runs the second build; the migration ran once.
    const images = (
      await kns([
        'get',
        'pods',
        '-l',
        'app.kubernetes.io/component=service',
        '-o',
        'jsonpath={range .items[*]}{.status.phase} {.spec.containers[0].image} {.metadata.deletionTimestamp}{"\\n"}{end}',
      ])
    )
      .split('\n')
      .map((l) => l.trim())
      // Pods still draining (a deletion timestamp: the old build finishing its requests) are leaving.
      .filter((l) => l.startsWith('Running') && l.split(' ').length === 2);
    expect(images.length).toBeGreaterThan(0);
    expect(images.filter((l) => !l.endsWith(next))).toEqual([]);
    forward = await portForward('svc/rdm-postgresql', 5432);
    pg = await clusterPg(forward);
    expect((await pg.query<{ build: string }>('SELECT build FROM records.upgrade_trial')).rows).toEqual([{ build: 'second' }]);
    // knex records a migration by its source name (`.ts` in every build: platform db.ts).
    const ran = await pg.query<{ n: string }>('SELECT count(*)::text AS n FROM records.knex_migrations WHERE name LIKE $1', [
      `${MIGRATION.replace(/\.js$/, '')}.%`,
    ]);
    expect(ran.rows).toEqual([{ n: '1' }]);
    // Every record as before.
    for (const s of seeded) {
      const rec = await httpCall(`${BASE}/api/records/${s.id}`);
      expect(rec.status).toBe(200);
      expect(rec.body.revision_id).toBe(s.revision);
      const bytes = await httpCall(`${BASE}/api/records/${s.id}/files/data.txt/content`);
      expect(bytes.text).toBe(s.content);
    }
  });
});
