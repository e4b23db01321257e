import type { RequestListener } from 'node:http';
import { ANONYMOUS } from '@rdm/platform';
import { type TestDb, testDb } from '@rdm/platform/testing';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/user.js';
import { as, BASE, identityOf, makeApp, makeUser } from './helpers.js';
import { gatewayFront } from '@rdm/platform/testing';
import { SECRET } from './helpers.js';

describe('users HTTP API', () => {
  let t: TestDb;
  let app: ReturnType<typeof makeApp>;
  let server: RequestListener;
  let pub: User;
  let pubMail: User;
  let priv: User;
  let inactive: User;
  let unconfirmed: User;
  let admin: User;

  beforeAll(async () => {
    t = await testDb('users');
    app = makeApp(t.db);
    server = gatewayFront(app.callback(), SECRET);
    pub = await makeUser(t.db, { email: 'jose@cern.example', fullName: 'José Benito', affiliations: 'CERN', username: 'jose' });
    pubMail = await makeUser(t.db, { email: 'open@mail.example', fullName: 'Open Mail', emailVisibility: 'public' });
    priv = await makeUser(t.db, { email: 'private@x.example', fullName: 'Private Person', visibility: 'restricted' });
    inactive = await makeUser(t.db, { email: 'gone@x.example', fullName: 'Gone Person', active: false });
    unconfirmed = await makeUser(t.db, { email: 'new@x.example', fullName: 'Unconfirmed Person', confirmed: false });
    admin = await makeUser(t.db, { email: 'admin@x.example', fullName: 'Ada Admin', admin: true, visibility: 'restricted' });
  });
  afterAll(async () => {
    await t?.destroy();
  });

  const ids = (res: request.Response) => (res.body.hits.hits as { id: string }[]).map((h) => h.id).sort();

  describe('GET /api/users', () => {
    it('should list only active, confirmed, public users to anonymous callers', async () => {
      const res = await request(server).get('/api/users');
      expect(res.status).toBe(200);
      expect(ids(res)).toEqual([pub.id, pubMail.id].sort());
      expect(res.body.hits.total).toBe(2);
      expect(res.body.sortBy).toBe('newest');
      expect(res.body.aggregations).toEqual({});
      expect(res.body.links).toEqual({ self: `${BASE}/api/users?page=1&size=10&sort=newest` });
      const jose = res.body.hits.hits.find((h: { id: string }) => h.id === pub.id);
      expect(jose).not.toHaveProperty('email');
      expect(jose.links.self).toBe(`${BASE}/api/users/${pub.id}`);
      const open = res.body.hits.hits.find((h: { id: string }) => h.id === pubMail.id);
      expect(open.email).toBe('open@mail.example');
    });

    it('should add the caller themselves even when their profile is private', async () => {
      const res = await request(server)
        .get('/api/users')
        .set(as(identityOf(priv)));
      expect(ids(res)).toEqual([pub.id, pubMail.id, priv.id].sort());
      const me = res.body.hits.hits.find((h: { id: string }) => h.id === priv.id);
      expect(me.is_current_user).toBe(true);
      expect(me.email).toBe('private@x.example');
    });

    it('should show admins every active confirmed user, with e-mails', async () => {
      const res = await request(server)
        .get('/api/users')
        .set(as(identityOf(admin)));
      expect(ids(res)).toEqual([pub.id, pubMail.id, priv.id, admin.id].sort());
      for (const h of res.body.hits.hits) expect(h.email).toBeDefined();
    });

    it('should search full name folded, username, affiliation and aliases', async () => {
      for (const q of ['jose', 'JOSÉ', 'benito', 'username:jose', 'name:josé', 'full_name:benito', 'affiliations:cern', 'jos*']) {
        const res = await request(server).get('/api/users').query({ q });
        expect(res.status, q).toBe(200);
        expect(ids(res), q).toEqual([pub.id]);
      }
      const res = await request(server).get('/api/users').query({ q: 'jose' });
      expect(res.body.sortBy).toBe('bestmatch');
    });

    it('should not find hidden users or hidden e-mails by search', async () => {
      for (const q of ['private', 'gone', 'unconfirmed', 'jose@cern.example', 'email:"jose@cern.example"']) {
        const res = await request(server).get('/api/users').query({ q });
        expect(res.body.hits.total, q).toBe(0);
      }
      const open = await request(server).get('/api/users').query({ q: 'email:"open@mail.example"' });
      expect(ids(open)).toEqual([pubMail.id]);
    });

    it('should sort newest and oldest and paginate with links', async () => {
      const newest = await request(server).get('/api/users').query({ sort: 'newest' });
      expect(newest.body.hits.hits.map((h: { id: string }) => h.id)).toEqual([pubMail.id, pub.id]);
      const oldest = await request(server).get('/api/users').query({ sort: 'oldest', size: 1 });
      expect(oldest.body.hits.hits.map((h: { id: string }) => h.id)).toEqual([pub.id]);
      expect(oldest.body.links).toEqual({
        self: `${BASE}/api/users?page=1&size=1&sort=oldest`,
        next: `${BASE}/api/users?page=2&size=1&sort=oldest`,
      });
      const page2 = await request(server).get('/api/users').query({ sort: 'oldest', size: 1, page: 2 });
      expect(page2.body.hits.hits.map((h: { id: string }) => h.id)).toEqual([pubMail.id]);
      expect(page2.body.links.prev).toBe(`${BASE}/api/users?page=1&size=1&sort=oldest`);
    });

    it('should answer 400 to bad sort, page, size and q, never 500', async () => {
      const sort = await request(server).get('/api/users').query({ sort: 'username' });
      expect(sort.status).toBe(400);
      expect(sort.body).toEqual({
        status: 400,
        message: 'A validation error occurred.',
        errors: [{ field: '_schema', messages: ["Invalid sort option 'username'."] }],
      });
      for (const query of [{ page: 'x' }, { size: '0' }, { page: '-1' }]) {
        const res = await request(server).get('/api/users').query(query);
        expect(res.status, JSON.stringify(query)).toBe(400);
      }
      const q = await request(server).get('/api/users').query({ q: '(unbalanced' });
      expect(q.status).toBe(400);
      expect(q.body).toEqual({ status: 400, message: 'Invalid query string syntax.' });
      const date = await request(server).get('/api/users').query({ q: 'created:notadate' });
      expect(date.status).toBe(400);
    });
  });

  describe('GET /api/users/<id>', () => {
    it('should return a public user to anonymous callers, in the spec shape', async () => {
      const res = await request(server).get(`/api/users/${pub.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: pub.id,
        created: pub.created,
        updated: pub.updated,
        links: {
          self: `${BASE}/api/users/${pub.id}`,
          avatar: `${BASE}/api/users/${pub.id}/avatar.svg`,
          records_html: `${BASE}/search?q=parent.access.owned_by.user:${pub.id}`,
        },
        revision_id: 1,
        active: true,
        confirmed: true,
        is_current_user: false,
        username: 'jose',
        profile: { full_name: 'José Benito', affiliations: 'CERN' },
        preferences: { visibility: 'public', email_visibility: 'restricted' },
        identities: {},
      });
    });

    it('should answer 404 for hidden, unknown and malformed ids', async () => {
      for (const u of [priv, inactive, unconfirmed, admin]) {
        const res = await request(server)
          .get(`/api/users/${u.id}`)
          .set(as({ sub: pub.id, roles: [] }));
        expect(res.status, u.email).toBe(404);
        expect(res.body).toEqual({ status: 404, message: 'The user does not exist.' });
      }
      for (const id of ['abc', '0', '99999999', '1.5', '123456789012345678901234', '%00']) {
        const res = await request(server).get(`/api/users/${id}`);
        expect(res.status, id).toBe(404);
      }
    });

    it('should let users read themselves and admins read anyone', async () => {
      const self = await request(server)
        .get(`/api/users/${priv.id}`)
        .set(as(identityOf(priv)));
      expect(self.status).toBe(200);
      expect(self.body.is_current_user).toBe(true);
      expect(self.body.email).toBe('private@x.example');
      expect(self.body.preferences.locale).toBe('en');
      const byAdmin = await request(server)
        .get(`/api/users/${inactive.id}`)
        .set(as(identityOf(admin)));
      expect(byAdmin.status).toBe(200);
      expect(byAdmin.body.active).toBe(false);
      expect(byAdmin.body.email).toBe('gone@x.example');
    });

    it('should refuse a forged identity header with 401', async () => {
      const res = await request(server).get(`/api/users/${pub.id}`).set('x-rdm-identity', 'forged.signature');
      expect(res.status).toBe(401);
    });

    it('should answer 405 to other methods', async () => {
      const res = await request(server).delete(`/api/users/${pub.id}`);
      expect(res.status).toBe(405);
    });
  });

  describe('GET /api/users/<id>/avatar.svg', () => {
    it('should serve an SVG of the initial with an ETag, and 304 on a match', async () => {
      const res = await request(server).get(`/api/users/${pub.id}/avatar.svg`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
      expect(res.headers.etag.startsWith('"J')).toBe(true);
      expect(res.text ?? res.body.toString()).toContain('>J</text>');
      const again = await request(server).get(`/api/users/${pub.id}/avatar.svg`).set('if-none-match', res.headers.etag);
      expect(again.status).toBe(304);
    });

    it('should answer 404 for a hidden user', async () => {
      const res = await request(server).get(`/api/users/${priv.id}/avatar.svg`);
      expect(res.status).toBe(404);
    });
  });

  describe('GET /api/me', () => {
    it('should answer 403 Permission denied to anonymous callers', async () => {
      const res = await request(server).get('/api/me');
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ status: 403, message: 'Permission denied.' });
    });

    it('should return the caller with e-mail and details', async () => {
      const res = await request(server)
        .get('/api/me')
        .set(as(identityOf(admin)));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: admin.id,
        email: 'admin@x.example',
        is_current_user: true,
        roles: ['admin'],
        domain: 'x.example',
      });
    });

    it('should answer 403 for an identity whose user is unknown or inactive', async () => {
      expect(
        (
          await request(server)
            .get('/api/me')
            .set(as({ sub: '987654', roles: [] }))
        ).status,
      ).toBe(403);
      expect(
        (
          await request(server)
            .get('/api/me')
            .set(as(identityOf(inactive)))
        ).status,
      ).toBe(403);
      expect(
        (
          await request(server)
            .get('/api/me')
            .set(as({ ...ANONYMOUS }))
        ).status,
      ).toBe(403);
    });
  });
});
