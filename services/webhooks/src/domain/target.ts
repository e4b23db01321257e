/**
 * Validation of a subscription's target URL (create, update): absolute `https://` (or `http://`
 * when WEBHOOKS_ALLOW_HTTP), no credentials, at most 2000 characters, and a host whose every
 * address passes the SSRF guard (ssrf.ts) at this moment; deliveries check again on connect.
 */
import type { FieldError } from '@rdm/platform';
import { resolveChecked } from './ssrf.js';

/** Rules of target URLs. */
export interface TargetRules {
  allowHttp: boolean;
  allowedCidrs: Parameters<typeof resolveChecked>[1];
}

/** Field errors of `url` (empty when acceptable). */
export async function checkTargetUrl(url: unknown, rules: TargetRules): Promise<FieldError[]> {
  const bad = (m: string): FieldError[] => [{ field: 'url', messages: [m] }];
  if (typeof url !== 'string' || url.length === 0) return bad('Missing data for required field.');
  if (url.length > 2000) return bad('Longer than maximum length 2000.');
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return bad('Not a valid URL.');
  }
  if (u.protocol !== 'https:' && !(rules.allowHttp && u.protocol === 'http:')) {
    return bad(rules.allowHttp ? 'Must be an http or https URL.' : 'Must be an https URL.');
  }
  if (u.username || u.password) return bad('Must not carry credentials.');
  try {
    const { refusal } = await resolveChecked(u.hostname, rules.allowedCidrs);
    if (refusal) return bad(`The target is not allowed (${refusal}).`);
  } catch {
    return bad('The host name could not be resolved.');
  }
  return [];
}
