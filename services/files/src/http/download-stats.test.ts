import Koa from 'koa';
import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import { downloadStatsMiddleware } from './download-stats.js';

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0';

/** An app whose only route answers like the download handler, with a recording JetStream stand-in. */
function appWith(status: number, headers: Record<string, string> = {}) {
  const published: { subject: string; body: any; msgID?: string }[] = [];
  const js = {
    publish: async (subject: string, body: string, o?: { msgID?: string }) => {
      published.push({ subject, body: JSON.parse(body), msgID: o?.msgID });
      return {};
    },
  };
  const app = new Koa();
  app.use(downloadStatsMiddleware({ js: js as never, secret: 's' }));
  app.use((ctx) => {
    ctx.status = status;
    ctx.set(headers);
    ctx.body = 'x'.repeat(10);
  });
  return { request: supertest(app.callback()), published };
}

describe('downloadStatsMiddleware', () => {
  it('should publish one hashed event for a person reading a published file', async () => {
    const { request, published } = appWith(200);
    await request.get('/api/records/abcde-12345/files/a%20b.txt/content').set('user-agent', BROWSER).set('x-forwarded-for', '192.0.2.1');
    expect(published).toHaveLength(1);
    const e = published[0]!;
    expect(e.subject).toBe('rdm.stats.file.downloaded');
    expect(e.msgID).toBe(e.body.id);
    expect(e.body.data).toMatchObject({ record_id: 'abcde-12345', size: 10 });
    expect(JSON.stringify(e.body)).not.toContain('192.0.2.1');
    expect(e.body.data.visitor).toHaveLength(32);
  });

  it('should skip robots, drafts, metadata reads, failures and ranges not starting at 0', async () => {
    const a = appWith(200);
    await a.request.get('/api/records/abcde-12345/files/a.txt/content').set('user-agent', 'curl/8.0');
    await a.request.get('/api/records/abcde-12345/draft/files/a.txt/content').set('user-agent', BROWSER);
    await a.request.get('/api/records/abcde-12345/files/a.txt').set('user-agent', BROWSER);
    expect(a.published).toEqual([]);
    const b = appWith(403);
    await b.request.get('/api/records/abcde-12345/files/a.txt/content').set('user-agent', BROWSER);
    expect(b.published).toEqual([]);
    const c = appWith(206, { 'Content-Range': 'bytes 5-9/100' });
    await c.request.get('/api/records/abcde-12345/files/a.txt/content').set('user-agent', BROWSER);
    expect(c.published).toEqual([]);
    const d = appWith(206, { 'Content-Range': 'bytes 0-9/100' });
    await d.request.get('/api/records/abcde-12345/files/a.txt/content').set('user-agent', BROWSER);
    expect(d.published.map((p) => p.body.data.size)).toEqual([100]);
  });
});
