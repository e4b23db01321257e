/**
 * Signing secrets of subscriptions and the Standard Webhooks signature.
 *
 * When to use: `newSecret()` at create and rotate (shown once to the caller), `SecretBox` to store
 * it encrypted (AES-256-GCM under a key from WEBHOOKS_SECRET_KEY) and read it back to sign,
 * `signatureHeader()` to build `webhook-signature` for one attempt. A clear secret is never logged
 * and never stored.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';

/** Prefix of every secret (Standard Webhooks). */
export const SECRET_PREFIX = 'whsec_';

/** A fresh `whsec_<base64 of 32 random bytes>` secret. */
export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The HMAC key of a `whsec_…` secret (the base64 part decoded). */
export function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/** `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` for one secret. */
export function sign(secret: string, id: string, timestampS: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestampS}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The `webhook-signature` header: one signature per secret, space-separated (a rotation's overlap signs twice). */
export function signatureHeader(secrets: string[], id: string, timestampS: number, body: string): string {
  return secrets.map((s) => sign(s, id, timestampS, body)).join(' ');
}

/** Encrypts secrets at rest and decrypts them to sign (`v1:<iv>:<tag>:<ciphertext>`, base64 parts). */
export class SecretBox {
  private readonly key: Buffer;

  constructor(keyMaterial: string) {
    this.key = createHash('sha256').update(keyMaterial, 'utf8').digest();
  }

  /** Encrypt a clear secret. */
  seal(secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ct = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), ct.toString('base64')].join(':');
  }

  /** Decrypt a sealed secret (throws when the key is not the one that sealed it). */
  open(sealed: string): string {
    const [v, iv, tag, ct] = sealed.split(':');
    if (v !== 'v1' || !iv || !tag || ct === undefined) throw new Error('unreadable sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64')), decipher.final()]).toString('utf8');
  }
}
