import { describe, expect, it } from 'vitest';
import { api } from '../../support/client.js';
import { createUser, deactivateUser, revokeToken, uniqueEmail } from '../../support/users.js';

/** Poll `fn` until it returns true or `ms` pass (token caches and event relays settle in seconds). */
async function eventually(fn: () => Promise<boolean>, ms = 15_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await fn()) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return fn();
}

const INVALID_TOKEN = { status: 401, message: 'The access token is invalid or has been revoked.' };

describe('GET /api/me', () => {
  it('should answer 403 Permission denied without a token', async () => {
    const res = await api('/api/me');
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ status: 403, message: 'Permission denied.' });
  });

  it('should return the caller, e-mail and details included, with a good token', async () => {
    const u = await createUser({ email: uniqueEmail('me'), name: 'Me Myself' });
    const res = await api('/api/me', { token: u.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: u.id,
      email: u.email,
      is_current_user: true,
      active: true,
      confirmed: true,
      profile: { full_name: 'Me Myself' },
      preferences: { visibility: 'public', email_visibility: 'restricted' },
    });
    const query = await api(`/api/me?access_token=${encodeURIComponent(u.token)}`);
    expect(query.status).toBe(200);
    expect(query.body.id).toBe(u.id);
  });

  it('should carry the admin role of an administrator', async () => {
    const u = await createUser({ email: uniqueEmail('me-admin'), admin: true });
    const res = await api('/api/me', { token: u.token });
    expect(res.status).toBe(200);
    expect(res.body.roles).toEqual(['admin']);
  });

  it('should refuse an unknown token with 401 invalid_token (the gateway default; InvenioRDM would answer 403)', async () => {
    const res = await api('/api/me', { token: 'this-is-not-a-valid-token' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(INVALID_TOKEN);
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  });

  it('should refuse a revoked token with 401 within seconds', async () => {
    const u = await createUser({ email: uniqueEmail('me-revoked') });
    expect((await api('/api/me', { token: u.token })).status).toBe(200);
    await revokeToken(u.token);
    expect(await eventually(async () => (await api('/api/me', { token: u.token })).status === 401)).toBe(true);
    const res = await api('/api/me', { token: u.token });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(INVALID_TOKEN);
  });

  it('should refuse the tokens of a deactivated user with 401 within seconds', async () => {
    const email = uniqueEmail('me-deactivated');
    const u = await createUser({ email });
    expect((await api('/api/me', { token: u.token })).status).toBe(200);
    await deactivateUser(email);
    // Until the gateway drops its cached entry (event, else TTL) the users service itself refuses
    // the now inactive identity with 403; then the gateway answers 401.
    expect(await eventually(async () => (await api('/api/me', { token: u.token })).status === 401)).toBe(true);
    const res = await api('/api/me', { token: u.token });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(INVALID_TOKEN);
    expect((await api(`/api/users/${u.id}`)).status).toBe(404);
  });

  it('should give a reused user a fresh token while the old one keeps working', async () => {
    const email = uniqueEmail('me-reuse');
    const a = await createUser({ email });
    const b = await createUser({ email });
    expect(b.id).toBe(a.id);
    expect(b.token).not.toBe(a.token);
    expect((await api('/api/me', { token: a.token })).body.id).toBe(a.id);
    expect((await api('/api/me', { token: b.token })).body.id).toBe(a.id);
  });
});
