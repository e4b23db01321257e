import { describe, expect, it } from 'vitest';
import { backoffMs, webhookId } from './worker.js';

describe(backoffMs.name, () => {
  it('should double per attempt with jitter in the upper half, capped', () => {
    expect(backoffMs(1, 1000, 60_000, () => 0)).toBe(500);
    expect(backoffMs(1, 1000, 60_000, () => 1)).toBe(1000);
    expect(backoffMs(3, 1000, 60_000, () => 0.5)).toBe(3000);
    expect(backoffMs(30, 1000, 60_000, () => 1)).toBe(60_000);
  });
});

describe('webhookId', () => {
  it('should be msg_ and the delivery id', () => {
    expect(webhookId({ id: '0e6f6d1c-1111-4222-8333-944445555666' })).toBe('msg_0e6f6d1c111142228333944445555666');
  });
});
