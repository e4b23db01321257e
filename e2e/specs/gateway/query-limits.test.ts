/**
 * Every search endpoint refuses a too-long or too costly `q` with a 400 that says the limit (not a
 * bare "Invalid query string syntax.") and names `q`, whichever service serves it: the regex term
 * that cost ~12 s of PostgreSQL CPU (`/(.*){255}x/`) and 85 regex terms in one `q` (issue 18).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';

const LONG = encodeURIComponent('ocean '.repeat(400));
const PATHS = ['/api/records', '/api/user/records', '/api/communities', '/api/requests', '/api/users', '/api/vocabularies/languages'];

describe('search endpoints: a too-long q says its limit', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await createUser({ email: uniqueEmail('qlimit') });
  });

  for (const path of PATHS) {
    it(`GET ${path}?q=<2400 characters> → 400 naming the limit`, async () => {
      const res = await api(`${path}?q=${LONG}`, { token: user.token });
      expect(res.status, res.text).toBe(400);
      expect(res.body.message).toMatch(/^Invalid query string syntax: query is longer than \d+ characters\.$/);
    });
  }
});

describe('search endpoints: a costly q is refused at once, on q', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await createUser({ email: uniqueEmail('qcost') });
  });

  for (const path of PATHS) {
    it(`GET ${path}?q=/(.*){255}x/ → 400 on q, fast`, async () => {
      const t0 = Date.now();
      const res = await api(`${path}?q=${encodeURIComponent('/(.*){255}x/')}`, { token: user.token });
      expect(Date.now() - t0).toBeLessThan(2000);
      expect(res.status, res.text).toBe(400);
      expect(res.body).toEqual({
        status: 400,
        message: 'Invalid query string syntax: nested quantifiers are not supported in regular expressions.',
        errors: [{ field: 'q', messages: ['Nested quantifiers are not supported in regular expressions.'] }],
      });
    });

    it(`GET ${path}?q=<85 regex terms> → 400 on q, fast`, async () => {
      const t0 = Date.now();
      const res = await api(`${path}?q=${encodeURIComponent(Array(85).fill('/(.*)x/').join(' '))}`, { token: user.token });
      expect(Date.now() - t0).toBeLessThan(2000);
      expect(res.status, res.text).toBe(400);
      expect(res.body.errors).toEqual([{ field: 'q', messages: ['A query may hold at most 5 regular expression or wildcard terms.'] }]);
    });
  }
});
