import { ANONYMOUS, type Identity } from '@rdm/platform';
import { describe, expect, it, vi } from 'vitest';
import { RenderedHits } from './search.routes.js';

const hits = (frozen: boolean) => {
  const h = [{ doc: { id: 'a' }, kind: 'record' as const }] as any[];
  return (frozen ? Object.freeze(h) : h) as any[];
};
const alice: Identity = { sub: '1', roles: [] };

describe(RenderedHits.name, () => {
  it('renders a shared (frozen) answer once per caller and freezes the rendering', () => {
    const sut = new RenderedHits();
    const answer = hits(true);
    const render = vi.fn(() => [{ id: 'a' }]);
    const first = sut.get(answer, ANONYMOUS, render);
    expect(sut.get(answer, ANONYMOUS, render)).toBe(first);
    expect(render).toHaveBeenCalledTimes(1);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first[0])).toBe(true);
  });

  it('never gives one caller the rendering of another', () => {
    const sut = new RenderedHits();
    const answer = hits(true);
    const anon = sut.get(answer, ANONYMOUS, () => [{ id: 'a', who: 'anonymous' }]);
    const mine = sut.get(answer, alice, () => [{ id: 'a', who: 'alice' }]);
    const admin = sut.get(answer, { sub: '1', roles: ['admin'] }, () => [{ id: 'a', who: 'admin' }]);
    expect([anon[0].who, mine[0].who, admin[0].who]).toEqual(['anonymous', 'alice', 'admin']);
  });

  it('renders live an answer that is not shared, and for secret-link callers', () => {
    const sut = new RenderedHits();
    const render = vi.fn(() => [{ id: 'a' }]);
    const own = hits(false);
    sut.get(own, ANONYMOUS, render);
    sut.get(own, ANONYMOUS, render);
    const shared = hits(true);
    const link: Identity = { sub: null, roles: [], linkToken: 't' };
    sut.get(shared, link, render);
    sut.get(shared, link, render);
    expect(render).toHaveBeenCalledTimes(4);
  });

  it('renders live past a bounded number of callers per answer', () => {
    const sut = new RenderedHits();
    const answer = hits(true);
    for (let i = 0; i < 8; i++) sut.get(answer, { sub: String(i), roles: [] }, () => [{}]);
    const render = vi.fn(() => [{}]);
    sut.get(answer, { sub: 'x', roles: [] }, render);
    sut.get(answer, { sub: 'x', roles: [] }, render);
    expect(render).toHaveBeenCalledTimes(2);
  });
});
