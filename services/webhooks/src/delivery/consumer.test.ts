import { describe, expect, it } from 'vitest';
import { orderKeyOf } from './consumer.js';

describe(orderKeyOf.name, () => {
  it('should key every event about a record by its parent, so draft, versions and deletion stay in order', () => {
    const draft = { data: { id: 'd1', parent_id: 'p1', owner: '1' }, aggregate: { type: 'draft', id: 'd1' } };
    const published = { data: { id: 'r2', parent_id: 'p1' }, aggregate: { type: 'record', id: 'r2' } };
    const inclusion = { data: { parent_id: 'p1', record_id: 'r2', community_id: 'c' }, aggregate: { type: 'parent', id: 'p1' } };
    expect(new Set([draft, published, inclusion].map(orderKeyOf))).toEqual(new Set(['parent:p1']));
  });

  it('should key other events by their aggregate', () => {
    expect(orderKeyOf({ data: { id: 'q1' }, aggregate: { type: 'request', id: 'q1' } })).toBe('request:q1');
  });
});
