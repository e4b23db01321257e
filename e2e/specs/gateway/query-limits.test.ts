/**
 * Every search endpoint refuses a too-long `q` with a 400 that says the limit (not a bare
 * "Invalid query string syntax."), whichever service serves it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';

const LONG = encodeURIComponent('ocean '.repeat(400));

describe('search endpoints: a too-long q says its limit', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await createUser({ email: uniqueEmail('qlimit') });
  });

  for (const path of [
    '/api/records',
    '/api/user/records',
    '/api/communities',
    '/api/requests',
    '/api/users',
    '/api/vocabularies/languages',
  ]) {
    it(`GET ${path}?q=<2400 characters> → 400 naming the limit`, async () => {
      const res = await api(`${path}?q=${LONG}`, { token: user.token });
      expect(res.status, res.text).toBe(400);
      expect(res.body.message).toMatch(/^Invalid query string syntax: query is longer than \d+ characters\.$/);
    });
  }
});
