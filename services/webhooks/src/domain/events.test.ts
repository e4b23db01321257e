import type { EventEnvelope } from '@rdm/platform';
import { describe, expect, it } from 'vitest';
import { toWebhookEvent } from './events.js';

const env = (type: string, data: Record<string, unknown>): EventEnvelope =>
  ({
    id: 'e1',
    type,
    version: 1,
    occurred_at: '2026-11-28T06:00:00Z',
    aggregate: { type: 'x', id: 'x', revision: 1 },
    data,
  }) as EventEnvelope;
const BASE = 'https://repo.test';

describe(toWebhookEvent.name, () => {
  it('should tell a first publication of a later version (new_version) from a publication', () => {
    const d = { id: 'r2', parent_id: 'p', index: 2, is_latest: true, access_status: 'restricted', bucket_id: 'b', communities: ['c1'] };
    expect(toWebhookEvent('rdm.records.record.published', env('rdm.records.record.published', d), BASE, true)?.type).toBe(
      'record.new_version',
    );
    expect(toWebhookEvent('rdm.records.record.published', env('rdm.records.record.published', d), BASE, false)?.type).toBe(
      'record.published',
    );
    const first = toWebhookEvent('rdm.records.record.published', env('rdm.records.record.published', { ...d, index: 1 }), BASE, true);
    expect(first?.type).toBe('record.published');
    expect(first?.communities).toEqual(['c1']);
  });

  it('should carry only ids and links of a record (never its access status or metadata)', () => {
    const w = toWebhookEvent(
      'rdm.records.record.published',
      env('rdm.records.record.published', {
        id: 'r1',
        parent_id: 'p',
        index: 1,
        is_latest: true,
        access_status: 'restricted',
        bucket_id: 'b',
      }),
      BASE,
    );
    expect(w?.data).toEqual({
      id: 'r1',
      parent_id: 'p',
      index: 1,
      is_latest: true,
      links: { self: `${BASE}/api/records/r1`, self_html: `${BASE}/records/r1` },
    });
  });

  it('should map request verbs and their parties, leaving e-mail addresses out', () => {
    const d = {
      id: 'q',
      number: '1',
      type: 'community-submission',
      created_by: { email: 'a@b.c' },
      receiver: { community: 'c1' },
      topic: { record: 'r1' },
      actor: { user: '9' },
    };
    const w = toWebhookEvent('rdm.requests.request.accepted', env('rdm.requests.request.accepted', d), BASE);
    expect(w?.type).toBe('request.accepted');
    expect(w?.communities).toEqual(['c1']);
    expect(w?.data.created_by).toBeNull();
    expect(JSON.stringify(w?.data)).not.toContain('a@b.c');
    expect(toWebhookEvent('rdm.requests.request.created', env('rdm.requests.request.created', d), BASE)).toBeNull();
  });

  it('should ignore events no subscription can ask for', () => {
    expect(toWebhookEvent('rdm.records.search-doc.changed', env('rdm.records.search-doc.changed', { scope: 'document' }), BASE)).toBeNull();
  });
});
