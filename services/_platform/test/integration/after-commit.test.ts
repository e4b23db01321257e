import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { afterCommit } from '../../src/after-commit.js';
import { type TestDb, testDb } from '../../src/testing/index.js';

let t: TestDb;
beforeAll(async () => {
  t = await testDb('aftercommit', { migrationsDir: false });
});
afterAll(async () => {
  await t.destroy();
});

const tick = () => new Promise((r) => setTimeout(r, 20));

describe(afterCommit.name, () => {
  it('should run the work once the transaction has committed, and not before', async () => {
    const ran: string[] = [];
    await t.db.transaction(async (trx) => {
      afterCommit(trx, () => ran.push('committed'));
      await trx.raw('select 1');
      await tick();
      expect(ran).toEqual([]);
    });
    await tick();
    expect(ran).toEqual(['committed']);
  });

  it('should never run the work of a transaction that rolls back', async () => {
    const ran: string[] = [];
    await expect(
      t.db.transaction(async (trx) => {
        afterCommit(trx, () => ran.push('rolled back'));
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await tick();
    expect(ran).toEqual([]);
  });

  it('should wait for the outermost transaction when called in a savepoint', async () => {
    const ran: string[] = [];
    await t.db.transaction(async (outer) => {
      await outer.transaction(async (inner) => {
        afterCommit(inner, () => ran.push('outer committed'));
      });
      await tick();
      expect(ran).toEqual([]);
    });
    await tick();
    expect(ran).toEqual(['outer committed']);
  });

  it('should hand an error of the work to onError, not to the caller', async () => {
    const errors: unknown[] = [];
    await t.db.transaction(async (trx) => {
      afterCommit(
        trx,
        () => {
          throw new Error('late');
        },
        (err) => errors.push(err),
      );
    });
    await tick();
    expect(errors).toHaveLength(1);
  });
});
