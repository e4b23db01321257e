import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TEST_DATABASE_URL, waitFor } from '@rdm/platform/testing';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, as, BASE, requestData, SECRET, startHarness } from '../support/harness.js';
import { type Receiver, startReceiver } from '../support/receiver.js';

const SCRIPT = fileURLToPath(new URL('../support/worker-process.ts', import.meta.url));
const SERVICE_DIR = fileURLToPath(new URL('../..', import.meta.url));

describe('kill -9 of the delivering process mid-burst', () => {
  let h: Harness;
  let rx: Receiver;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    h = await startHarness({}, { run: false });
    rx = await startReceiver(() => 200, 150);
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await rx?.close();
    await h?.stop();
  });

  function startWorker(): Promise<ChildProcess> {
    const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT], {
      cwd: SERVICE_DIR,
      env: {
        ...process.env,
        DATABASE_URL: TEST_DATABASE_URL,
        NATS_URL: h.server.url,
        WEBHOOKS_TEST_SCHEMA: h.t.schema,
        IDENTITY_SECRET: SECRET,
        PUBLIC_BASE_URL: BASE,
        WEBHOOKS_ALLOW_HTTP: 'true',
        WEBHOOKS_ALLOWED_CIDRS: '127.0.0.0/8',
        WEBHOOKS_POLL_MS: '50',
        WEBHOOKS_LEASE_MS: '2000',
        WEBHOOKS_TIMEOUT_MS: '1000',
        WEBHOOKS_BACKOFF_BASE_MS: '50',
        LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    return new Promise((resolve, reject) => {
      child.stdout?.on('data', (b: Buffer) => b.toString().includes('ready') && resolve(child));
      child.once('exit', (code) => reject(new Error(`worker exited ${code}`)));
    });
  }

  it('should deliver every event at least once after a restart', async () => {
    const sub = await request(h.front)
      .post('/api/webhooks')
      .set(as('31'))
      .send({ url: rx.url, events: ['request.submitted'] });
    expect(sub.status).toBe(201);
    const first = await startWorker();
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) {
      const d = requestData({ createdByUser: '31' });
      ids.push(d.id as string);
      await h.publish('rdm.requests.request.submitted', d);
    }
    await waitFor(() => rx.received.length >= 5 || undefined, { timeoutMs: 20_000 });
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const atKill = new Set(rx.received.map((r) => JSON.parse(r.body).data.id));
    expect(atKill.size).toBeLessThan(ids.length);
    await startWorker();
    const got = await waitFor(
      () => {
        const seen = new Set(rx.received.map((r) => JSON.parse(r.body).data.id as string));
        return ids.every((id) => seen.has(id)) ? seen : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(ids.filter((id) => !got?.has(id))).toEqual([]);
    // The deliveries the killed process held come back after their lease; each ends succeeded.
    const statuses = await waitFor(
      async () => {
        const rows = (await h.t.db('deliveries').select('status').count({ n: '*' }).groupBy('status')) as { status: string; n: string }[];
        return rows.length === 1 && rows[0].status === 'succeeded' ? rows : undefined;
      },
      { timeoutMs: 10_000 },
    );
    expect(statuses).toEqual([{ status: 'succeeded', n: '40' }]);
  });
});
