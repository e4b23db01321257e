import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';

/** A word only this file's users carry, so lists can be narrowed to them. */
const TAG = `zq${randomBytes(4).toString('hex')}`;

describe('GET /api/users', () => {
  let pub: TestUser;
  let pubMail: TestUser;
  let priv: TestUser;
  let inactive: TestUser;
  let unconfirmed: TestUser;
  let admin: TestUser;

  beforeAll(async () => {
    [pub, pubMail, priv, inactive, unconfirmed, admin] = await Promise.all([
      createUser({ email: uniqueEmail('pub'), name: `Public ${TAG}`, affiliations: 'CERN' }),
      createUser({ email: uniqueEmail('pubmail'), name: `Mailer ${TAG}`, emailPublic: true }),
      createUser({ email: uniqueEmail('priv'), name: `Private ${TAG}`, private: true }),
      createUser({ email: uniqueEmail('inactive'), name: `Inactive ${TAG}`, inactive: true }),
      createUser({ email: uniqueEmail('unconfirmed'), name: `Unconfirmed ${TAG}`, unconfirmed: true }),
      createUser({ email: uniqueEmail('admin'), name: `Admin ${TAG}`, admin: true, private: true }),
    ]);
  });

  const ids = (body: any) => (body.hits.hits as { id: string }[]).map((h) => h.id).sort();

  it('should answer the list envelope with only active, confirmed, public users', async () => {
    const res = await api(`/api/users?q=${TAG}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['aggregations', 'hits', 'links', 'sortBy']);
    expect(res.body.sortBy).toBe('bestmatch');
    expect(res.body.hits.total).toBe(2);
    expect(ids(res.body)).toEqual([pub.id, pubMail.id].sort());
    expect(res.body.links.self).toBe(`${baseUrl()}/api/users?page=1&q=${TAG}&size=10&sort=bestmatch`);
  });

  it('should render every hit in the User shape, e-mail only when public', async () => {
    const res = await api(`/api/users?q=${TAG}`);
    for (const hit of res.body.hits.hits) {
      expect(hit).toMatchObject({
        id: expect.stringMatching(/^\d+$/),
        created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/),
        updated: expect.any(String),
        revision_id: expect.any(Number),
        active: true,
        confirmed: true,
        is_current_user: false,
        profile: { full_name: expect.stringContaining(TAG), affiliations: expect.any(String) },
        preferences: { visibility: 'public', email_visibility: expect.stringMatching(/^(public|restricted)$/) },
        links: {
          self: `${baseUrl()}/api/users/${hit.id}`,
          avatar: `${baseUrl()}/api/users/${hit.id}/avatar.svg`,
          records_html: `${baseUrl()}/search?q=parent.access.owned_by.user:${hit.id}`,
        },
      });
    }
    const byId = Object.fromEntries(res.body.hits.hits.map((h: { id: string }) => [h.id, h]));
    expect(byId[pub.id]).not.toHaveProperty('email');
    expect(byId[pubMail.id].email).toBe(pubMail.email);
  });

  it('should add the caller to their own list even with a private profile', async () => {
    const res = await api(`/api/users?q=${TAG}`, { token: priv.token });
    expect(ids(res.body)).toEqual([pub.id, pubMail.id, priv.id].sort());
    const me = res.body.hits.hits.find((h: { id: string }) => h.id === priv.id);
    expect(me.is_current_user).toBe(true);
    expect(me.email).toBe(priv.email);
  });

  it('should show administrators restricted users but never inactive or unconfirmed ones', async () => {
    const res = await api(`/api/users?q=${TAG}`, { token: admin.token });
    expect(ids(res.body)).toEqual([pub.id, pubMail.id, priv.id, admin.id].sort());
    expect(ids(res.body)).not.toContain(inactive.id);
    expect(ids(res.body)).not.toContain(unconfirmed.id);
  });

  it('should not reveal a restricted e-mail through search', async () => {
    const res = await api(`/api/users?q=${encodeURIComponent(`"${pub.email}"`)}`);
    expect(res.status).toBe(200);
    expect(res.body.hits.total).toBe(0);
  });

  it('should sort and paginate with absolute links', async () => {
    const first = await api(`/api/users?q=${TAG}&sort=oldest&size=1`);
    expect(first.body.hits.hits).toHaveLength(1);
    expect(first.body.links.next).toBe(`${baseUrl()}/api/users?page=2&q=${TAG}&size=1&sort=oldest`);
    const second = await api(first.body.links.next);
    expect(second.body.hits.hits).toHaveLength(1);
    expect(second.body.hits.hits[0].id).not.toBe(first.body.hits.hits[0].id);
    expect(second.body.links.prev).toBe(`${baseUrl()}/api/users?page=1&q=${TAG}&size=1&sort=oldest`);
  });

  it('should answer 400 to a bad sort, size or query', async () => {
    expect((await api('/api/users?sort=nope')).status).toBe(400);
    expect((await api('/api/users?size=abc')).status).toBe(400);
    const q = await api('/api/users?q=%28unbalanced');
    expect(q.status).toBe(400);
    expect(q.body).toEqual({ status: 400, message: 'Invalid query string syntax.' });
  });
});

describe('GET /api/users/<id>', () => {
  let pub: TestUser;
  let priv: TestUser;
  let inactive: TestUser;
  let unconfirmed: TestUser;
  let admin: TestUser;

  beforeAll(async () => {
    [pub, priv, inactive, unconfirmed, admin] = await Promise.all([
      createUser({ email: uniqueEmail('read-pub'), name: 'Jose Reader', username: `jr${randomBytes(3).toString('hex')}` }),
      createUser({ email: uniqueEmail('read-priv'), name: 'Hidden Reader', private: true }),
      createUser({ email: uniqueEmail('read-inactive'), name: 'Gone Reader', inactive: true }),
      createUser({ email: uniqueEmail('read-unconfirmed'), name: 'New Reader', unconfirmed: true }),
      createUser({ email: uniqueEmail('read-admin'), admin: true }),
    ]);
  });

  it('should return a public user to anonymous callers without the restricted e-mail', async () => {
    const res = await api(`/api/users/${pub.id}`);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(pub.id);
    expect(res.body.profile.full_name).toBe('Jose Reader');
    expect(res.body.is_current_user).toBe(false);
    expect(res.body).not.toHaveProperty('email');
    expect(res.body.links.self).toBe(`${baseUrl()}/api/users/${pub.id}`);
  });

  it('should answer 404 for hidden users, unknown and malformed ids', async () => {
    for (const u of [priv, inactive, unconfirmed]) {
      const res = await api(`/api/users/${u.id}`, { token: pub.token });
      expect(res.status, u.email).toBe(404);
      expect(res.body).toEqual({ status: 404, message: 'The user does not exist.' });
    }
    for (const id of ['abc', '0', '999999999999', '-1']) {
      const res = await api(`/api/users/${id}`);
      expect(res.status, id).toBe(404);
    }
  });

  it('should let users read themselves and administrators read anyone', async () => {
    const self = await api(`/api/users/${priv.id}`, { token: priv.token });
    expect(self.status).toBe(200);
    expect(self.body).toMatchObject({ id: priv.id, is_current_user: true, email: priv.email });
    const byAdmin = await api(`/api/users/${unconfirmed.id}`, { token: admin.token });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body).toMatchObject({ id: unconfirmed.id, confirmed: false, email: unconfirmed.email });
  });

  it('should serve the avatar of a visible user and 404 for a hidden one', async () => {
    const res = await api(`/api/users/${pub.id}/avatar.svg`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(res.headers.get('etag')?.startsWith('"J')).toBe(true);
    expect(res.text).toContain('<svg');
    expect((await api(`/api/users/${priv.id}/avatar.svg`)).status).toBe(404);
  });
});
