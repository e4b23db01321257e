import { ANONYMOUS, type Identity } from '@rdm/platform';
import { describe, expect, it, vi } from 'vitest';
import { RenderedHits } from './search.routes.js';

const hits = (frozen: boolean) => {
  const h = [{ doc: { id: 'a' }, kind: 'record' as const }] as any[];
  return (frozen ? Object.freeze(h) : h) as any[];
};
const alice: Identity = { sub: '1', roles: [] };

describe(RenderedHits.name, () => {
  it('renders a shared (frozen) answer once per caller, as JSON', () => {
    const sut = new RenderedHits();
    const answer = hits(true);
    const render = vi.fn(() => [{ id: 'a', title: 'é "q"' }]);
    const first = sut.json(answer, ANONYMOUS, render);
    expect(first?.toString()).toBe(JSON.stringify([{ id: 'a', title: 'é "q"' }]));
    expect(sut.json(answer, ANONYMOUS, render)).toBe(first);
    expect(render).toHaveBeenCalledTimes(1);
  });

  it('never gives one caller the rendering of another', () => {
    const sut = new RenderedHits();
    const answer = hits(true);
    const anon = sut.json(answer, ANONYMOUS, () => [{ who: 'anonymous' }]);
    const mine = sut.json(answer, alice, () => [{ who: 'alice' }]);
    const admin = sut.json(answer, { sub: '1', roles: ['admin'] }, () => [{ who: 'admin' }]);
    expect([anon, mine, admin].map((j) => JSON.parse(j?.toString() ?? '[]')[0].who)).toEqual(['anonymous', 'alice', 'admin']);
  });

  it('leaves answers that are not shared, and secret-link callers, to live rendering', () => {
    const sut = new RenderedHits();
    const render = vi.fn(() => [{ id: 'a' }]);
    expect(sut.json(hits(false), ANONYMOUS, render)).toBeUndefined();
    expect(sut.json(hits(true), { sub: null, roles: [], linkToken: 't' }, render)).toBeUndefined();
    expect(render).not.toHaveBeenCalled();
  });

  it('leaves callers past a bounded number per answer to live rendering', () => {
    const sut = new RenderedHits();
    const answer = hits(true);
    for (let i = 0; i < 8; i++) expect(sut.json(answer, { sub: String(i), roles: [] }, () => [{}])?.toString()).toBe('[{}]');
    expect(sut.json(answer, { sub: 'x', roles: [] }, () => [{}])).toBeUndefined();
  });
});
