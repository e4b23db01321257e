import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newSecret, SecretBox, sign, signatureHeader } from './secrets.js';

describe('secrets', () => {
  const body = JSON.stringify({ type: 'record.published', timestamp: '2026-11-28T06:00:00.000000+00:00', data: { id: 'abcd-1234' } });

  it('should produce whsec_ secrets whose signatures the standardwebhooks library verifies', () => {
    const secret = newSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const ts = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(ts),
      'webhook-signature': signatureHeader([secret], 'msg_1', ts, body),
    };
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(sign(secret, 'msg_1', ts, body)).toBe(new Webhook(secret).sign('msg_1', new Date(ts * 1000), body));
  });

  it('should sign with both secrets during a rotation so receivers holding either one verify', () => {
    const oldSecret = newSecret();
    const newOne = newSecret();
    const ts = Math.floor(Date.now() / 1000);
    const sig = signatureHeader([newOne, oldSecret], 'msg_2', ts, body);
    expect(sig.split(' ')).toHaveLength(2);
    const headers = { 'webhook-id': 'msg_2', 'webhook-timestamp': String(ts), 'webhook-signature': sig };
    expect(new Webhook(oldSecret).verify(body, headers)).toBeTruthy();
    expect(new Webhook(newOne).verify(body, headers)).toBeTruthy();
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
  });

  it('should refuse a body changed after signing', () => {
    const secret = newSecret();
    const ts = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': 'msg_3',
      'webhook-timestamp': String(ts),
      'webhook-signature': signatureHeader([secret], 'msg_3', ts, body),
    };
    expect(() => new Webhook(secret).verify(body.replace('abcd', 'abce'), headers)).toThrow();
  });

  it('should store secrets encrypted and read them back only with the same key', () => {
    const secret = newSecret();
    const box = new SecretBox('a-key-of-sixteen-or-more');
    const sealed = box.seal(secret);
    expect(sealed).not.toContain(secret.slice(6, 20));
    expect(box.seal(secret)).not.toBe(sealed);
    expect(box.open(sealed)).toBe(secret);
    expect(() => new SecretBox('another-key-of-sixteen').open(sealed)).toThrow();
  });
});
