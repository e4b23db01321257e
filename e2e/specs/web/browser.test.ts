/**
 * Landing pages in a real browser (issue 23): Debian's `chromium` driven headless by
 * `playwright-core` (its executable path; nothing downloads a browser). Each page of a published
 * record with a file and two versions in a community, of a restricted record (anonymous, then
 * with a secret link), of a deleted record, of a community and of the search renders; every link
 * on it resolves (no 404, 501 or 5xx); axe-core finds no serious or critical accessibility
 * violation; the JSON-LD parses and names the same title, creators and DOI as the API; and a
 * screenshot of each page is kept under `.data/e2e-artifacts/web/` (gitignored).
 *
 * Chromium: `bash scripts/infra/chromium.sh install` (`make browser` runs it, and so `make test` / `make test-e2e`). Without it the spec
 * fails under CI and is skipped, loudly, elsewhere.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../scripts/up.js';
import { api, baseUrl } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { makeCommunity } from '../communities/support.js';
import { publishedRecord, walkthroughMetadata } from '../records/support.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const CI = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';
const ARTIFACTS = join(REPO_ROOT, '.data', 'e2e-artifacts', 'web');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

if (!CHROMIUM && !CI) process.stderr.write('[web browser spec] skipped: no chromium (bash scripts/infra/chromium.sh install)\n');

/** What a page check found. */
interface Checked {
  status: number;
  html: string;
}

describe.skipIf(!CHROMIUM && !CI)('landing pages in a browser', () => {
  let browser: Browser;
  let owner: TestUser;
  let admin: TestUser;

  beforeAll(async () => {
    if (!CHROMIUM) throw new Error('chromium is not installed (bash scripts/infra/chromium.sh install)');
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    [owner, admin] = await Promise.all([
      createUser({ email: uniqueEmail('web-browser-owner') }),
      createUser({ email: uniqueEmail('web-browser-admin'), admin: true }),
    ]);
  });

  afterAll(async () => {
    await browser?.close();
  });

  /** Open `url`, keep a screenshot, run axe, and check every link on the page. */
  async function visit(name: string, url: string, expectedStatus = 200): Promise<Checked & { page: Page }> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const res = await page.goto(url, { waitUntil: 'load' });
    expect(res?.status(), `${name}: ${url}`).toBe(expectedStatus);
    await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
    // The stylesheet applied (dark or light, the body has a background and the system font).
    expect(await page.evaluate<string>('getComputedStyle(document.body).fontFamily')).toContain('system-ui');
    await page.addScriptTag({ content: AXE });
    const result = (await page.evaluate("axe.run(document, { resultTypes: ['violations'] })")) as {
      violations: { id: string; impact: string; help: string; nodes: unknown[] }[];
    };
    const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(
      bad.map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.length})`),
      `${name}: axe`,
    ).toEqual([]);
    const hrefs = await page.evaluate<string[]>("[...document.querySelectorAll('a[href], link[href]')].map((e) => e.href)");
    const own = [...new Set(hrefs.filter((h) => h.startsWith(baseUrl())))];
    const broken: string[] = [];
    for (const href of own) {
      const r = await api(href, { headers: { accept: '*/*' } });
      if (r.status === 404 || r.status === 501 || r.status >= 500) broken.push(`${r.status} ${href}`);
    }
    expect(broken, `${name}: links`).toEqual([]);
    return { status: res?.status() ?? 0, html: await page.content(), page };
  }

  it('should render a published record (file, two versions, community) a person can read and a crawler can parse', async () => {
    const community = await makeCommunity(admin.token, 'Browser community');
    const depositor = admin;
    const v1 = await publishedRecord(depositor.token, { ...walkthroughMetadata(), title: 'Browser record' });
    const nv = await api(`/api/records/${v1.id}/versions`, { method: 'POST', token: depositor.token });
    expect(nv.status, nv.text).toBe(201);
    const v2id = nv.body.id;
    await api(`/api/records/${v2id}/draft`, {
      method: 'PUT',
      token: depositor.token,
      body: { ...nv.body, metadata: { ...nv.body.metadata, title: 'Browser record', version: 'v2.0', publication_date: '2021-01-01' } },
    });
    const imp = await api(`/api/records/${v2id}/draft/actions/files-import`, { method: 'POST', token: depositor.token });
    expect(imp.status, imp.text).toBe(201);
    const pub = await api(`/api/records/${v2id}/draft/actions/publish`, { method: 'POST', token: depositor.token });
    expect(pub.status, pub.text).toBe(202);
    const add = await api(`/api/records/${v2id}/communities`, {
      method: 'POST',
      token: depositor.token,
      body: { communities: [{ id: community.id }] },
    });
    expect([200, 201], add.text).toContain(add.status);
    expect(add.body.errors ?? [], add.text).toEqual([]);
    // The inclusion is a request the community's owner accepts; records applies it.
    const requestId = add.body.processed?.[0]?.request_id ?? add.body.processed?.[0]?.request?.id;
    const accepted = await api(`/api/requests/${requestId}/actions/accept`, { method: 'POST', token: admin.token, body: {} });
    expect([200, 202], accepted.text).toContain(accepted.status);
    for (let i = 0; i < 40; i++) {
      const r = await api(`/api/records/${v2id}`);
      if (r.body?.parent?.communities?.ids?.includes(community.id)) break;
      await new Promise((done) => setTimeout(done, 250));
    }

    const { page, html } = await visit('record', pub.body.links.self_html);
    expect(await page.locator('h1').innerText()).toBe('Browser record');
    expect(await page.locator('[aria-current="page"]').innerText()).toContain('v2.0');
    expect(html).toContain(v1.links.self_html);
    expect(html).toContain(community.links.self_html);
    expect(await page.getByRole('link', { name: 'Browser community' }).count()).toBe(1);
    const ld = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent()) as string);
    const rec = (await api(`/api/records/${v2id}`)).body;
    expect(rec.parent.communities.ids).toContain(community.id);
    expect(ld.name).toBe(rec.metadata.title);
    const names = (x: any) => (Array.isArray(x) ? x : [x]).map((c: any) => c.name).sort();
    expect(names(ld.creator)).toEqual(rec.metadata.creators.map((c: any) => c.person_or_org.name).sort());
    if (rec.pids?.doi) expect(JSON.stringify(ld)).toContain(rec.pids.doi.identifier);
    // The citation box: the API's APA citation, and the style form (a plain GET, no script) switches it.
    const cite = (style: string) => api(`/api/records/${v2id}?style=${style}`, { headers: { accept: 'text/x-bibliography' } });
    const box = page.locator('#citation');
    expect(await box.isVisible()).toBe(true);
    expect(await box.locator('p.citation').innerText()).toBe((await cite('apa')).text);
    await page.locator('#citation-style').selectOption('ieee');
    await Promise.all([page.waitForURL(/[?&]style=ieee/), box.getByRole('button', { name: 'Show' }).click()]);
    expect(await page.locator('#citation p.citation').innerText()).toBe((await cite('ieee')).text);
    await page.screenshot({ path: join(ARTIFACTS, 'record-citation-ieee.png'), fullPage: true });
    await page.close();
    // The previous version's page names the newest as another version.
    const old = await visit('record-v1', v1.links.self_html);
    expect(old.html).toContain(pub.body.links.self_html);
    await old.page.close();
  });

  it('should show a restricted record to a secret link only, and a deleted record as its tombstone', async () => {
    const restricted = await publishedRecord(
      owner.token,
      { ...walkthroughMetadata(), title: 'Browser restricted' },
      { record: 'restricted', files: 'restricted' },
    );
    const anon = await visit('restricted-anonymous', restricted.links.self_html, 403);
    expect(anon.html).not.toContain('Browser restricted');
    await anon.page.close();
    const link = await api(`/api/records/${restricted.id}/access/links`, {
      method: 'POST',
      token: owner.token,
      body: { permission: 'view' },
    });
    expect(link.status, link.text).toBe(201);
    const shared = await visit('restricted-link', `${restricted.links.self_html}?token=${link.body.token}`);
    expect(await shared.page.locator('h1').innerText()).toBe('Browser restricted');
    await shared.page.close();

    const doomed = await publishedRecord(owner.token, { ...walkthroughMetadata(), title: 'Browser deleted' });
    const body = { removal_reason: { id: 'spam' }, note: 'browser', citation_text: 'Cite me', is_visible: true };
    expect([200, 204]).toContain((await api(`/api/records/${doomed.id}/delete`, { method: 'DELETE', token: admin.token, body })).status);
    const gone = await visit('deleted', doomed.links.self_html, 410);
    expect(await gone.page.locator('h1').innerText()).toBe('Record deleted');
    await gone.page.close();
  });

  it('should render a community and the search', async () => {
    const community = await makeCommunity(admin.token, 'Browser community page');
    const c = await visit('community', community.links.self_html);
    expect(await c.page.locator('h1').innerText()).toBe('Browser community page');
    await c.page.close();
    const s = await visit('search', `${baseUrl()}/search?q=Browser`);
    expect(await s.page.locator('h1').innerText()).toBe('Search: Browser');
    expect(await s.page.locator('#h-results').innerText()).toMatch(/^[1-9]\d* records?$/);
    expect(await s.page.locator('.hit h3 a').first().innerText()).toMatch(/^Browser/);
    await s.page.close();
  });
});
