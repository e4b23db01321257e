import { describe, expect, it } from 'vitest';
import { Pacer } from './rate-limit.js';

describe(Pacer.name, () => {
  it('should space request starts evenly at the configured rate', async () => {
    let t = 1000;
    const slept: number[] = [];
    const pacer = new Pacer(
      4,
      () => t,
      async (ms) => {
        slept.push(ms);
        t += ms;
      },
    );
    for (let i = 0; i < 5; i++) await pacer.wait();
    expect(slept).toEqual([250, 250, 250, 250]);
  });

  it('should not wait at rate 0 (unpaced)', async () => {
    const pacer = new Pacer(
      0,
      () => 0,
      async () => {
        throw new Error('slept');
      },
    );
    await pacer.wait();
    await pacer.wait();
  });
});
